package dev.mooncake.jcache.history;

import static dev.mooncake.jcache.history.OpKind.CONTAINS_KEY;
import static dev.mooncake.jcache.history.OpKind.GET;
import static dev.mooncake.jcache.history.OpKind.GET_AND_PUT;
import static dev.mooncake.jcache.history.OpKind.GET_AND_REMOVE;
import static dev.mooncake.jcache.history.OpKind.GET_AND_REPLACE;
import static dev.mooncake.jcache.history.OpKind.INVOKE;
import static dev.mooncake.jcache.history.OpKind.PUT;
import static dev.mooncake.jcache.history.OpKind.PUT_IF_ABSENT;
import static dev.mooncake.jcache.history.OpKind.REMOVE;
import static dev.mooncake.jcache.history.OpKind.REMOVE_BLIND;
import static dev.mooncake.jcache.history.OpKind.REMOVE_IF_EQUALS;
import static dev.mooncake.jcache.history.OpKind.REPLACE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Hand-made histories on key "k", linearizable and not, for every kind of operation, losses and
 * unknown outcomes. Times are plain numbers (nanoseconds); values a and b live in segment s1, c in
 * s2.
 */
class LinearizabilityCheckerTest {
  private static String segmentOf(String value) {
    return value.equals("c") ? "s2" : "s1";
  }

  private static Operation op(
      String process, OpKind kind, String arg, long invoked, long completed, String result) {
    return Operation.of(process, "k", kind, arg, invoked, completed, result);
  }

  /** One client's operations, one after the other, each taking 10 time units. */
  private static List<Operation> sequential(Object... kindArgResult) {
    List<Operation> ops = new ArrayList<>();
    for (int i = 0; i < kindArgResult.length; i += 3) {
      long t = 20L * (i / 3);
      ops.add(
          op(
              "p1",
              (OpKind) kindArgResult[i],
              (String) kindArgResult[i + 1],
              t,
              t + 10,
              (String) kindArgResult[i + 2]));
    }
    return ops;
  }

  private static KeyResult checkOneKey(List<Operation> history) {
    Report report =
        LinearizabilityChecker.check(
            history, LinearizabilityCheckerTest::segmentOf, Duration.ofSeconds(10));
    assertEquals(1, report.keys().size());
    return report.keys().get(0);
  }

  private static void assertLinearizable(List<Operation> history) {
    KeyResult result = checkOneKey(history);
    assertEquals(Verdict.LINEARIZABLE, result.verdict(), result::explanation);
  }

  private static KeyResult assertNotLinearizable(List<Operation> history) {
    KeyResult result = checkOneKey(history);
    assertEquals(Verdict.NOT_LINEARIZABLE, result.verdict(), result::explanation);
    return result;
  }

  @Nested
  class EveryKind {
    @Test
    void get() {
      assertLinearizable(sequential(GET, null, "null", PUT, "a", "ok", GET, null, "a"));
      assertNotLinearizable(sequential(GET, null, "b")); // never written
      assertNotLinearizable(sequential(PUT, "a", "ok", GET, null, "null"));
    }

    @Test
    void containsKey() {
      assertLinearizable(
          sequential(CONTAINS_KEY, null, "false", PUT, "a", "ok", CONTAINS_KEY, null, "true"));
      assertNotLinearizable(sequential(CONTAINS_KEY, null, "true"));
      assertNotLinearizable(sequential(PUT, "a", "ok", CONTAINS_KEY, null, "false"));
    }

    @Test
    void put() {
      assertLinearizable(sequential(PUT, "a", "ok", PUT, "b", "ok", GET, null, "b"));
      assertNotLinearizable(sequential(PUT, "a", "ok", PUT, "b", "ok", GET, null, "a"));
    }

    @Test
    void putIfAbsent() {
      assertLinearizable(
          sequential(PUT_IF_ABSENT, "a", "true", PUT_IF_ABSENT, "b", "false", GET, null, "a"));
      assertNotLinearizable(sequential(PUT_IF_ABSENT, "a", "false"));
      assertNotLinearizable(sequential(PUT_IF_ABSENT, "a", "true", PUT_IF_ABSENT, "b", "true"));
      // A failed putIfAbsent writes nothing.
      assertNotLinearizable(
          sequential(PUT, "a", "ok", PUT_IF_ABSENT, "b", "false", GET, null, "b"));
    }

