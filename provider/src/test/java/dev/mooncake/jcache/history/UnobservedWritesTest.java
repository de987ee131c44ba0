package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The checker's second try on an undecided key: writes of unknown outcome that no operation
 * observed are left out, and only a LINEARIZABLE answer without them is taken (a linearization
 * without them is one of the whole history); anything else keeps the first verdict.
 */
class UnobservedWritesTest {
  private static final KeyResult UNDECIDED =
      new KeyResult("k", Verdict.UNDECIDED, 0, "the first search ran out of budget");

  private static KeyResult secondTry(List<Operation> ops) {
    return LinearizabilityChecker.withoutUnobservedWrites(
        "k", ops, value -> null, Duration.ofSeconds(10), UNDECIDED);
  }

  @Test
  void leavingOutUnobservedUnknownWritesDecidesAKey() {
    KeyResult result =
        secondTry(
            List.of(
                Operation.unknown("p1", "k", OpKind.PUT, "a", null, 0),
                Operation.of("p2", "k", OpKind.GET, null, 10, 20, "null"),
                Operation.unknown("p1", "k", OpKind.INVOKE, "b", null, 30),
                Operation.of("p2", "k", OpKind.PUT, "c", 40, 50, "ok"),
                Operation.of("p2", "k", OpKind.GET, null, 60, 70, "c")));
    assertEquals(Verdict.LINEARIZABLE, result.verdict(), result.explanation());
    assertTrue(result.explanation().contains("without the 2 writes"), result.explanation());
  }

  /** A present key that only the left-out write explains: no verdict is invented. */
  @Test
  void aWriteThatOnlyMadeTheKeyPresentLeavesTheKeyUndecided() {
    KeyResult result =
        secondTry(
            List.of(
                Operation.unknown("p1", "k", OpKind.PUT, "a", null, 0),
                Operation.of("p2", "k", OpKind.CONTAINS_KEY, null, 10, 20, "true")));
    assertSame(UNDECIDED, result);
  }

  /** A write whose value a read returned is observed: it stays, and so does the verdict. */
  @Test
  void anObservedWriteIsKept() {
    KeyResult result =
        secondTry(
            List.of(
                Operation.unknown("p1", "k", OpKind.PUT, "a", null, 0),
                Operation.of("p2", "k", OpKind.GET, null, 10, 20, "a")));
    assertSame(UNDECIDED, result, "nothing was left out, so nothing was decided again");
  }
}
