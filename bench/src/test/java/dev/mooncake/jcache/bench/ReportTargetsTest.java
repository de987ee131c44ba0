package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Mooncake target lines: per consistency mode, and whether a verdict stands by its range. */
class ReportTargetsTest {

  private static final String BY_VALUE_LINE = "| Mooncake byte[] API ≥ 0.95× the by-value C driver";

  @Test
  void aMissWhoseWholeRangeIsBelowTheTargetIsDecidedDespiteWideErrorBars() {
    // 50 ±20 (±40 %) ÷ 100 ±10: the range 30/110 … 70/90 = 0.27× … 0.78× stays below 0.95×
    String line =
        byValueLine(
            List.of(
                rec("readHeavy", Report.OURS_ON_MOONCAKE, 50, 20),
                rec("readHeavy", Report.C_ABI_BY_VALUE, 100, 10)));

    assertTrue(line.contains("consistency cluster (the default): **not met**"), line);
    assertTrue(line.contains("1 KiB 0.50×, all decided"), line);
  }

  @Test
  void aMissWhoseRangeReachesTheTargetIsNotDecided() {
    // 90 ±30 ÷ 100 ±10: the range reaches 120/90 = 1.33×, so 0.90× decides nothing
    String line =
        byValueLine(
            List.of(
                rec("readHeavy", Report.OURS_ON_MOONCAKE, 90, 30),
                rec("writeHeavy", Report.OURS_ON_MOONCAKE, 50, 1),
                rec("readHeavy", Report.C_ABI_BY_VALUE, 100, 10),
                rec("writeHeavy", Report.C_ABI_BY_VALUE, 100, 1)));

    assertTrue(line.contains("1 KiB 0.50×-0.90× over 2 workloads, 1 of 2 decided"), line);
  }

  @Test
  void theLocalModeIsJudgedOnItsOwnFigures() {
    String line =
        byValueLine(
            List.of(
                rec("readHeavy", Report.OURS_ON_MOONCAKE, 50, 1),
                rec("readHeavy", Report.OURS_ON_MOONCAKE_LOCAL, 99, 1),
                rec("readHeavy", Report.C_ABI_BY_VALUE, 100, 1)));

    assertTrue(line.contains("consistency cluster (the default): **not met** (1 KiB 0.50×"), line);
    assertTrue(
        line.contains("consistency local (no cross-JVM locks, as the driver): **met**"), line);
    assertTrue(line.contains("1 KiB 0.99×, all decided"), line);
  }

  @Test
  void theZeroCopyLineAndTableSetTheLocalCacheBesideTheDriver() {
    List<Record> records =
        List.of(
            rec("zeroCopyPut", Report.OURS_ON_MOONCAKE, 30, 1),
            rec("zeroCopyPut", Report.OURS_ON_MOONCAKE_LOCAL, 96, 1),
            rec("zeroCopyPut", Report.C_ABI, 100, 1));
    String line = line(records, "| Mooncake zero-copy API ≥ 0.95× the plain C driver");
    assertTrue(
        line.contains("consistency cluster (the default): **not met** (zero-copy put 1 KiB 0.30×)"),
        line);
    assertTrue(
        line.contains(
            "consistency local (no cross-JVM locks, as the driver): **met** (zero-copy put 1 KiB"
                + " 0.96×)"),
        line);

    Results mooncake =
        Results.ofRun(Plan.of("mooncake", "full"), Map.of("Command", "test"), records);
    String table = Report.mooncakeBlock(mooncake, null);
    assertTrue(table.contains("| c-abi | ÷ c-abi | mooncake-store-local | ÷ c-abi |"), table);
    assertTrue(table.contains("| zero-copy put | 1 KiB | 30.0 ±3% |"), table);
    assertTrue(table.contains("| 100 ±1% | 0.30× | 96.0 ±1% | 0.96× |"), table);
  }

  @Test
  void anInProcessMissSaysHowManyOfItsWorkloadsAreDecided() {
    // 90 ±5 ÷ 100 ±30 reaches 1.00× (decides nothing); 50 ±1 ÷ 100 ±1 is a decided miss
    List<Record> records =
        List.of(
            inProcess("readHeavy", Report.OURS, "1k", 90, 5),
            inProcess("readHeavy", "ehcache-offheap", "1k", 100, 30),
            inProcess("writeHeavy", Report.OURS, "1k", 50, 1),
            inProcess("writeHeavy", "ehcache-offheap", "1k", 100, 1));
    Results in = Results.ofRun(Plan.of("in-process", "full"), Map.of("Command", "test"), records);
    String block = Report.targetsBlock(in, null);
    String line =
        block
            .lines()
            .filter(l -> l.startsWith("| in-process ≥ Ehcache off-heap"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(block));
    assertTrue(line.contains("below 1.00× on 2 of 2 workloads measured (1 of 2 decided)"), line);
  }

  private static Record inProcess(
      String benchmark, String peer, String value, double score, double error) {
    return new Record(
        benchmark, peer, value, "uniform", 1, score, error, "ops/s", null, 0.0, null, 0.0, null);
  }

  private static String byValueLine(List<Record> records) {
    return line(records, BY_VALUE_LINE);
  }

  private static String line(List<Record> records, String start) {
    Results mooncake =
        Results.ofRun(Plan.of("mooncake", "full"), Map.of("Command", "test"), records);
    String block = Report.targetsBlock(null, mooncake);
    return block
        .lines()
        .filter(l -> l.startsWith(start))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line " + start + " in\n" + block));
  }

  private static Record rec(String benchmark, String peer, double score, double error) {
    Double copied = ZeroCopyBenchmark.BENCHMARKS.contains(benchmark) ? 0.0 : null;
    return new Record(
        benchmark, peer, "1k", "uniform", 1, score, error, "ops/s", null, 0.0, copied, 0.0, null);
  }
}
