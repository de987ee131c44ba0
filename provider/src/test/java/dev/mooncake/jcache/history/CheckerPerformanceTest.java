package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Histories of the size the multi-JVM runs record: ~2,000 operations on one key from 6 clients with
 * overlapping calls, a few unknown outcomes and a segment loss, decided in a few seconds.
 */
class CheckerPerformanceTest {
  private static final int OPERATIONS = 2_000;
  private static final int CLIENTS = 6;
  private static final int UNKNOWNS = 5;
  private static final Duration BUDGET = Duration.ofSeconds(60);
  private static final long FEW_SECONDS = Duration.ofSeconds(10).toNanos();

  /** Values are "v<n>@<segment>", unique per write. */
  private static String segmentOf(String value) {
    return value.substring(value.indexOf('@') + 1);
  }

  private static final OpKind[] KINDS = {
    OpKind.GET,
    OpKind.GET,
    OpKind.GET,
    OpKind.GET,
    OpKind.GET,
    OpKind.PUT,
    OpKind.PUT,
    OpKind.CONTAINS_KEY,
    OpKind.PUT_IF_ABSENT,
    OpKind.REPLACE,
    OpKind.REPLACE_IF_EQUALS,
    OpKind.REMOVE,
    OpKind.REMOVE_IF_EQUALS,
    OpKind.GET_AND_PUT,
    OpKind.GET_AND_REMOVE,
    OpKind.GET_AND_REPLACE,
    OpKind.INVOKE
  };

  @Test
  void aLinearizableHistoryIsDecidedInAFewSeconds() {
    List<Operation> history = history(new Random(7));
    KeyResult result = timedCheck(history);
    assertEquals(Verdict.LINEARIZABLE, result.verdict(), result::explanation);
    assertEquals(OPERATIONS + 1, result.operations());
  }

  @Test
  void aStaleReadDeepInsideIsFoundInAFewSeconds() {
    List<Operation> history = history(new Random(11));
    // A GET three quarters in reads the value of a PUT that a later PUT, completed before the GET
    // began, overwrote: values are unique, so no order explains it.
    Operation staleRead = null;
    for (int g = OPERATIONS * 3 / 4; staleRead == null; g++) {
      Operation get = history.get(g);
      Operation stale = staleValueFor(history, get);
      if (get.kind() == OpKind.GET && !get.outcomeUnknown() && stale != null) {
        staleRead = get.completed(get.completedNanos(), stale.argument());
        history.set(g, staleRead);
      }
    }
    KeyResult result = timedCheck(history);
    assertEquals(Verdict.NOT_LINEARIZABLE, result.verdict(), result::explanation);
    long origin = history.stream().mapToLong(Operation::invokedNanos).min().orElseThrow();
    String line = staleRead.describe(origin) + "  <- would have returned";
    assertTrue(result.explanation().contains(line), result::explanation);
  }

  @Test
  void aKeyOverItsBudgetIsUndecided() {
    KeyResult result =
        LinearizabilityChecker.check(
                history(new Random(7)), CheckerPerformanceTest::segmentOf, Duration.ZERO)
            .keys()
            .get(0);
    assertEquals(Verdict.UNDECIDED, result.verdict(), result::explanation);
  }

