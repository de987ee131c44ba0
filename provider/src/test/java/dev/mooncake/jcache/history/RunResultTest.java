package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A run's verdict on calls that threw: none allowed without faults, a stated share with them. */
class RunResultTest {
  private static HistoryRun.Plan plan(HistoryRun.Fault fault) {
    return new HistoryRun.Plan(
        "test", "cluster", fault, false, 3, 2, 5, 100, 256, 1, Duration.ofSeconds(1));
  }

  /** 100 calls: {@code failures} of them threw (unknown outcomes), the rest completed. */
  private static RunResult result(HistoryRun.Fault fault, List<String> failures) {
    List<Operation> history = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      history.add(
          i < failures.size()
              ? Operation.unknown("p0/0", "k0", OpKind.GET, null, null, i)
              : Operation.of("p0/0", "k0", OpKind.GET, null, i, i, Operation.ABSENT));
    }
    return new RunResult(
        plan(fault),
        history,
        failures,
        List.of(),
        List.of(),
        0,
        new Report(List.of()),
        List.of(),
        0,
        0,
        0);
  }

  @Test
  void oneCallThatThrowsFailsARunWithoutFaults() {
    RunResult result =
        result(HistoryRun.Fault.NONE, List.of("p0/0 invoke k0: javax.cache.CacheException: boom"));
    List<String> problems = result.problems(0.8);
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("1 of 100 calls"), problems.get(0));
    assertTrue(problems.get(0).contains("{error=1}"), problems.get(0));
  }

  @Test
  void anIntegrityRefusalFailsARunWithoutFaultsAndIsNamed() {
    RunResult result =
        result(
            HistoryRun.Fault.NONE,
            List.of(
                "p0/0 get k0: javax.cache.CacheException: stored object 'k0' belongs to another"
                    + " key, cache or tenant (its owner hash differs)"));
    assertEquals(Map.of(RunResult.INTEGRITY_REFUSAL, 1L), result.unknownReasons());
    assertEquals(2, result.problems(0.8).size(), result.problems(0.8).toString());
  }

  @Test
  void anotherCachesObjectRefusedByItsTypeCountsForTheChecksOffControl() {
    RunResult refused =
        result(
            HistoryRun.Fault.NONE,
            List.of(
                "p1/1 get k0: javax.cache.CacheException: stored object 'mcj/x/aGlzdG9yeQ/k0'"
                    + " holds a byte[], not a value of cache 'history' (written by another cache)",
                "p0/0 invoke k1: javax.cache.CacheException: boom",
                "p2/0 get z0: javax.cache.CacheException: get on cache 'history-bytes': the value"
                    + " of 'mcj/x/eg/z0' is not a byte[] (format 1)"));
    assertEquals(2, refused.refusedAsAnotherCaches().size());
    assertTrue(refused.refusedAsAnotherCaches().get(0).startsWith("p1/1 get k0"));
    assertEquals(
        List.of(),
        result(HistoryRun.Fault.NONE, List.of("p0/0 get k0: java.lang.IllegalStateException: x"))
            .refusedAsAnotherCaches());
  }

  @Test
  void aFaultRunMayHaveItsStatedShareOfUnknownOutcomesAndNoMore() {
    String timeOut =
        "p0/0 put k0: dev.mooncake.jcache.internal.calls.CallTimeoutException: timed out";
    assertEquals(
        List.of(),
        result(HistoryRun.Fault.KILL, List.of(timeOut, timeOut, timeOut, timeOut, timeOut))
            .problems(0.8));
    RunResult over =
        result(
            HistoryRun.Fault.KILL, List.of(timeOut, timeOut, timeOut, timeOut, timeOut, timeOut));
    assertEquals(Map.of(RunResult.TIME_OUT, 6L), over.unknownReasons());
    assertEquals(1, over.problems(0.8).size(), over.problems(0.8).toString());
  }

  /** A pool restart may leave 40 % unknown: its known floor follows (60 %, not the usual 80 %). */
  @Test
  void aPoolRestartMayLeaveFortyPercentUnknownAndNoMore() {
    String error = "p0/0 put k0: javax.cache.CacheException: -800 TRANSFER_FAIL";
    assertEquals(
        List.of(),
        result(HistoryRun.Fault.POOL_RESTART, Collections.nCopies(40, error)).problems(0.8));
    List<String> over =
        result(HistoryRun.Fault.POOL_RESTART, Collections.nCopies(41, error)).problems(0.8);
    assertEquals(2, over.size(), over.toString()); // above the share, and below the known floor
  }
}
