package dev.mooncake.jcache.history;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lowe's memo for the search: the configurations (linearized set, state) already visited, so that
 * none is explored twice.
 *
 * <p>One refinement makes a handful of unknown outcomes cheap: a "free" operation (its return is at
 * +infinity: an unknown outcome, or a loss whose window never closed) blocks no other operation and
 * is legal in every state. So if a configuration failed, the same known operations and state with
 * more free ones linearized fail too: a completion of the larger one, followed by the extra free
 * operations, would complete the smaller one. Only failed visits prune that way; a visit still on
 * the search's stack prunes only its exact twin (which the search never reaches again anyway).
 * Operations 0 .. freeCount-1 are the free ones.
 */
final class Memo {
  /** One visited configuration's free part; {@code failed} once its subtree is exhausted. */
  static final class Visit {
    private final long[] free;
    private boolean failed;

    private Visit(long[] free) {
      this.free = free;
    }

    void failed() {
      failed = true;
    }
  }

  private record Key(BitSet known, int state) {}

  private final Map<Key, List<Visit>> visits = new HashMap<>();
  private final int freeCount;
  private int size;

  Memo(int freeCount) {
    this.freeCount = freeCount;
  }

  /** Records a first visit of (linearized, state); null if it need not be explored. */
  Visit visit(BitSet linearized, int state) {
    BitSet known = linearized.get(freeCount, Math.max(freeCount, linearized.length()));
    long[] free = linearized.get(0, freeCount).toLongArray();
    List<Visit> same = visits.computeIfAbsent(new Key(known, state), k -> new ArrayList<>(1));
    for (Visit v : same) {
      if (v.failed ? subset(v.free, free) : equal(v.free, free)) {
        return null;
      }
    }
    Visit visit = new Visit(free);
    same.add(visit);
    size++;
    return visit;
  }

  int size() {
    return size;
  }

  private static boolean subset(long[] a, long[] b) {
    for (int i = 0; i < a.length; i++) {
      if ((a[i] & ~(i < b.length ? b[i] : 0)) != 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean equal(long[] a, long[] b) {
    return subset(a, b) && subset(b, a);
  }
}
