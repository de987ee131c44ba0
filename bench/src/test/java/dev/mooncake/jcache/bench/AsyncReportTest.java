package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 33's table: JMH's JSON read into records, the ratios and the three target lines. */
class AsyncReportTest {

  @Test
  void readsTheWindowFromAsyncBenchmarkAndTheWorkersCountFromVirtualThreadBenchmark()
      throws Exception {
    ObjectMapper json = new ObjectMapper();
    Record async =
        AsyncReport.record(
            json.readTree(
                "{\"benchmark\": \"dev.mooncake.jcache.bench.AsyncBenchmark.operation\","
                    + " \"params\": {\"peer\": \"mooncake-async\", \"inFlight\": \"8\","
                    + " \"value\": \"64k\", \"mix\": \"90-10\"},"
                    + " \"primaryMetric\": {\"score\": 1200.0, \"scoreError\": 60.0},"
                    + " \"secondaryMetrics\": {\"errors\": {\"score\": 0, \"rawData\": [[1, 3]]}}}"));
    assertEquals(
        new Record(
            "async",
            "mooncake-async",
            "64k",
            "90-10",
            8,
            1200,
            60,
            "ops/s",
            null,
            null,
            null,
            2.0,
            null),
        async);

    Record vthreads =
        AsyncReport.record(
            json.readTree(
                "{\"benchmark\": \"dev.mooncake.jcache.bench.VirtualThreadBenchmark.window\","
                    + " \"params\": {\"threads\": \"virtual-pinned\"},"
                    + " \"primaryMetric\": {\"score\": 99.0, \"scoreError\": 1.0},"
                    + " \"secondaryMetrics\": {\"operations\": {\"score\": 5000.0,"
                    + " \"scoreError\": 250.0}}}"));
    assertEquals("virtual-pinned", vthreads.peer());
    assertEquals(1000, vthreads.threads());
    assertEquals(5000, vthreads.score());
    assertEquals(250, vthreads.error());
  }

  @Test
  void theTargetsAreJudgedPerWindowAndSizeAgainstTheOneSyncBaseline() {
    List<Record> records = new ArrayList<>();
    for (String value : List.of("1k", "64k")) {
      for (String mix : List.of("get", "90-10")) {
        records.add(rec(AsyncBenchmark.SYNC, value, mix, 1, 1000, 10));
        records.add(rec(AsyncBenchmark.ASYNC, value, mix, 1, 900, 10));
        records.add(rec(AsyncBenchmark.REDISSON, value, mix, 1, 800, 10));
        records.add(rec(AsyncBenchmark.ASYNC, value, mix, 8, 3500, 10));
        records.add(rec(AsyncBenchmark.REDISSON, value, mix, 8, 3000, 10));
        records.add(rec(AsyncBenchmark.ASYNC, value, mix, 64, 4000, 10));
        // Redisson ahead at 64 KiB 90/10, N = 64 only
        records.add(
            rec(
                AsyncBenchmark.REDISSON,
                value,
                mix,
                64,
                value.equals("64k") && !mix.equals("get") ? 5000 : 3000,
                10));
      }
    }
    records.add(vrec(VirtualThreadBenchmark.VIRTUAL, 9000, 100));
    records.add(vrec(VirtualThreadBenchmark.PINNED, 3000, 100));
    records.add(vrec(VirtualThreadBenchmark.PLATFORM, 10000, 100));

    String md = AsyncReport.render(records, Set.of("test"), 10);

    assertTrue(
        md.contains(
            "| async ahead of Redisson's async at every N and size | **not met** (1 of 12 below"
                + " 1.00×; 12 of 12 decided): 64 KiB 90/10 get/put N=64 0.80× |"),
        md);
    assertTrue(
        md.contains(
            "| async at N = 8 ≥ 3× the one-thread synchronous throughput | **met** (0 of 4 below"
                + " 3.00×; 4 of 4 decided) |"),
        md);
    assertTrue(
        md.contains("| 1,000 virtual threads (hand-off) ≥ 3× the pinned ones | **met**: 3.00×"),
        md);
    // a row: the sync baseline beside every N, both ratios with error and range
    assertTrue(
        md.contains(
            "| 1 KiB | get | 8 | 3.50k ±0% | 3.00k ±0% | 1.00k ±1% | 3.50× ±1% (3.46×-3.55×) |"
                + " 1.17× ±0% (1.16×-1.17×) |"),
        md);
    assertTrue(
        md.contains(
            "| 9.00k ±1% | — | 3.00k ±3% | 10.0k ±1% | — | 3.00× ±4% (2.87×-3.14×) | 0.90×"),
        md);
    assertTrue(md.contains("Every figure's 99.9 % error is within ±10 %."), md);
  }

  @Test
  void aWideFigureSaysWhyAndARatioItTouchesDecidesOnlyByItsRange() {
    List<Record> records =
        List.of(
            rec(AsyncBenchmark.SYNC, "1k", "get", 1, 1000, 400),
            rec(AsyncBenchmark.ASYNC, "1k", "get", 8, 2900, 100));

    String md = AsyncReport.render(records, Set.of("test"), 10);

    // 2900 ÷ 1000 = 2.9× misses 3×, but the range 2800/1400 … 3000/600 reaches above it
    assertTrue(
        md.contains(
            "**not met** (1 of 1 below 3.00×; 0 of 1 decided): 1 KiB get N=8 2.90× (not decided)"),
        md);
    assertTrue(md.contains("mooncake-sync 1 KiB get N=1 ±40% (samples spread"), md);
  }

  private static Record rec(String peer, String value, String mix, int n, double score, double e) {
    return new Record(
        "async", peer, value, mix, n, score, e, "ops/s", null, null, null, null, null);
  }

  private static Record vrec(String threads, double score, double e) {
    return new Record(
        "vthreads", threads, "1k", "90-10", 1000, score, e, "ops/s", null, null, null, null, null);
  }
}