  /**
   * Checks on this thread and asserts that it took a few seconds of this thread's CPU time: the
   * machine may be shared, and the check is single-threaded.
   */
  private static KeyResult timedCheck(List<Operation> history) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long started = threads.getCurrentThreadCpuTime();
    KeyResult result =
        LinearizabilityChecker.check(history, CheckerPerformanceTest::segmentOf, BUDGET)
            .keys()
            .get(0);
    long cpu = threads.getCurrentThreadCpuTime() - started;
    System.out.printf(
        "%s in %.0f ms of CPU: %s%n",
        result.verdict(), cpu / 1e6, result.explanation().lines().findFirst().orElse(""));
    assertTrue(cpu < FEW_SECONDS, "took " + cpu / 1_000_000 + " ms of CPU");
    return result;
  }

  /** A known PUT overwritten by another known PUT that completed before {@code get} began. */
  private static Operation staleValueFor(List<Operation> history, Operation get) {
    for (Operation later : history) {
      if (isKnownPut(later) && later.completedNanos() < get.invokedNanos()) {
        for (Operation earlier : history) {
          if (isKnownPut(earlier) && earlier.completedNanos() < later.invokedNanos()) {
            return earlier;
          }
        }
      }
    }
    return null;
  }

  private static boolean isKnownPut(Operation op) {
    return op.kind() == OpKind.PUT && !op.outcomeUnknown();
  }

  /**
   * Clients call one after the other with 0-50 µs pauses and 10-200 µs calls; each call takes
   * effect at a random instant inside its window, where the results come from; a few writes have
   * unknown outcomes (half of them took effect, later), and segment s1 is lost midway.
   */
  static List<Operation> history(Random random) {
    List<Operation> ops = new ArrayList<>();
    long[] clock = new long[CLIENTS];
    List<String> written = new ArrayList<>(List.of("v0@s0"));
    for (int i = 0; i < OPERATIONS; i++) {
      int client = i % CLIENTS;
      long invoked = clock[client] + random.nextInt(50_000);
      long completed = invoked + 10_000 + random.nextInt(190_000);
      clock[client] = completed;
      OpKind kind = KINDS[random.nextInt(KINDS.length)];
      String value = "v" + (i + 1) + "@s" + random.nextInt(3);
      String recent = written.get(Math.max(0, written.size() - 1 - random.nextInt(3)));
      String arg =
          switch (kind) {
            case GET, CONTAINS_KEY, REMOVE, GET_AND_REMOVE -> null;
            case REPLACE_IF_EQUALS, REMOVE_IF_EQUALS -> recent;
            default -> value;
          };
      String arg2 = kind == OpKind.REPLACE_IF_EQUALS ? value : null;
      if (arg2 != null || (arg != null && arg.equals(value))) {
        written.add(value);
      }
      ops.add(new Operation("p" + client, "k", kind, arg, arg2, invoked, completed, "?"));
    }
    long middle = ops.get(OPERATIONS / 2).invokedNanos();
    ops.add(Operation.loseSegment("s1", middle, middle + 300_000));
    return execute(ops, random);
  }

  /** Fills the results from a sequential execution at random instants inside the windows. */
  private static List<Operation> execute(List<Operation> ops, Random random) {
    List<Operation> history = new ArrayList<>(ops);
    List<Integer> unknown = new ArrayList<>();
    while (unknown.size() < UNKNOWNS) {
      int i = random.nextInt(OPERATIONS);
      if (!ops.get(i).kind().isRead() && !unknown.contains(i)) {
        unknown.add(i);
      }
    }
    List<double[]> points = new ArrayList<>(); // {instant, index}
    for (int i = 0; i < ops.size(); i++) {
      Operation op = ops.get(i);
      long span = op.completedNanos() - op.invokedNanos();
      if (unknown.contains(i)) {
        history.set(
            i,
            Operation.unknown(
                op.process(),
                op.key(),
                op.kind(),
                op.argument(),
                op.argument2(),
                op.invokedNanos()));
        if (random.nextBoolean()) {
          continue; // never took effect
        }
        span *= 20;
      }
      points.add(new double[] {op.invokedNanos() + random.nextDouble() * span, i});
    }
    points.sort(Comparator.comparingDouble(p -> p[0]));
    String value = null;
    for (double[] point : points) {
      int i = (int) point[1];
      ReferenceEntry.Outcome outcome =
          ReferenceEntry.apply(value, ops.get(i), CheckerPerformanceTest::segmentOf);
      value = outcome.value();
      if (!history.get(i).outcomeUnknown() && !ops.get(i).kind().isLoss()) {
        history.set(i, ops.get(i).completed(ops.get(i).completedNanos(), outcome.result()));
      }
    }
    return history;
  }
}
