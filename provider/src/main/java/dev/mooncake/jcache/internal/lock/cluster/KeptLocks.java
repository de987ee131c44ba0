package dev.mooncake.jcache.internal.lock.cluster;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The rules by which a JVM keeps a cluster lock after its operation, and for how long
 * (docs/cluster-consistency.md, "Lock keeping"). Keeping only defers a release: a kept lock is held
 * exactly as an operation holds it, so these rules decide liveness, never who may write.
 */
final class KeptLocks {
  /** How many cluster locks one JVM holds at most for keeping to go on (a bound, not an LRU). */
  static final int MAX_KEPT = 256;

  /** How often a keeping JVM asks the master for wants (and for its lock objects). */
  static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /**
   * While the event stream is live, how often the sweep still asks about every lock held (a lock
   * object that went without a flush of the stream, e.g. this client's segment dropped): 1 call/s.
   */
  static final long LIVE_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * How long a key is not kept after a revocation or an acquisition that waited for another JVM.
   */
  static final long COOLDOWN_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * How many operations in a row a lock is handed on to threads of this JVM queued on it while the
   * key is not kept (cooling down): the bound on how long a busy JVM holds a contended key.
   */
  static final int MAX_HAND_ONS = 16;

  /**
   * After a JVM gave a lock up to a want, how long its own next acquisition of the key waits for
   * the waiter to take it first: above the waiters' longest pause between size polls (20 ms), so a
   * waiter in another JVM is not overtaken by this JVM's queued threads.
   */
  static final long YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** How often a waiter puts its want again while it waits (a holder may have removed it). */
  static final long WANT_REPUT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** The longest closing spends releasing kept locks; what is left goes with the client. */
  static final long CLOSE_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final long idleNanos; // 0: keeping is off
  private final long leaseNanos;
  private final ConcurrentHashMap<String, Long> coolUntil = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Long> yieldUntil = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param idle how long an unused lock is kept ({@code lock_keep_idle_ms}); zero: keep nothing
   * @param lease the lock lease, which bounds every kept lock's proof
   */
  KeptLocks(Duration idle, Duration lease) {
    if (idle.isNegative()) {
      throw new IllegalArgumentException("the lock keeping idle time must be >= 0, got " + idle);
    }
    this.idleNanos = idle.toNanos();
    this.leaseNanos = lease.toNanos();
  }

  boolean enabled() {
    return idleNanos > 0;
  }

  boolean closed() {
    return closed;
  }

  /** Stops keeping; true the first time (the caller then releases what is kept). */
  boolean close() {
    if (closed) {
      return false;
    }
    closed = true;
    return true;
  }

  /**
   * Whether a lock whose operation just ended is kept: keeping on and open, not wanted by another
   * JVM, not cooling down, a proof young enough to be reused, and room in the bound.
   */
  boolean mayKeep(String key, boolean wanted, long proofAt, int held, long now) {
    return enabled()
        && !closed
        && !wanted
        && !coolingDown(key, now)
        && reusableWithoutRead(proofAt, now)
        && held <= MAX_KEPT;
  }

  /**
   * Whether a lock that is not kept is handed on to a thread of this JVM queued on it: keeping on
   * and open, not wanted, a proof young enough, and fewer than {@link #MAX_HAND_ONS} in a row.
   */
  boolean mayHandOn(boolean wanted, long proofAt, int handOns, long now) {
    return enabled()
        && !closed
        && !wanted
        && reusableWithoutRead(proofAt, now)
        && handOns < MAX_HAND_ONS;
  }

  /** The lock of {@code key} went to a want: this JVM lets the waiter take it first. */
  void yieldTo(String key, long now) {
    if (enabled()) {
      yieldUntil.put(key, now + YIELD_NANOS);
    }
  }

  /** Until when this JVM lets another take {@code key} first; {@code now} or earlier: not. */
  long yieldingUntil(String key, long now) {
    Long until = yieldUntil.get(key);
    return until == null ? now : until;
  }

  /** Whether a kept lock's proof is young enough to use it without a read: half a lease. */
  boolean reusableWithoutRead(long proofAt, long now) {
    return now - proofAt < leaseNanos / 2;
  }

  /**
   * Whether an idle kept lock is to be released now: idle for the idle time, or its proof 3/4 of a
   * lease old (so its release is the plain remove of a lock certainly ours), or closing.
   */
  boolean expired(long lastUsed, long proofAt, long now) {
    return closed || now - lastUsed >= idleNanos || now - proofAt >= leaseNanos / 4 * 3;
  }

  /** The key is contended: do not keep it for {@link #COOLDOWN_NANOS}. */
  void coolDown(String key, long now) {
    if (enabled()) {
      coolUntil.put(key, now + COOLDOWN_NANOS);
    }
  }

  private boolean coolingDown(String key, long now) {
    Long until = coolUntil.get(key);
    return until != null && now - until < 0;
  }

  /** Forgets cool-downs that have ended (memory stays proportional to recently contended keys). */
  void forgetCooledDown(long now) {
    coolUntil.values().removeIf(until -> now - until >= 0);
    yieldUntil.values().removeIf(until -> now - until >= 0);
  }
}
