package dev.mooncake.jcache.history;

import static dev.mooncake.jcache.history.OpKind.GET;
import static dev.mooncake.jcache.history.OpKind.GET_AND_PUT;
import static dev.mooncake.jcache.history.OpKind.PUT;
import static dev.mooncake.jcache.history.OpKind.PUT_IF_ABSENT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A read-then-write overlapping a loss may read before the loss and write after it ({@link
 * LossStraddle}): the runs' check takes it as its write. Outside the loss's window the check is
 * whole, and the exact checker still refuses the straddle.
 */
class LossStraddleTest {
  private static Operation op(
      String process, OpKind kind, String arg, long invoked, long completed, String result) {
    return Operation.of(process, "k", kind, arg, invoked, completed, result);
  }

  private static Verdict relaxedVerdict(List<Operation> history) {
    return verdict(LossStraddle.relaxed(history));
  }

  private static Verdict verdict(List<Operation> history) {
    Report report = LinearizabilityChecker.check(history, value -> "s1", Duration.ofSeconds(10));
    return report.keys().get(0).verdict();
  }

  /** The pool-restart run over the fake: getAndPut returned the pool's value, its put survived. */
  private static final List<Operation> STRADDLE =
      List.of(
          op("p1", PUT, "a", 0, 10, "ok"),
          Operation.loseAll(20, 30),
          op("p2", GET_AND_PUT, "b", 25, 35, "a"),
          op("p1", GET, null, 40, 45, "b"));

  @Test
  void aGetAndPutThatReadBeforeTheLossAndWroteAfterItPasses() {
    assertEquals(Verdict.NOT_LINEARIZABLE, verdict(STRADDLE), "the exact model refuses it");
    assertEquals(Verdict.LINEARIZABLE, relaxedVerdict(STRADDLE));
  }

  @Test
  void theSameAnswerAfterTheLossIsStillCaught() {
    // Started after the loss ended: the old value it returned had come back.
    assertEquals(
        Verdict.NOT_LINEARIZABLE,
        relaxedVerdict(
            List.of(
                op("p1", PUT, "a", 0, 10, "ok"),
                Operation.loseAll(20, 30),
                op("p2", GET_AND_PUT, "b", 31, 35, "a"),
                op("p1", GET, null, 40, 45, "b"))));
  }

  @Test
  void aReadOverlappingTheLossIsCheckedWhole() {
    assertEquals(
        Verdict.NOT_LINEARIZABLE,
        relaxedVerdict(
            List.of(
                op("p1", PUT, "a", 0, 10, "ok"),
                Operation.loseSegment("s1", 20, 30),
                op("p2", GET, null, 25, 35, "a"),
                op("p2", GET, null, 40, 45, "null"),
                op("p1", GET, null, 50, 55, "a"))));
  }

  @Test
  void aConditionalThatWroteNothingIsLeftOutAndOneThatWroteIsItsWrite() {
    List<Operation> history =
        List.of(
            op("p1", PUT, "a", 0, 10, "ok"),
            Operation.loseAll(20, 30),
            op("p2", PUT_IF_ABSENT, "b", 25, 35, "false"),
            Operation.replaceIfEquals("p3", "k", "a", "c", 26, 36, "true"),
            op("p1", GET, null, 40, 45, "c"));
    List<Operation> relaxed = LossStraddle.relaxed(history);
    assertEquals(4, relaxed.size(), "the putIfAbsent that wrote nothing is left out: " + relaxed);
    assertEquals(PUT, relaxed.get(2).kind());
    assertEquals("c", relaxed.get(2).argument());
    assertEquals(Verdict.LINEARIZABLE, relaxedVerdict(history));
  }
}
