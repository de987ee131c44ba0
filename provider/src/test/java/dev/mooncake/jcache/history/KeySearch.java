package dev.mooncake.jcache.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Wing &amp; Gong's search with Lowe's memo over one key's sub-history, as Porcupine's {@code
 * checkSingle}. The call and return events, sorted by time, form a doubly linked list; a call ahead
 * of the first return in the list may be linearized next, which "lifts" it and its return out of
 * the list. Reaching a return means that no call ahead of it can go next from here: the search
 * backtracks ("unlifts" its last choice). A configuration seen before is not explored again ({@link
 * Memo}).
 *
 * <p>"Free" operations return at +infinity: an unknown outcome (it may take effect at any instant
 * after its invocation, or never), or a loss whose window never closed. They are legal in every
 * state and may be left out (placed after everything, where nothing observes them), so: the search
 * succeeds once every other operation is placed; a free operation that would change nothing is not
 * tried; and each configuration tries its known operations first, then its free ones, so that the
 * known ones' failures prune the free ones' (see Memo).
 */
final class KeySearch {
  /** How often (in search steps) the clock is read. */
  private static final int CLOCK_EVERY = 1 << 10;

  /** Bytes one memo entry costs besides its bit words: records, BitSet, arrays, hash node. */
  private static final int MEMO_ENTRY_OVERHEAD = 150;

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

  private final String key;
  private final List<Operation> ops;
  private final int freeCount;
  private final EntryModel model;
  private final Event head;

  // The search: the linearized operations (a stack, and as a set), the entry's state.
  private final BitSet linearized;
  private final Event[] stack;
  private final int[] stateBefore;
  private final Memo.Visit[] visits;
  private final Memo memo;
  private int depth;
  private int state = EntryModel.ABSENT;
  private int knownLeft;
  private Explanation.Stuck deepest;

  KeySearch(String key, List<Operation> ops, Function<String, String> segmentOfValue) {
    this.key = key;
    // The free operations first: Memo splits the linearized set there.
    this.ops = new ArrayList<>(ops);
    this.ops.sort(Comparator.comparingInt(op -> isFree(op) ? 0 : 1));
    this.freeCount = (int) ops.stream().filter(KeySearch::isFree).count();
    this.model = new EntryModel(this.ops, segmentOfValue);
    this.head = eventList();
    int n = ops.size();
    linearized = new BitSet(n);
    stack = new Event[n];
    stateBefore = new int[n];
    visits = new Memo.Visit[n];
    memo = new Memo(freeCount);
    knownLeft = n - freeCount;
  }

  KeyResult run(Duration budget) {
    long started = System.nanoTime();
    // Capped, so that the sum cannot overflow: a year is as good as forever here.
    long deadline =
        started + Math.min(budget.toMillis(), Duration.ofDays(365).toMillis()) * 1_000_000;
    int n = ops.size();
    long maxMemo =
        Math.max(10_000, Runtime.getRuntime().maxMemory() / 4 / (MEMO_ENTRY_OVERHEAD + n / 8));
    Explanation explanation = new Explanation(ops, model);
    long steps = 0;
    // The second pass over the calls ahead of the first return, for the free operations.
    boolean freePass = false;
    Event entry = head.next;
    while (knownLeft > 0) {
      if (++steps % CLOCK_EVERY == 0 && (System.nanoTime() > deadline || memo.size() > maxMemo)) {
        String why =
            memo.size() > maxMemo
                ? "the memo reached " + memo.size() + " states (a quarter of the heap)"
                : "the budget of " + budget.toMillis() + " ms ran out";
        String text = explanation.undecided(why, steps, memo.size(), deepest);
        return new KeyResult(key, Verdict.UNDECIDED, n, text);
      }
      if (entry.call) {
        boolean placed = isFree(entry.op) == freePass && tryNext(entry);
        if (placed) {
          freePass = false;
        }
        entry = placed ? head.next : entry.next;
      } else if (!freePass) {
        freePass = true;
        entry = head.next;
      } else {
        // The first return in the list: its operation cannot be passed over, and no call ahead
        // of it can be linearized next from here.
        if (deeper(deepest)) {
          deepest = stuck(entry.op);
        }
        if (depth == 0) {
          String text = explanation.violation(steps, memo.size(), deepest);
          return new KeyResult(key, Verdict.NOT_LINEARIZABLE, n, text);
        }
        Event last = backtrack();
        freePass = isFree(last.op);
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

  /** Linearizes the operation of {@code call} next if it is legal, useful and not seen before. */
  private boolean tryNext(Event call) {
    int op = call.op;
    int next = model.step(state, op);
    if (next == EntryModel.ILLEGAL || (isFree(op) && next == state)) {
      return false;
    }
    linearized.set(op);
    Memo.Visit visit = memo.visit(linearized, next);
    if (visit == null) {
      linearized.clear(op);
      return false;
    }
    stack[depth] = call;
    visits[depth] = visit;
    stateBefore[depth++] = state;
    state = next;
    knownLeft -= isFree(op) ? 0 : 1;
    lift(call);
    return true;
  }

  /** Undoes the last choice, whose every continuation failed; returns its call. */
  private Event backtrack() {
    Event last = stack[--depth];
    visits[depth].failed();
    state = stateBefore[depth];
    knownLeft += isFree(last.op) ? 0 : 1;
    linearized.clear(last.op);
    unlift(last);
    return last;
  }

  private boolean isFree(int op) {
    return op < freeCount;
  }

  /**
   * Whether the operation returns at +infinity for the search. A loss has no result to wait for:
   * its window is what was recorded.
   */
  private static boolean isFree(Operation op) {
    return returnTime(op) == Operation.OPEN;
  }

  private static long returnTime(Operation op) {
    return !op.kind().isLoss() && op.outcomeUnknown() ? Operation.OPEN : op.completedNanos();
  }

  /** The events sorted by time, a call before a return at the same instant (they overlap). */
  private Event eventList() {
    List<Event> events = new ArrayList<>(2 * ops.size());
    for (int i = 0; i < ops.size(); i++) {
      Operation op = ops.get(i);
      Event call = new Event(i, true, op.invokedNanos());
      call.match = new Event(i, false, returnTime(op));
      events.add(call);
      events.add(call.match);
    }
    events.sort(Comparator.comparingLong((Event e) -> e.time).thenComparing(e -> e.call ? 0 : 1));
    Event first = new Event(-1, true, Long.MIN_VALUE);
    Event tail = first;
    for (Event e : events) {
      tail.next = e;
      e.prev = tail;
      tail = e;
    }
    return first;
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

  /**
   * Whether the search got further now than at {@code stuck}: more known operations placed, or as
   * many with fewer free ones (which only may have happened).
   */
  private boolean deeper(Explanation.Stuck stuck) {
    if (stuck == null) {
      return true;
    }
    int known = ops.size() - freeCount - knownLeft;
    return known > stuck.known() || (known == stuck.known() && depth < stuck.prefix().size());
  }

  private Explanation.Stuck stuck(int returnsFirst) {
    List<Integer> prefix = new ArrayList<>(depth);
    for (int i = 0; i < depth; i++) {
      prefix.add(stack[i].op);
    }
    List<Integer> candidates = new ArrayList<>();
    for (Event e = head.next; e != null && e.call; e = e.next) {
      candidates.add(e.op);
    }
    return new Explanation.Stuck(
        prefix, ops.size() - freeCount - knownLeft, state, candidates, returnsFirst);
  }
}
