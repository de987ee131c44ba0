package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pieces of one level merge into a part's stored results; other levels are refused. */
class MergeTest {
  static final Plan FULL = Plan.of("in-process", "full");
  static final Plan SHORT = Plan.of("in-process", "short");
  static final String FIRST = "bench/run.sh full --part in-process --only '.* 1t' --replace";
  static final String SECOND = "bench/run.sh full --part in-process --only '.* 2t|zero-copy.*'";

  @Test
  void twoPiecesOfOneLevelKeepBoth() {
    Results stored = run(FULL, FIRST, "1.20", "abc123", rec("readHeavy", "mooncake", 1, 100));
    Results piece = run(FULL, SECOND, "2.10", "def456", rec("readHeavy", "mooncake", 2, 200));

    Results merged = Merge.merge(stored, piece, true, false);

    assertEquals(2, merged.records.size());
    assertEquals(2, merged.pieces.size());
    assertEquals(1, piece(find(merged, "readHeavy", "mooncake", 1)));
    assertEquals(2, piece(find(merged, "readHeavy", "mooncake", 2)));
    assertEquals("abc123", merged.pieces.get(0).commit());
    assertEquals("def456", merged.pieces.get(1).commit());
    assertEquals(Timing.of(FULL), merged.timing);
  }

  @Test
  void aCombinationMeasuredAgainReplacesTheStoredOneOnly() {
    Results stored =
        run(
            FULL,
            FIRST,
            "1.20",
            "abc123",
            rec("readHeavy", "mooncake", 1, 100),
            rec("readHeavy", "caffeine", 1, 300));
    Results piece = run(FULL, SECOND, "2.10", "def456", rec("readHeavy", "mooncake", 1, 150));

    Results merged = Merge.merge(stored, piece, true, false);

    assertEquals(2, merged.records.size());
    Record again = find(merged, "readHeavy", "mooncake", 1);
    assertEquals(150, again.score());
    assertEquals(2, piece(again));
    assertEquals(300, find(merged, "readHeavy", "caffeine", 1).score());
    assertEquals(1, piece(find(merged, "readHeavy", "caffeine", 1)));
  }

  @Test
  void aPieceWhoseFiguresWereAllMeasuredAgainIsDroppedAndTheRestRenumbered() {
    Results first = run(FULL, FIRST, "1.20", "abc123", rec("readHeavy", "mooncake", 1, 100));
    Results second = run(FULL, SECOND, "2.10", "def456", rec("writeHeavy", "mooncake", 1, 50));
    Results third = run(FULL, "third", "0.90", "0aa0aa", rec("readHeavy", "mooncake", 1, 120));

    Results merged = Merge.merge(Merge.merge(first, second, true, false), third, true, false);

    assertEquals(List.of("def456", "0aa0aa"), merged.pieces.stream().map(Piece::commit).toList());
    assertEquals(List.of(1, 2), merged.pieces.stream().map(Piece::id).toList());
    assertEquals(2, piece(find(merged, "readHeavy", "mooncake", 1)));
    assertEquals(1, piece(find(merged, "writeHeavy", "mooncake", 1)));
  }

  @Test
  void aPieceOfAnotherLevelIsRefusedNamingBothLevels() {
    Results stored =
        run(SHORT, "bench/run-short.sh", "1.00", "abc123", rec("readHeavy", "mooncake", 1, 1));
    Results piece = run(FULL, SECOND, "2.10", "def456", rec("readHeavy", "mooncake", 2, 2));

    IllegalArgumentException refused =
        assertThrows(IllegalArgumentException.class, () -> Merge.merge(stored, piece, true, false));
    assertTrue(refused.getMessage().contains(Timing.of(FULL).describe()), refused.getMessage());
    assertTrue(refused.getMessage().contains(Timing.of(SHORT).describe()), refused.getMessage());
    assertTrue(refused.getMessage().contains("--replace"), refused.getMessage());
    // and before anything is measured
    assertThrows(
        IllegalArgumentException.class, () -> Merge.check(stored, Timing.of(FULL), true, false));
    // another budget is another level too
    assertThrows(
        IllegalArgumentException.class,
        () ->
            Merge.check(
                run(FULL.withBudget(64L << 20), FIRST, "1", "a"), Timing.of(FULL), true, false));
  }