    @Test
    void replace() {
      assertLinearizable(
          sequential(
              REPLACE, "a", "false", GET, null, "null", PUT, "a", "ok", REPLACE, "b", "true", GET,
              null, "b"));
      assertNotLinearizable(sequential(REPLACE, "a", "true"));
      assertNotLinearizable(sequential(REPLACE, "a", "false", GET, null, "a"));
      assertNotLinearizable(sequential(PUT, "a", "ok", REPLACE, "b", "false"));
    }

    @Test
    void replaceIfEquals() {
      List<Operation> ok = new ArrayList<>(sequential(PUT, "a", "ok"));
      ok.add(Operation.replaceIfEquals("p1", "k", "b", "c", 20, 30, "false"));
      ok.add(Operation.replaceIfEquals("p1", "k", "a", "c", 40, 50, "true"));
      ok.add(op("p1", GET, null, 60, 70, "c"));
      assertLinearizable(ok);

      List<Operation> wrongSuccess = new ArrayList<>(sequential(PUT, "a", "ok"));
      wrongSuccess.add(Operation.replaceIfEquals("p1", "k", "b", "c", 20, 30, "true"));
      assertNotLinearizable(wrongSuccess);

      List<Operation> wrongFailure = new ArrayList<>(sequential(PUT, "a", "ok"));
      wrongFailure.add(Operation.replaceIfEquals("p1", "k", "a", "c", 20, 30, "false"));
      assertNotLinearizable(wrongFailure);
    }

    @Test
    void remove() {
      assertLinearizable(
          sequential(
              REMOVE, null, "false", PUT, "a", "ok", REMOVE, null, "true", GET, null, "null"));
      assertNotLinearizable(sequential(REMOVE, null, "true"));
      assertNotLinearizable(sequential(PUT, "a", "ok", REMOVE, null, "true", GET, null, "a"));
    }

    /** removeAll's part for one key: absent after it, whatever was there (or nothing). */
    @Test
    void removeBlind() {
      assertLinearizable(
          sequential(
              REMOVE_BLIND,
              null,
              "ok",
              PUT,
              "a",
              "ok",
              REMOVE_BLIND,
              null,
              "ok",
              GET,
              null,
              "null"));
      assertNotLinearizable(sequential(PUT, "a", "ok", REMOVE_BLIND, null, "ok", GET, null, "a"));
      assertNotLinearizable(
          sequential(PUT, "a", "ok", REMOVE_BLIND, null, "ok", CONTAINS_KEY, null, "true"));
    }

    @Test
    void removeIfEquals() {
      assertLinearizable(
          sequential(
              PUT,
              "a",
              "ok",
              REMOVE_IF_EQUALS,
              "b",
              "false",
              GET,
              null,
              "a",
              REMOVE_IF_EQUALS,
              "a",
              "true",
              CONTAINS_KEY,
              null,
              "false"));
      assertNotLinearizable(sequential(PUT, "a", "ok", REMOVE_IF_EQUALS, "b", "true"));
      assertNotLinearizable(sequential(REMOVE_IF_EQUALS, "a", "true"));
    }

    @Test
    void getAndPut() {
      assertLinearizable(
          sequential(GET_AND_PUT, "a", "null", GET_AND_PUT, "b", "a", GET, null, "b"));
      assertNotLinearizable(sequential(GET_AND_PUT, "a", "null", GET_AND_PUT, "b", "null"));
    }

    @Test
    void getAndRemove() {
      assertLinearizable(
          sequential(
              GET_AND_REMOVE,
              null,
              "null",
              PUT,
              "a",
              "ok",
              GET_AND_REMOVE,
              null,
              "a",
              GET,
              null,
              "null"));
      assertNotLinearizable(
          sequential(PUT, "a", "ok", GET_AND_REMOVE, null, "a", GET_AND_REMOVE, null, "a"));
    }

    @Test
    void getAndReplace() {
      assertLinearizable(
          sequential(
              GET_AND_REPLACE,
              "a",
              "null",
              GET,
              null,
              "null",
              PUT,
              "a",
              "ok",
              GET_AND_REPLACE,
              "b",
              "a",
              GET,
              null,
              "b"));
      // Replaces only if present.
      assertNotLinearizable(sequential(GET_AND_REPLACE, "a", "null", GET, null, "a"));
    }

