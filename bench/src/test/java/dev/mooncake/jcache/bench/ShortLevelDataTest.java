package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short level's data on a remote store (fewer keys, a smaller budget: its fills were most of
 * the short run), what the forks are told, and how the key cap takes part in a level's identity.
 */
class ShortLevelDataTest {

  @Test
  void theRemotePartsOfTheShortLevelStoreFewerKeysInProcessKeepsTheFullData() {
    for (String part : List.of("mooncake", "near-cache")) {
      Plan remote = Plan.of(part, "short");
      assertEquals(20_000, remote.maxKeys(), part);
      assertEquals(256L << 20, remote.budget(), part);
      assertEquals(1, remote.warmupIterations(), part);
      assertEquals(
          List.of(20_000, 20_000, 4_096, 256),
          List.of(ValueKind.values()).stream().map(remote::keyCount).toList(),
          part);
    }
    Plan inProcess = Plan.of("in-process", "short");
    assertEquals(1, inProcess.warmupIterations());
    assertEquals(
        List.of(100_000, 100_000, 16_384, 1_024),
        List.of(ValueKind.values()).stream().map(inProcess::keyCount).toList());
    // the other levels keep 100,000 keys and 1 GiB everywhere
    for (String part : List.of("in-process", "mooncake", "near-cache")) {
      for (String level : List.of("full", "long")) {
        Plan plan = Plan.of(part, level);
        assertEquals(100_000, plan.keyCount(ValueKind.KIB1), part + " " + level);
        assertEquals(1_024, plan.keyCount(ValueKind.MIB1), part + " " + level);
      }
    }
  }

  @Test
  void theForksAreToldTheKeyCapAndSizedForTheirData() {
    Plan remote = Plan.of("mooncake", "short");
    List<String> args = BenchMain.forkJvmArgs(remote, ValueKind.MIB1);
    assertTrue(args.contains("-Dbench.maxKeys=20000"), args.toString());
    assertTrue(args.contains("-Dbench.budget=" + (256L << 20)), args.toString());
    // 256 MiB of data: the heap floor of 768 MiB, not three times the full level's 1 GiB
    assertTrue(args.contains("-Xmx768m"), args.toString());
    assertTrue(
        BenchMain.forkJvmArgs(Plan.of("mooncake", "full"), ValueKind.MIB1)
            .contains("-Dbench.maxKeys=100000"));
  }

  @Test
  void anotherKeyCapIsAnotherLevel() {
    Plan remote = Plan.of("mooncake", "short");
    Plan sameTimingAllKeys =
        new Plan(
            remote.part(),
            remote.level(),
            remote.forks(),
            remote.warmupIterations(),
            remote.warmupSeconds(),
            remote.iterations(),
            remote.iterationSeconds(),
            remote.budget(),
            ValueKind.MAX_KEYS,
            remote.segments());
    assertNotEquals(Timing.of(remote), Timing.of(sameTimingAllKeys));
    Results stored = MergeTest.run(sameTimingAllKeys, "bench/run-short.sh", "1", "a");
    IllegalArgumentException refused =
        assertThrows(
            IllegalArgumentException.class,
            () -> Merge.check(stored, Timing.of(remote), true, false));
    assertTrue(refused.getMessage().contains("at most 20,000 keys"), refused.getMessage());
    assertTrue(refused.getMessage().contains("at most 100,000 keys"), refused.getMessage());
  }

  @Test
  void theDataLineStatesTheCapAndOlderFilesReadAs100000Keys(@TempDir Path dir) throws IOException {
    Timing parsed =
        Timing.parse(
            Map.of(
                "Level",
                "short: 1 fork(s), 1 × 1 s warm-up, 3 × 1 s measurement per combination",
                "Data",
                "budget 256.00 MiB, keys = min(20,000, budget / value size): 1 KiB: 20,000"));
    assertEquals(Timing.of(Plan.of("mooncake", "short")), parsed);
    // a Data line that states a budget and no key cap: 100,000 keys, as before the cap
    Timing uncapped =
        Timing.parse(
            Map.of(
                "Level",
                "full: 2 fork(s), 2 × 1 s warm-up, 5 × 1 s measurement per combination",
                "Data",
                "budget 1024.00 MiB"));
    assertEquals(Timing.of(Plan.of("mooncake", "full")), uncapped);

    // a results file from before the cap: its timing object has no maxKeys
    Path file = dir.resolve("mooncake.json");
    Files.writeString(
        file,
        """
        {"part": "mooncake",
         "timing": {"level": "full", "forks": 2, "warmupIterations": 2, "warmupSeconds": 1,
                    "iterations": 5, "iterationSeconds": 1, "budget": 1073741824},
         "pieces": [{"id": 1, "meta": {"Command": "`bench/run.sh full`"}}], "records": []}
        """);
    Results older = Results.load(file);
    assertEquals(Timing.of(Plan.of("mooncake", "full")), older.timing);
    Merge.check(older, Timing.of(Plan.of("mooncake", "full")), true, false);
  }
}
