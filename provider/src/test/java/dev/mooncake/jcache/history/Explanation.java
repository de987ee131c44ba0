package dev.mooncake.jcache.history;

import java.util.List;

/** The text of a verdict against one key: where the search got stuck, for a human. */
final class Explanation {
  /** How many operations of the longest prefix are listed (the last ones). */
  private static final int PREFIX_SHOWN = 20;

  /**
   * A point where the search was stuck: the operations linearized (in order; {@code known} of them
   * with a known outcome), the entry's state after them, the operations that could have come next,
   * and the one of them that returns first.
   */
  record Stuck(
      List<Integer> prefix, int known, int state, List<Integer> candidates, int returnsFirst) {}

  private final List<Operation> ops;
  private final EntryModel model;
  private final long originNanos;

  Explanation(List<Operation> ops, EntryModel model) {
    this.ops = ops;
    this.model = model;
    this.originNanos =
        ops.stream()
            .filter(op -> !op.kind().isLoss())
            .mapToLong(Operation::invokedNanos)
            .min()
            .orElse(0);
  }

  String violation(long steps, int states, Stuck deepest) {
    return "not linearizable (searched "
        + steps
        + " steps, "
        + states
        + " states; times relative to the key's first invocation)\n"
        + describe(deepest);
  }

  String undecided(String why, long steps, int states, Stuck deepest) {
    String text = "undecided: " + why + " after " + steps + " steps, " + states + " states";
    return deepest == null ? text : text + "\nso far:\n" + describe(deepest);
  }

  private String describe(Stuck stuck) {
    StringBuilder text = new StringBuilder();
    List<Integer> prefix = stuck.prefix();
    text.append("longest linearizable prefix: ").append(prefix.size()).append(" of ");
    text.append(ops.size()).append(" operations, in linearization order");
    int from = Math.max(0, prefix.size() - PREFIX_SHOWN);
    if (from > 0) {
      text.append(" (the last ").append(PREFIX_SHOWN).append(")");
    }
    text.append(":\n");
    for (int op : prefix.subList(from, prefix.size())) {
      text.append("  ").append(ops.get(op).describe(originNanos)).append('\n');
    }
    text.append("entry after it: ").append(model.describe(stuck.state())).append('\n');
    text.append("the operations that could come next, none of which leads to a linearization:\n");
    for (int op : stuck.candidates()) {
      text.append("  ").append(ops.get(op).describe(originNanos));
      if (model.step(stuck.state(), op) == EntryModel.ILLEGAL) {
        text.append("  <- would have returned ").append(model.wouldReturn(stuck.state(), op));
      } else {
        text.append("  <- possible, but the rest cannot follow it");
      }
      if (op == stuck.returnsFirst()) {
        text.append(" [returns first]");
      }
      text.append('\n');
    }
    return text.toString().stripTrailing();
  }
}