  @Test
  void replaceOrAWholeRunStartsTheStoredResultsAnew() {
    Results stored =
        run(SHORT, "bench/run-short.sh", "1.00", "abc123", rec("readHeavy", "mooncake", 1, 1));
    Results piece = run(FULL, SECOND, "2.10", "def456", rec("readHeavy", "mooncake", 2, 2));
    assertSame(piece, Merge.merge(stored, piece, true, true));

    Results sameLevel =
        run(SHORT, "bench/run-short.sh", "1.00", "0aa0aa", rec("writeHeavy", "mooncake", 1, 3));
    Results whole = Merge.merge(stored, sameLevel, false, false);
    assertSame(sameLevel, whole);
    assertEquals(1, whole.records.size());
  }

  @Test
  void piecesSurviveSavingAndLoading(@TempDir Path dir) throws IOException {
    Results merged =
        Merge.merge(
            run(FULL, FIRST, "1.20", "abc123", rec("readHeavy", "mooncake", 1, 100)),
            run(FULL, SECOND, "2.10", "def456", rec("readHeavy", "mooncake", 2, 200)),
            true,
            false);
    Path file = dir.resolve("in-process.json");
    merged.save(file);

    Results loaded = Results.load(file);

    assertEquals("in-process", loaded.part);
    assertEquals(Timing.of(FULL), loaded.timing);
    assertEquals(merged.pieces, loaded.pieces);
    assertEquals(merged.records, loaded.records);
    assertTrue(loaded.meta.isEmpty());
  }

  @Test
  void theHeaderListsEveryPieceAndWhatThePlanStillMisses() {
    Results merged =
        Merge.merge(
            run(FULL, FIRST, "1.20", "abc123", rec("readHeavy", "mooncake", 1, 100)),
            run(
                FULL,
                SECOND,
                "2.10",
                "def456",
                rec("readHeavy", "mooncake", 2, 200),
                rec("readHeavy", "caffeine", 2, 400)),
            true,
            false);

    String md = Report.inProcessBlock(merged);

    assertTrue(
        md.contains(
            "- Pieces: 2 runs of one level, merged (each figure is from the last piece that"
                + " measured its combination): 1) `"
                + FIRST
                + "` 2026-12-01T16:00:00Z, took 70 min 3 s, load 1.20, provider abc123, 1 figures;"
                + " 2) `"
                + SECOND
                + "` 2026-12-01T16:00:00Z, took 70 min 3 s, load 2.10, provider def456, 2 figures\n"),
        md);
    assertTrue(md.contains("- Command: 1) `" + FIRST + "`; 2) `" + SECOND + "`\n"), md);
    assertTrue(
        md.contains("- Machine: 2 CPUs, Linux; load average at the end 1) 1.20; 2) 2.10\n"), md);
    assertTrue(md.contains("- Level: " + levelLine(FULL) + "\n"), md); // once: the same level
    int planned = FULL.runs();
    assertTrue(
        md.contains(
            "- Coverage: 3 of "
                + planned
                + " combinations of the full plan measured; missing: `readHeavy 1t` (47 of 48:"
                + " mooncake 7, caffeine 8, ehcache-heap 8, ehcache-offheap 8, chm-floor 8,"
                + " contract-floor 8); `writeHeavy 1t` (all 48)"),
        md);
    assertTrue(md.contains("; `writeHeavy 2t` (all 48); "), md);
  }

