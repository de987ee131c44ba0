package dev.mooncake.jcache.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * Wing &amp; Gong's search with Lowe's memoisation over one key's sub-history, as Porcupine's
 * {@code checkSingle}: the call and return events sorted by time form a doubly linked list; a call
 * at the front of the list (before the first return) may be linearized next, which "lifts" it and
 * its return out of the list; reaching a return means the operation it ends must already have been
 * linearized, so the search backtracks ("unlifts" the last choice). A (linearized set, state) pair
 * seen before is not explored again.
 */
final class KeySearch {
  /** How often (in search steps) the clock is read. */
  private static final int CLOCK_EVERY = 1 << 10;

  /** Bytes one memo entry costs besides its bit words: the record, BitSet, array and hash node. */
  private static final int MEMO_ENTRY_OVERHEAD = 120;

  /** How many operations of the longest prefix an explanation lists (the last ones). */
  private static final int PREFIX_SHOWN = 20;

  /** One call or return event; a call's {@code match} is its return. */
  private static final class Event {
    final int op;
    final boolean call;
    final long time;
    Event match;
    Event prev;
    Event next;

    Event(int op, boolean call, long time) {
      this.op = op;
      this.call = call;
      this.time = time;
    }
  }

  private record Memo(BitSet linearized, int state) {}

  /** Where the search got stuck with the most operations linearized. */
  private record Stuck(
      List<Integer> prefix, int state, List<Integer> candidates, int mustPrecede) {}

  private final String key;
  private final List<Operation> ops;
  private final EntryModel model;
  private final long originNanos;

  KeySearch(String key, List<Operation> ops, Function<String, String> segmentOfValue) {
    this.key = key;
    this.ops = ops;
    this.model = new EntryModel(ops, segmentOfValue);
    this.originNanos =
        ops.stream()
            .filter(op -> !op.kind().isLoss())
            .mapToLong(Operation::invokedNanos)
            .min()
            .orElse(0);
  }

  KeyResult run(Duration budget) {
    long started = System.nanoTime();
    long deadline = started + budget.toNanos();
    int n = ops.size();
    long maxMemo =
        Math.max(10_000, Runtime.getRuntime().maxMemory() / 4 / (MEMO_ENTRY_OVERHEAD + n / 8));
    Event head = eventList();
    BitSet linearized = new BitSet(n);
    Set<Memo> memo = new HashSet<>();
    Event[] stack = new Event[n];
    int[] stateBefore = new int[n];
    int depth = 0;
    int state = EntryModel.ABSENT;
    Stuck best = null;
    long steps = 0;
    Event entry = head.next;
    while (head.next != null) {
      if (++steps % CLOCK_EVERY == 0 && (System.nanoTime() > deadline || memo.size() > maxMemo)) {
        String why =
            memo.size() > maxMemo
                ? "the memo reached " + memo.size() + " states (a quarter of the heap)"
                : "the budget of " + budget.toMillis() + " ms ran out";
        return new KeyResult(key, Verdict.UNDECIDED, n, undecided(why, steps, memo.size(), best));
      }
      if (entry.call) {
        int next = model.step(state, entry.op);
        boolean fresh = false;
        if (next != EntryModel.ILLEGAL) {
          linearized.set(entry.op);
          fresh = memo.add(new Memo((BitSet) linearized.clone(), next));
          if (!fresh) {
            linearized.clear(entry.op);
          }
        }
        if (fresh) {
          stack[depth] = entry;
          stateBefore[depth++] = state;
          state = next;
          lift(entry);
          entry = head.next;
        } else {
          entry = entry.next;
        }
      } else {
        // The first return in the list: its operation cannot be passed over, and no call before
        // it can be linearized next (from here): backtrack.
        if (best == null || depth > best.prefix().size()) {
          best = stuck(head, stack, depth, state, entry.op);
        }
        if (depth == 0) {
          return new KeyResult(
              key, Verdict.NOT_LINEARIZABLE, n, violation(best, steps, memo.size()));
        }
        Event last = stack[--depth];
        state = stateBefore[depth];
        linearized.clear(last.op);
        unlift(last);
        entry = last.next;
      }
    }
    String stats =
        String.format(
            Locale.ROOT,
            "linearizable: %d operations, %d search steps, %d states, %.1f ms",
            n,
            steps,
            memo.size(),
            (System.nanoTime() - started) / 1e6);
    return new KeyResult(key, Verdict.LINEARIZABLE, n, stats);
  }

  /**
   * The events sorted by time, a call before a return at the same instant (operations that touch
   * are concurrent); an unknown outcome returns at +infinity, so it may also "never" take effect:
   * be linearized after everything, where nothing observes it.
   */
  private Event eventList() {
    List<Event> events = new ArrayList<>(2 * ops.size());
    for (int i = 0; i < ops.size(); i++) {
      Operation op = ops.get(i);
      boolean open = !op.kind().isLoss() && op.outcomeUnknown();
      Event call = new Event(i, true, op.invokedNanos());
      call.match = new Event(i, false, open ? Operation.OPEN : op.completedNanos());
      events.add(call);
      events.add(call.match);
    }
    events.sort(Comparator.comparingLong((Event e) -> e.time).thenComparing(e -> e.call ? 0 : 1));
    Event head = new Event(-1, true, Long.MIN_VALUE);
    Event tail = head;
    for (Event e : events) {
      tail.next = e;
      e.prev = tail;
      tail = e;
    }
    return head;
  }

  /** Takes a call and its return out of the list. */
  private static void lift(Event call) {
    call.prev.next = call.next;
    call.next.prev = call.prev;
    Event ret = call.match;
    ret.prev.next = ret.next;
    if (ret.next != null) {
      ret.next.prev = ret.prev;
    }
  }

  /** Puts back what {@link #lift} took out, in reverse order. */
  private static void unlift(Event call) {
    Event ret = call.match;
    ret.prev.next = ret;
    if (ret.next != null) {
      ret.next.prev = ret;
    }
    call.prev.next = call;
    call.next.prev = call;
  }

  private static Stuck stuck(Event head, Event[] stack, int depth, int state, int mustPrecede) {
    List<Integer> prefix = new ArrayList<>(depth);
    for (int i = 0; i < depth; i++) {
      prefix.add(stack[i].op);
    }
    List<Integer> candidates = new ArrayList<>();
    for (Event e = head.next; e != null && e.call; e = e.next) {
      candidates.add(e.op);
    }
    return new Stuck(prefix, state, candidates, mustPrecede);
  }

  private String violation(Stuck best, long steps, int states) {
    return "not linearizable (searched "
        + steps
        + " steps, "
        + states
        + " states; times relative to the key's first invocation)\n"
        + describe(best);
  }

  private String undecided(String why, long steps, int states, Stuck best) {
    String text = "undecided: " + why + " after " + steps + " steps, " + states + " states";
    return best == null ? text : text + "\nso far:\n" + describe(best);
  }

  private String describe(Stuck best) {
    StringBuilder text = new StringBuilder();
    List<Integer> prefix = best.prefix();
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
    text.append("entry after it: ").append(model.describe(best.state())).append('\n');
    // At the deepest point every candidate is illegal: a legal one would either go deeper or have
    // been explored from this very (set, state) before, deeper than this.
    text.append("none of the operations that could come next gives its recorded result:\n");
    for (int op : best.candidates()) {
      text.append("  ").append(ops.get(op).describe(originNanos));
      text.append("  <- would have returned ").append(model.wouldReturn(best.state(), op));
      if (op == best.mustPrecede()) {
        text.append(" [returns first]");
      }
      text.append('\n');
    }
    return text.toString().stripTrailing();
  }
}