    @Test
    void invoke() {
      assertLinearizable(
          sequential(
              INVOKE,
              "a",
              "null",
              INVOKE,
              "b",
              "a",
              GET,
              null,
              "b",
              INVOKE,
              null,
              "b",
              CONTAINS_KEY,
              null,
              "false"));
      assertNotLinearizable(sequential(PUT, "a", "ok", INVOKE, "b", "null"));
      assertNotLinearizable(sequential(PUT, "a", "ok", INVOKE, null, "a", GET, null, "a"));
    }
  }

  @Nested
  class RealTimeOrder {
    @Test
    void staleReadAfterACompletedWriteIsAViolation() {
      assertNotLinearizable(
          List.of(
              op("p1", PUT, "a", 0, 10, "ok"),
              op("p1", PUT, "b", 20, 30, "ok"),
              op("p2", GET, null, 40, 50, "a")));
    }

    @Test
    void aReadConcurrentWithTheWriteMaySeeEitherValue() {
      for (String seen : List.of("a", "b")) {
        assertLinearizable(
            List.of(
                op("p1", PUT, "a", 0, 10, "ok"),
                op("p1", PUT, "b", 20, 30, "ok"),
                op("p2", GET, null, 25, 50, seen)));
      }
    }

    @Test
    void twoSuccessfulPutIfAbsentOnAnAbsentKeyAreAViolation() {
      assertNotLinearizable(
          List.of(
              op("p1", PUT_IF_ABSENT, "a", 0, 10, "true"),
              op("p2", PUT_IF_ABSENT, "b", 5, 15, "true")));
    }

    @Test
    void concurrentWritesLinearizableInOneOrderOnly() {
      // p3 sees a during both writes, then b: a must go before b.
      List<Operation> history =
          new ArrayList<>(
              List.of(
                  op("p1", PUT, "a", 0, 100, "ok"),
                  op("p2", PUT, "b", 0, 100, "ok"),
                  op("p3", GET, null, 10, 20, "a"),
                  op("p3", GET, null, 110, 120, "b")));
      assertLinearizable(history);
      // p4 needs the other order.
      history.add(op("p4", GET, null, 10, 20, "b"));
      history.add(op("p4", GET, null, 110, 120, "a"));
      assertNotLinearizable(history);
    }

    @Test
    void operationsThatTouchAreConcurrent() {
      // The get is invoked at the very instant the put returns: either order.
      assertLinearizable(
          List.of(op("p1", GET, null, 10, 20, "a"), op("p2", PUT, "a", 0, 10, "ok")));
      assertNotLinearizable(
          List.of(op("p1", GET, null, 11, 20, "a"), op("p2", PUT, "b", 0, 10, "ok")));
    }
  }

  @Nested
  class Losses {
    @Test
    void aLostSegmentExplainsAnAbsentRead() {
      assertLinearizable(
          List.of(
              op("p1", PUT, "a", 0, 10, "ok"),
              Operation.loseSegment("s1", 20, 40),
              op("p2", GET, null, 50, 60, "null")));
      // Inside the window, before or after the loss.
      for (String seen : List.of("a", "null")) {
        assertLinearizable(
            List.of(
                op("p1", PUT, "a", 0, 10, "ok"),
                Operation.loseSegment("s1", 20, 40),
                op("p2", GET, null, 25, 30, seen)));
      }
    }

    @Test
    void theSameAbsentReadOutsideTheLossWindowIsAViolation() {
      KeyResult result =
          assertNotLinearizable(
              List.of(
                  op("p1", PUT, "a", 0, 10, "ok"),
                  op("p2", GET, null, 15, 18, "null"),
                  Operation.loseSegment("s1", 20, 40)));
      assertTrue(
          result.explanation().contains("p2 [+0.000 ms, +0.000 ms] GET -> null"),
          result.explanation());
    }

    @Test
    void aStaleValueAfterTheLossIsAViolation() {
      assertNotLinearizable(
          List.of(
              op("p1", PUT, "a", 0, 10, "ok"),
              Operation.loseSegment("s1", 20, 40),
              op("p2", GET, null, 50, 60, "a")));
    }

