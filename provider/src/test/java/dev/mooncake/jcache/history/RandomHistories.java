package dev.mooncake.jcache.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Small random one-key histories for the brute-force comparison: 3-4 clients of 2-3 operations on
 * key "k", values a, b (segment s1) and c (segment s2), small integer times so that windows touch
 * and overlap often, some unknown outcomes and sometimes a loss.
 */
final class RandomHistories {
  static final String KEY = "k";

  static String segmentOf(String value) {
    return value.equals("c") ? "s2" : "s1";
  }

  private static final String[] VALUES = {"a", "b", "c"};
  private static final OpKind[] KEY_KINDS =
      List.of(OpKind.values()).stream().filter(k -> !k.isLoss()).toArray(OpKind[]::new);

  private final Random random;

  RandomHistories(long seed) {
    this.random = new Random(seed);
  }

  /** Operations with made-up results: mostly not linearizable. */
  List<Operation> withRandomResults() {
    List<Operation> history = new ArrayList<>();
    for (Operation op : skeleton()) {
      history.add(
          op.outcomeUnknown() || op.kind().isLoss()
              ? op
              : op.completed(op.completedNanos(), randomResult(op.kind())));
    }
    return history;
  }

  /**
   * Results from a real sequential execution at a random instant inside each window (an unknown
   * outcome takes effect at some later instant, or never), then sometimes one result changed: a mix
   * of linearizable and near-miss histories.
   */
  List<Operation> fromExecution() {
    List<Operation> skeleton = skeleton();
    List<double[]> points = new ArrayList<>(); // {instant, index}
    for (int i = 0; i < skeleton.size(); i++) {
      Operation op = skeleton.get(i);
      boolean unknown = !op.kind().isLoss() && op.outcomeUnknown();
      if (unknown && random.nextBoolean()) {
        continue; // never took effect
      }
      long end = unknown ? op.invokedNanos() + 15 : op.completedNanos();
      points.add(
          new double[] {op.invokedNanos() + random.nextDouble() * (end - op.invokedNanos()), i});
    }
    points.sort(Comparator.comparingDouble(p -> p[0]));
    List<Operation> history = new ArrayList<>(skeleton);
    String value = null;
    for (double[] point : points) {
      int i = (int) point[1];
      Operation op = skeleton.get(i);
      ReferenceEntry.Outcome outcome = ReferenceEntry.apply(value, op, RandomHistories::segmentOf);
      value = outcome.value();
      if (!op.outcomeUnknown() && !op.kind().isLoss()) {
        history.set(i, op.completed(op.completedNanos(), outcome.result()));
      }
    }
    if (random.nextBoolean()) {
      int i = random.nextInt(history.size());
      Operation op = history.get(i);
      if (!op.outcomeUnknown() && !op.kind().isLoss()) {
        history.set(i, op.completed(op.completedNanos(), randomResult(op.kind())));
      }
    }
    return history;
  }

  /** The operations and their windows, results "?" (to be filled), some unknown, maybe a loss. */
  private List<Operation> skeleton() {
    List<Operation> ops = new ArrayList<>();
    int clients = 3 + random.nextInt(2);
    for (int c = 0; c < clients; c++) {
      long t = random.nextInt(4);
      int count = 2 + random.nextInt(2);
      for (int j = 0; j < count; j++) {
        OpKind kind = KEY_KINDS[random.nextInt(KEY_KINDS.length)];
        String arg =
            kind.needsArgument()
                ? value()
                : kind == OpKind.INVOKE && random.nextInt(5) > 0 ? value() : null;
        String arg2 = kind == OpKind.REPLACE_IF_EQUALS ? value() : null;
        long end = t + random.nextInt(9);
        String process = "p" + c;
        if (random.nextInt(8) == 0) {
          ops.add(Operation.unknown(process, KEY, kind, arg, arg2, t));
        } else {
          ops.add(new Operation(process, KEY, kind, arg, arg2, t, end, "?"));
        }
        t = end + random.nextInt(4);
      }
    }
    if (random.nextInt(3) == 0) {
      long from = random.nextInt(20);
      long to = from + random.nextInt(10);
      ops.add(
          random.nextBoolean()
              ? Operation.loseAll(from, to)
              : Operation.loseSegment(random.nextBoolean() ? "s1" : "s2", from, to));
    }
    return ops;
  }

  private String value() {
    return VALUES[random.nextInt(VALUES.length)];
  }

  private String randomResult(OpKind kind) {
    return switch (kind) {
      case PUT, REMOVE_BLIND -> "ok";
      case GET, GET_AND_PUT, GET_AND_REMOVE, GET_AND_REPLACE, INVOKE ->
          random.nextInt(4) == 0 ? "null" : value();
      default -> Boolean.toString(random.nextBoolean());
    };
  }
}
