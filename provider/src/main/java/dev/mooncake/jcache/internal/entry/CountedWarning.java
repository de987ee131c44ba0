package dev.mooncake.jcache.internal.entry;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A count of one kind of rare event (a read of an unreachable segment, a read that was not the
 * key's value), with the decision whether this one is logged: the first, then at most one per
 * interval, so a storm of them costs one WARN line per interval and the count says the rest.
 */
final class CountedWarning {
  private final LongAdder count = new LongAdder();
  private final long intervalNanos;
  private volatile long lastLog; // ticker nanos; 0: never

  CountedWarning(long intervalNanos) {
    this.intervalNanos = intervalNanos;
  }

  /** Counts one event at {@code now} (ticker nanos); true when it is to be logged. */
  boolean count(long now) {
    count.increment();
    long logged = lastLog;
    if (logged == 0 || now - logged >= intervalNanos) {
      lastLog = now == 0 ? 1 : now;
      return true;
    }
    return false;
  }

  long sum() {
    return count.sum();
  }

  /** For the log line: "more are not logged for N s". */
  long intervalSeconds() {
    return TimeUnit.NANOSECONDS.toSeconds(intervalNanos);
  }
}