    @Test
    void aLostSegmentKeepsValuesOfOtherSegments() {
      assertNotLinearizable(
          List.of(
              op("p1", PUT, "c", 0, 10, "ok"),
              Operation.loseSegment("s1", 20, 40),
              op("p2", GET, null, 50, 60, "null")));
      // The value's segment counts, not the writer: a (s1) replaced c (s2) before the loss.
      assertLinearizable(
          List.of(
              op("p1", PUT, "c", 0, 10, "ok"),
              op("p1", PUT, "a", 12, 18, "ok"),
              Operation.loseSegment("s1", 20, 40),
              op("p2", GET, null, 50, 60, "null")));
    }

    @Test
    void segmentsAreAskedOnlyOfStoredValues() {
      Function<String, String> strict =
          value -> {
            if (!value.equals("a")) {
              throw new IllegalArgumentException("not a stored value: " + value);
            }
            return "s1";
          };
      List<Operation> history =
          List.of(
              op("p1", PUT, "a", 0, 10, "ok"),
              Operation.loseSegment("s1", 20, 40),
              op("p2", GET, null, 50, 60, "garbage"));
      Report report = LinearizabilityChecker.check(history, strict, Duration.ofSeconds(10));
      assertEquals(Verdict.NOT_LINEARIZABLE, report.keys().get(0).verdict());
    }

    @Test
    void losingEverythingAllowsTwoSuccessfulPutIfAbsent() {
      List<Operation> history =
          new ArrayList<>(
              List.of(
                  op("p1", PUT_IF_ABSENT, "c", 0, 10, "true"),
                  op("p2", PUT_IF_ABSENT, "b", 50, 60, "true")));
      assertNotLinearizable(history);
      history.add(Operation.loseAll(20, 40));
      assertLinearizable(history);
    }

    @Test
    void aLossHappensExactlyOnce() {
      // Two absent reads, each after its own write, would need two losses.
      assertNotLinearizable(
          List.of(
              op("p1", PUT, "a", 0, 5, "ok"),
              Operation.loseSegment("s1", 10, 100),
              op("p2", GET, null, 20, 30, "null"),
              op("p1", PUT, "b", 40, 50, "ok"),
              op("p2", GET, null, 110, 120, "null")));
      // The same reads with the second one inside the window of a second loss.
      assertLinearizable(
          List.of(
              op("p1", PUT, "a", 0, 5, "ok"),
              Operation.loseSegment("s1", 10, 100),
              op("p2", GET, null, 20, 30, "null"),
              op("p1", PUT, "b", 40, 50, "ok"),
              Operation.loseAll(60, 70),
              op("p2", GET, null, 110, 120, "null")));
    }
  }

  @Nested
  class UnknownOutcomes {
    @Test
    void anUnknownWriteMayTakeEffectLate() {
      assertLinearizable(
          List.of(
              Operation.unknown("p1", "k", PUT, "a", null, 0),
              op("p2", GET, null, 10, 20, "null"),
              op("p2", GET, null, 30, 40, "a")));
    }

    @Test
    void anUnknownWriteMayNeverTakeEffect() {
      assertLinearizable(
          List.of(
              Operation.unknown("p1", "k", PUT, "a", null, 0),
              op("p2", GET, null, 10, 20, "null"),
              op("p2", PUT, "b", 30, 40, "ok"),
              op("p2", GET, null, 50, 60, "b")));
      // Its result does not matter either: a putIfAbsent that may or may not have won.
      assertLinearizable(
          List.of(
              op("p2", PUT, "b", 0, 10, "ok"),
              Operation.unknown("p1", "k", PUT_IF_ABSENT, "a", null, 20),
              op("p2", GET, null, 30, 40, "b")));
    }

    @Test
    void anUnknownWriteCannotTakeEffectBeforeItsInvocation() {
      assertNotLinearizable(
          List.of(
              op("p2", GET, null, 0, 10, "a"), Operation.unknown("p1", "k", PUT, "a", null, 20)));
    }

    @Test
    void anUnknownWriteTakesEffectAtMostOnce() {
      assertNotLinearizable(
          List.of(
              Operation.unknown("p1", "k", PUT, "a", null, 0),
              op("p2", GET, null, 10, 20, "a"),
              op("p2", REMOVE, null, 30, 40, "true"),
              op("p2", GET, null, 50, 60, "a")));
    }

    @Test
    void aResultlessOperationIsUnknownWhateverItsCompletionTime() {
      // Threw at 10 but applied at 25.
      assertLinearizable(
          List.of(
              new Operation("p1", "k", PUT, "a", null, 0, 10, null),
              op("p2", GET, null, 15, 20, "null"),
              op("p2", GET, null, 30, 40, "a")));
    }

