package dev.mooncake.jcache.history;

import java.util.ArrayList;
import java.util.List;

/**
 * A read-then-write operation whose window overlaps a loss's ({@link OpKind#isLoss}) may read the
 * entry before the loss and write after it: under the key's lock it reads the old value, the
 * segment holding that value goes (a pool or a JVM killed, a master restart), and its put lands in
 * a segment that survives. The model's loss is one instant, so no linearization explains "returned
 * the old value, and its write survived" (found by the pool-restart scenario over the fake:
 * getAndPut returned the value the pool held, and its put landed after the pool died). Such an
 * operation is checked as the write it made, its answer about the prior state left unchecked, as an
 * unknown outcome's is; one that wrote nothing (a conditional answering false, a read-and-remove
 * that found nothing) is left out. Operations outside every loss's window are checked in full, so a
 * value that comes back after a loss is still caught. Applied to the recorded runs' histories
 * ({@link HistoryRun}) before {@link LinearizabilityChecker}, which stays the exact model (its
 * brute-force agreement test).
 */
final class LossStraddle {
  private LossStraddle() {}

  /**
   * The history as the runs' check takes it: each operation {@link #relaxed}, losses as they are.
   */
  static List<Operation> relaxed(List<Operation> history) {
    List<Operation> losses = new ArrayList<>();
    for (Operation op : history) {
      if (op.kind().isLoss()) {
        losses.add(op);
      }
    }
    List<Operation> relaxed = new ArrayList<>(history.size());
    for (Operation op : history) {
      Operation taken = op.kind().isLoss() ? op : relaxed(op, losses);
      if (taken != null) {
        relaxed.add(taken);
      }
    }
    return relaxed;
  }

  /** {@code op} as the checker takes it, given the history's losses; null to leave it out. */
  static Operation relaxed(Operation op, List<Operation> losses) {
    if (op.outcomeUnknown() || !overlapsAny(op, losses)) {
      return op;
    }
    return switch (op.kind()) {
      case GET_AND_PUT -> write(op, op.argument());
      case INVOKE -> op.argument() == null ? remove(op) : write(op, op.argument());
      case PUT_IF_ABSENT, REPLACE -> "true".equals(op.result()) ? write(op, op.argument()) : null;
      case REPLACE_IF_EQUALS -> "true".equals(op.result()) ? write(op, op.argument2()) : null;
      case GET_AND_REPLACE ->
          Operation.ABSENT.equals(op.result()) ? null : write(op, op.argument());
      case REMOVE, REMOVE_IF_EQUALS -> "true".equals(op.result()) ? remove(op) : null;
      case GET_AND_REMOVE -> Operation.ABSENT.equals(op.result()) ? null : remove(op);
      default -> op; // reads and blind writes: one instant each, checked as they are
    };
  }

  private static boolean overlapsAny(Operation op, List<Operation> losses) {
    for (Operation loss : losses) {
      if (op.invokedNanos() <= loss.completedNanos()
          && op.completedNanos() >= loss.invokedNanos()) {
        return true;
      }
    }
    return false;
  }

  private static Operation write(Operation op, String value) {
    return Operation.of(
        op.process(), op.key(), OpKind.PUT, value, op.invokedNanos(), op.completedNanos(), "ok");
  }

  private static Operation remove(Operation op) {
    return Operation.of(
        op.process(),
        op.key(),
        OpKind.REMOVE_BLIND,
        null,
        op.invokedNanos(),
        op.completedNanos(),
        "ok");
  }
}
