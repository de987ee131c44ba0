package dev.mooncake.jcache.internal.lock.cluster;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that retries failed lock releases (leftovers) in the background. Without it a leftover
 * blocks every other JVM on its key until this JVM happens to make another lock call: a holder
 * resumed from a pause (SIGSTOP, a long GC) whose short release floor ran out left its lock behind
 * for seconds on a real Mooncake. Started when a leftover appears, it retries with a growing pause
 * (10 ms doubling to 1 s) and ends once none is left. A daemon: it never keeps a JVM alive.
 */
final class LeftoverRetries implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeftoverRetries.class);
  static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long JOIN_MILLIS = 200;

  private final BooleanSupplier retryOnce;
  private final BooleanSupplier pending;
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile boolean closed;
  private volatile Thread thread;

  /**
   * @param retryOnce one round over the leftovers; true when none is left
   * @param pending whether any leftover is left
   */
  LeftoverRetries(BooleanSupplier retryOnce, BooleanSupplier pending) {
    this.retryOnce = retryOnce;
    this.pending = pending;
  }

  /** Makes sure a retrying thread runs: a leftover was just added. */
  void wake() {
    if (closed || !running.compareAndSet(false, true)) {
      return;
    }
    Thread started = new Thread(this::run, "mooncake-lock-leftovers");
    started.setDaemon(true);
    thread = started;
    started.start();
  }

  private void run() {
    long pause = FIRST_PAUSE_NANOS;
    try {
      boolean none = false;
      while (!closed && !none) {
        LockSupport.parkNanos(pause);
        if (closed) {
          return;
        }
        try {
          none = retryOnce.getAsBoolean();
        } catch (RuntimeException e) {
          LOG.warn("retrying failed cluster lock releases failed; the next round retries", e);
        }
        pause = Math.min(2 * pause, MAX_PAUSE_NANOS);
      }
    } finally {
      running.set(false);
    }
    if (!closed && pending.getAsBoolean()) {
      wake(); // a leftover added between the last round and the flag's reset
    }
  }

  /** Stops retrying, waiting at most {@value #JOIN_MILLIS} ms for a round in progress. */
  @Override
  public void close() {
    closed = true;
    Thread running = thread;
    if (running != null) {
      LockSupport.unpark(running);
      try {
        running.join(JOIN_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