    @Test
    void unknownReadsAreLeftOut() {
      KeyResult result =
          checkOneKey(
              List.of(
                  op("p1", PUT, "a", 0, 10, "ok"),
                  Operation.unknown("p2", "k", GET, null, null, 20),
                  Operation.unknown("p2", "k", CONTAINS_KEY, null, null, 30)));
      assertEquals(Verdict.LINEARIZABLE, result.verdict());
      assertEquals(1, result.operations());
    }
  }

  @Test
  void keysAreCheckedApartAndLossesApplyToEach() {
    List<Operation> history =
        List.of(
            Operation.of("p1", "x", PUT, "a", 0, 10, "ok"),
            Operation.of("p1", "y", PUT, "c", 0, 10, "ok"),
            Operation.loseSegment("s1", 20, 30),
            Operation.of("p2", "x", GET, null, 40, 50, "null"),
            Operation.of("p2", "y", GET, null, 40, 50, "null"),
            Operation.of("p2", "z", GET, null, 40, 50, "null"));
    Report report =
        LinearizabilityChecker.check(
            history, LinearizabilityCheckerTest::segmentOf, Duration.ofSeconds(10));
    assertEquals(List.of("x", "y", "z"), report.keys().stream().map(KeyResult::key).toList());
    assertEquals(List.of("y"), report.notLinearizable().stream().map(KeyResult::key).toList());
    assertFalse(report.allLinearizable());
    assertEquals(3, report.keys().get(0).operations()); // put, loss, get
    assertEquals(1, report.keys().get(2).operations()); // the loss ended before z's first call
    assertTrue(
        report.summary().startsWith("3 keys: 2 linearizable, 1 not linearizable, 0 undecided"),
        report.summary());
    assertTrue(report.summary().contains("key y: NOT_LINEARIZABLE"), report.summary());
  }

  @Test
  void theExplanationShowsThePrefixAndTheOperationsThatCannotFollow() {
    KeyResult result =
        assertNotLinearizable(
            List.of(
                op("p1", PUT, "a", 1_000_000, 2_000_000, "ok"),
                op("p1", PUT, "b", 3_000_000, 4_000_000, "ok"),
                op("p2", GET, null, 5_000_000, 6_500_000, "a"),
                op("p3", GET, null, 5_500_000, 7_000_000, "b")));
    String text = result.explanation();
    assertTrue(text.contains("longest linearizable prefix: 3 of 4 operations"), text);
    assertTrue(text.contains("\n  p1 [+2.000 ms, +3.000 ms] PUT(b) -> ok\n"), text);
    assertTrue(text.contains("\n  p3 [+4.500 ms, +6.000 ms] GET -> b\n"), text);
    assertTrue(text.contains("entry after it: b (segment s1)"), text);
    assertTrue(
        text.contains(
            "p2 [+4.000 ms, +5.500 ms] GET -> a  <- would have returned b [returns first]"),
        text);
  }

  @Test
  void theExplanationPrefersKnownOperations() {
    // Placing the unknown put(c) gets one operation further, but explains nothing.
    String text =
        assertNotLinearizable(
                List.of(
                    op("p1", PUT, "a", 1_000_000, 2_000_000, "ok"),
                    Operation.unknown("p3", "k", PUT, "c", null, 1_500_000),
                    op("p2", GET, null, 2_500_000, 2_800_000, "null")))
            .explanation();
    assertTrue(text.contains("longest linearizable prefix: 1 of 3 operations"), text);
    assertTrue(text.contains("entry after it: a (segment s1)"), text);
    assertTrue(text.contains("GET -> null  <- would have returned a [returns first]"), text);
    assertTrue(text.contains("p3 [+0.500 ms, ?] PUT(c) -> ?  <- possible, but the rest"), text);
  }

  @Test
  void invalidOperationsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> op("p1", PUT, "a", 10, 5, "ok"));
    assertThrows(
        IllegalArgumentException.class, () -> Operation.of("p1", null, GET, null, 0, 1, "a"));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Operation("n", "k", OpKind.LOSE_ALL, null, null, 0, 1, "ok"));
    assertThrows(IllegalArgumentException.class, () -> checkOneKey(sequential(PUT, null, "ok")));
    assertThrows(IllegalArgumentException.class, () -> checkOneKey(sequential(PUT, "null", "ok")));
  }
}
