package dev.mooncake.jcache.history;

import java.util.List;
import java.util.function.Function;

/**
 * The tests' oracle for small one-key histories: tries every order of the operations that respects
 * real time (an operation that completed, with a known outcome, before another was invoked comes
 * first), with every unknown-outcome operation either placed somewhere after its invocation or left
 * out, and asks whether one of them explains every recorded result. No memo, no cleverness.
 */
final class BruteForceOracle {
  private final List<Operation> ops;
  private final Function<String, String> segmentOf;
  private final long[] mustFollow;

  BruteForceOracle(List<Operation> ops, Function<String, String> segmentOf) {
    if (ops.size() > 62) {
      throw new IllegalArgumentException("too many operations for brute force: " + ops.size());
    }
    this.ops = ops;
    this.segmentOf = segmentOf;
    mustFollow = new long[ops.size()];
    for (int i = 0; i < ops.size(); i++) {
      for (int j = 0; j < ops.size(); j++) {
        if (precedes(ops.get(j), ops.get(i))) {
          mustFollow[i] |= 1L << j;
        }
      }
    }
  }

  static boolean linearizable(List<Operation> ops, Function<String, String> segmentOf) {
    return new BruteForceOracle(ops, segmentOf).search(0L, null);
  }

  private static boolean precedes(Operation a, Operation b) {
    boolean aKnownEnd =
        a.kind().isLoss() ? a.completedNanos() != Operation.OPEN : !a.outcomeUnknown();
    return aKnownEnd && a.completedNanos() < b.invokedNanos();
  }

  private boolean search(long done, String value) {
    if (done == (1L << ops.size()) - 1) {
      return true;
    }
    for (int i = 0; i < ops.size(); i++) {
      long bit = 1L << i;
      if ((done & bit) != 0 || (mustFollow[i] & ~done) != 0) {
        continue;
      }
      Operation op = ops.get(i);
      ReferenceEntry.Outcome outcome = ReferenceEntry.apply(value, op, segmentOf);
      if (ReferenceEntry.accepts(op, outcome.result()) && search(done | bit, outcome.value())) {
        return true;
      }
      boolean mayNeverHappen = !op.kind().isLoss() && op.outcomeUnknown();
      if (mayNeverHappen && search(done | bit, value)) {
        return true;
      }
    }
    return false;
  }
}
