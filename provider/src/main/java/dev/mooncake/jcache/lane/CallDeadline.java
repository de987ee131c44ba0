package dev.mooncake.jcache.lane;

import java.util.function.Supplier;

/**
 * The time left to an operation made of several store calls (a cluster lock's puts, reads and size
 * checks): the calls it makes on this thread end by its deadline, not each by a fresh operation
 * timeout of its own. Without it, a lock acquisition whose put began one second before its time ran
 * out waited for that put the whole operation timeout more (4.3 s against 3 s under a master kill).
 * Scopes nest; the inner one never extends the outer.
 */
public final class CallDeadline {
  private static final ThreadLocal<long[]> CURRENT = new ThreadLocal<>();

  private CallDeadline() {}

  /** Runs {@code body} with at most {@code nanos} from now for the store calls it makes. */
  public static <T> T within(long nanos, Supplier<T> body) {
    long[] outer = CURRENT.get();
    long deadline = System.nanoTime() + Math.max(0, nanos);
    if (outer != null && outer[0] - deadline < 0) {
      return body.get(); // the outer scope ends first
    }
    CURRENT.set(new long[] {deadline});
    try {
      return body.get();
    } finally {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }

  /**
   * How long a store call starting now may take: {@code timeoutNanos}, or less when a scope's
   * deadline comes first (0 when it has passed).
   */
  public static long allowed(long timeoutNanos) {
    long[] current = CURRENT.get();
    if (current == null) {
      return timeoutNanos;
    }
    return Math.max(0, Math.min(timeoutNanos, current[0] - System.nanoTime()));
  }
}
