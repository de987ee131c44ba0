package dev.mooncake.jcache.internal.async;

import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one timer thread of a cache manager's asynchronous operations ({@code
 * mooncake-<m>-async-timer}): it fails an operation still queued when its deadline passes.
 *
 * <p>Why a timer beside the check when an operation leaves its queue: an operation behind a long
 * one (a writer that hangs, a cluster lock held by a dead JVM) would otherwise learn of its
 * deadline only when that one ends, and keep its permit all the while. One task per operation (a
 * heap insert, and a removal when it starts in time) is small beside its store round trips of 100
 * µs or more; one thread serves the whole manager. It starts with the first task, not with the
 * manager.
 */
final class DeadlineTimer implements AutoCloseable {
  private final ScheduledThreadPoolExecutor executor;
  private volatile Thread thread;

  DeadlineTimer(String threadName) {
    this.executor =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread t = new Thread(task, threadName);
              t.setDaemon(true);
              thread = t;
              return t;
            });
    executor.setRemoveOnCancelPolicy(true); // an operation that starts in time leaves no task
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /**
   * Runs {@code task} on the timer thread in {@code delayNanos}. Null once closed: the manager is
   * closing, its caches have ended their operations, and the check at dequeue still holds.
   */
  Future<?> schedule(Runnable task, long delayNanos) {
    try {
      return executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  /** Whether the current thread is the timer's (where an expired operation's stage completes). */
  boolean onThread() {
    return Thread.currentThread() == thread;
  }

  /** Stops the thread; pending tasks are dropped (idempotent). */
  @Override
  public void close() {
    executor.shutdownNow();
  }
}
