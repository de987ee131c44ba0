package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Results files written before pieces load as one piece, render as before and re-render. */
class OlderResultsTest {
  /**
   * The shape of the stored results (bench/results/perf-data/*.json) before pieces (trimmed: one
   * record).
   */
  static final String OLDER =
      """
      {
        "meta" : {
          "Command" : "`bench/run.sh full`",
          "Date" : "2026-11-30T16:28:35Z (took 63 min 7 s)",
          "Level" : "full: 1 fork(s), 2 × 2 s warm-up, 3 × 1 s measurement per combination",
          "Data" : "budget 1024.00 MiB, keys = min(100,000, budget / value size): 1 KiB: 100,000",
          "Machine" : "2 CPUs, Linux 6.18.44-fc-v782 amd64; load average at the end 1.50",
          "Versions" : "this provider 0.1.0-SNAPSHOT (110c186), JCache API 1.1.1, JMH 1.37"
        },
        "records" : [ {
          "benchmark" : "readHeavy",
          "peer" : "mooncake",
          "value" : "1k",
          "keys" : "uniform",
          "threads" : 1,
          "score" : 594338.9,
          "error" : 30585.9,
          "unit" : "ops/s",
          "allocBytesPerOp" : 509.9,
          "misses" : 0.0,
          "copiedBytesPerOp" : null
        } ]
      }
      """;

  @Test
  void anOlderFileIsOnePieceWithTheTimingItsMetaStates(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("in-process.json");
    Files.writeString(file, OLDER);

    Results r = Results.load(file);

    assertEquals("in-process", r.part);
    assertEquals(new Timing("full", 1, 2, 2, 3, 1, 1L << 30, 100_000), r.timing);
    assertEquals(1, r.pieces.size());
    Piece p = r.pieces.get(0);
    assertEquals(
        List.of("bench/run.sh full", "2026-11-30T16:28:35Z", "63 min 7 s", "1.50", "110c186"),
        List.of(p.command(), p.date(), p.took(), p.load(), p.commit()));
    assertEquals(1, (int) r.records.get(0).piece());
    // rendered as before: its own meta lines, then what of today's full plan it lacks
    String md = Report.inProcessBlock(r);
    assertTrue(
        md.startsWith(
            "- Command: `bench/run.sh full`\n"
                + "- Date: 2026-11-30T16:28:35Z (took 63 min 7 s)\n"
                + "- Level: full: 1 fork(s), 2 × 2 s warm-up, 3 × 1 s measurement per combination\n"),
        md);
    assertTrue(md.contains("- Coverage: 1 of " + Plan.of("in-process", "full").runs()), md);
    // and a piece of today's full level does not merge into it
    Timing today = Timing.of(Plan.of("in-process", "full"));
    assertThrows(IllegalArgumentException.class, () -> Merge.check(r, today, true, false));
  }

  @Test
  void renderOnlyRendersFromTheStoredFilesOldAndNew(@TempDir Path dir) throws Exception {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    Files.writeString(data.resolve("in-process.json"), OLDER);
    Plan full = Plan.of("mooncake", "full");
    Results mooncake =
        Merge.merge(
            MergeTest.run(
                full,
                "piece one",
                "1.00",
                "abc123",
                MergeTest.rec("readHeavy", "mooncake-store", 1, 10)),
            MergeTest.run(
                full, "piece two", "2.00", "def456", MergeTest.rec("readHeavy", "redisson", 1, 5)),
            true,
            false);
    mooncake.save(data.resolve("mooncake.json"));
    Path doc = dir.resolve("performance.md");
    StringBuilder blocks = new StringBuilder();
    for (String block : List.of("targets", "in-process", "mooncake", "near-cache")) {
      blocks
          .append("<!-- BEGIN GENERATED: ")
          .append(block)
          .append(" -->\nold\n<!-- END GENERATED: ")
          .append(block)
          .append(" -->\n");
    }
    Files.writeString(doc, "# hand-written\n" + blocks);

    BenchMain.execute(
        BenchMain.parse(
            new String[] {
              "--render-only", "--level", "full", "--doc", doc.toString(), "--data", data.toString()
            }));

    String text = Files.readString(doc);
    assertTrue(text.startsWith("# hand-written\n"), text);
    assertTrue(text.contains("- Command: `bench/run.sh full`\n"), text);
    assertTrue(text.contains("- Command: 1) `piece one`; 2) `piece two`\n"), text);
    assertTrue(
        text.contains("| read-heavy 90/10 | uniform | 1 | 1 KiB | 10.0 ±1% | 5.00 ±1% |"), text);
    assertTrue(text.contains("_Not measured yet: needs a Mooncake build with KV events"), text);
    // the stored files are read, never written, by a render
    assertEquals(OLDER, Files.readString(data.resolve("in-process.json")));
  }
}