  @Test
  void aWholePlanHasNoCoverageLineAndOnePieceItsOwnLines() {
    Results one =
        run(
            SHORT,
            "bench/run-short.sh",
            "1.00",
            "abc123",
            new Record(
                "normalGet",
                "mooncake",
                "1m",
                "uniform",
                1,
                5,
                0,
                "ops/s",
                null,
                0.0,
                null,
                null,
                null));
    String coverage = Coverage.line(one);
    assertTrue(coverage.startsWith("1 of " + SHORT.runs() + " combinations"), coverage);

    String md = Report.inProcessBlock(one);
    assertTrue(md.contains("- Command: `bench/run-short.sh`\n- Date: 2026-12-01T16:00:00Z"), md);

    Plan nearFull = Plan.of("near-cache", "full");
    Results all = run(nearFull, "bench/run-mooncake.sh full --part near-cache", "1", "a");
    for (Segment s : nearFull.segments()) {
      for (String peer : s.peers()) {
        for (String value : s.values()) {
          for (String keys : s.keys()) {
            all.records.add(
                new Record(
                    s.benchmark(),
                    peer,
                    value,
                    keys,
                    s.threads(),
                    1,
                    0,
                    "ops/s",
                    null,
                    0.0,
                    null,
                    null,
                    null,
                    1));
          }
        }
      }
    }
    assertNull(Coverage.line(all));
  }

  @Test
  void theMooncakePlanCountsTheCDriversModes() {
    Plan mooncake = Plan.of("mooncake", "full");
    int planned = Coverage.planned(mooncake).values().stream().mapToInt(List::size).sum();
    // 2 mixes × 2 key choices × 2 thread counts × 4 sizes: 2 JVM peers + 2 driver modes; the
    // zero-copy get and put with the plain driver (3 sizes each), the normal get without it
    assertEquals(mooncake.runs() + 32 * 2 + 2 * 3, planned);
  }

  @Test
  void targetsOnAPartialSetSayHowManyWorkloadsWereMeasured() {
    Results partial =
        run(
            FULL,
            FIRST,
            "1.20",
            "abc123",
            rec("readHeavy", "mooncake", 1, 100),
            rec("readHeavy", "ehcache-offheap", 1, 90));

    String targets = Report.targetsBlock(partial, null);

    assertTrue(
        targets.contains(
            "| in-process ≥ Ehcache off-heap on every workload | **met** on every workload"
                + " measured (1 of the 64 workloads measured"),
        targets);
  }

  // ---------------------------------------------------------------------------------------------

  /** One run's results as BenchMain.run makes them. */
  static Results run(Plan plan, String command, String load, String commit, Record... records) {
    Map<String, String> meta = new LinkedHashMap<>();
    meta.put("Command", "`" + command + "`");
    meta.put("Date", "2026-12-01T16:00:00Z (took 70 min 3 s)");
    meta.put("Level", levelLine(plan));
    meta.put("Data", "budget " + Report.bytes(plan.budget()) + ", keys = …");
    meta.put("Machine", "2 CPUs, Linux; load average at the end " + load);
    meta.put("Versions", "this provider 0.1.0-SNAPSHOT (" + commit + "), JCache API 1.1.1");
    return Results.ofRun(plan, meta, List.of(records));
  }

  static String levelLine(Plan plan) {
    return plan.level()
        + ": "
        + plan.forks()
        + " fork(s), "
        + plan.warmupIterations()
        + " × "
        + plan.warmupSeconds()
        + " s warm-up, "
        + plan.iterations()
        + " × "
        + plan.iterationSeconds()
        + " s measurement per combination";
  }

  static Record rec(String benchmark, String peer, int threads, double score) {
    return new Record(
        benchmark,
        peer,
        "1k",
        "uniform",
        threads,
        score,
        score / 100,
        "ops/s",
        64.0,
        0.0,
        null,
        0.0,
        null);
  }

  static int piece(Record r) {
    return r.piece();
  }

  static Record find(Results results, String benchmark, String peer, int threads) {
    return Report.find(results.records, peer, benchmark, "uniform", threads, "1k");
  }
}
