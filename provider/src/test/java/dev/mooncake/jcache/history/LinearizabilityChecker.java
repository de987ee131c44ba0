package dev.mooncake.jcache.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Checks a recorded history of JCache operations for per-key linearizability against the model of
 * one JSR-107 entry, as Jepsen's Knossos and Porcupine do.
 *
 * <p>Linearizability is P-compositional, so each key is checked alone, on its own operations plus a
 * copy of every loss ({@link OpKind#LOSE_SEGMENT}, {@link OpKind#LOSE_ALL}). Each copy of a loss is
 * placed independently per key, which is weaker than one instant for all keys: a loss that explains
 * one key's absent read at one instant and another key's at a different instant inside its window
 * passes.
 */
public final class LinearizabilityChecker {
  private LinearizabilityChecker() {}

  /**
   * Checks every key of the history; {@code segmentOfValue} tells which segment a stored value
   * lives in (for LOSE_SEGMENT; it may answer null: a value in no known segment, never lost by
   * LOSE_SEGMENT). Every key starts absent. A key whose search exceeds {@code budgetPerKey} is
   * UNDECIDED.
   *
   * @throws IllegalArgumentException for an operation without a needed argument, or writing the
   *     value "null" (which means absent)
   */
  public static Report check(
      List<Operation> history, Function<String, String> segmentOfValue, Duration budgetPerKey) {
    Objects.requireNonNull(segmentOfValue, "segmentOfValue");
    Map<String, List<Operation>> byKey = new TreeMap<>();
    List<Operation> losses = new ArrayList<>();
    for (Operation op : history) {
      if (op.kind().isLoss()) {
        losses.add(op);
        continue;
      }
      List<Operation> ops = byKey.computeIfAbsent(op.key(), k -> new ArrayList<>());
      // A read whose outcome is unknown changes nothing and constrains nothing.
      if (!(op.outcomeUnknown() && op.kind().isRead())) {
        ops.add(op);
      }
    }
    List<KeyResult> results = new ArrayList<>(byKey.size());
    for (Map.Entry<String, List<Operation>> e : byKey.entrySet()) {
      List<Operation> ops = withLosses(e.getValue(), losses);
      KeyResult result = new KeySearch(e.getKey(), ops, segmentOfValue).run(budgetPerKey);
      if (result.verdict() == Verdict.UNDECIDED) {
        result = withoutUnobservedWrites(e.getKey(), ops, segmentOfValue, budgetPerKey, result);
      }
      results.add(result);
    }
    return new Report(results);
  }

  /**
   * The second try on a key the search could not decide: without its writes of unknown outcome
   * whose values no other operation mentions (no read returned them, no compare expected them). An
   * unknown outcome may never have taken effect, so a linearization of the rest is one of the whole
   * history with those writes left out: LINEARIZABLE stands. Anything else proves nothing (a
   * left-out write might have been what made a key present), and the first verdict stays. Faults
   * that fail many writes fast (a pool restart: ~20 unknown writes on one key, each open to the end
   * of the run) are what this is for.
   */
  static KeyResult withoutUnobservedWrites(
      String key,
      List<Operation> ops,
      Function<String, String> segmentOfValue,
      Duration budget,
      KeyResult undecided) {
    Set<String> mentioned = new HashSet<>();
    for (Operation op : ops) {
      if (!op.outcomeUnknown()) {
        mentioned.add(op.argument());
        mentioned.add(op.argument2());
        mentioned.add(op.result());
      }
    }
    List<Operation> kept = new ArrayList<>(ops.size());
    for (Operation op : ops) {
      boolean unobservedWrite =
          op.outcomeUnknown()
              && !op.kind().isLoss()
              && (op.argument() != null || op.argument2() != null)
              && (op.argument() == null || !mentioned.contains(op.argument()))
              && (op.argument2() == null || !mentioned.contains(op.argument2()));
      if (!unobservedWrite) {
        kept.add(op);
      }
    }
    if (kept.size() == ops.size()) {
      return undecided;
    }
    KeyResult second = new KeySearch(key, kept, segmentOfValue).run(budget);
    if (second.verdict() != Verdict.LINEARIZABLE) {
      return undecided;
    }
    return new KeyResult(
        key,
        Verdict.LINEARIZABLE,
        ops.size(),
        second.explanation()
            + " (without the "
            + (ops.size() - kept.size())
            + " writes of unknown outcome no operation observed)");
  }

  /**
   * The key's operations plus the losses that may matter: one that completed before the key's first
   * invocation hit an absent entry (every key starts absent) and changes nothing.
   */
  private static List<Operation> withLosses(List<Operation> keyOps, List<Operation> losses) {
    long first = keyOps.stream().mapToLong(Operation::invokedNanos).min().orElse(Long.MAX_VALUE);
    List<Operation> ops = new ArrayList<>(keyOps);
    for (Operation loss : losses) {
      if (loss.completedNanos() >= first) {
        ops.add(loss);
      }
    }
    return ops;
  }
}
