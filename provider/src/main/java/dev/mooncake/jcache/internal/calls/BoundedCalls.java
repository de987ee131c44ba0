package dev.mooncake.jcache.internal.calls;

import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Store calls waited for at most a deadline. A native call cannot be interrupted (a real Mooncake
 * read from the segment of a paused process blocks in its P2P handshake for up to 60 s, see {@code
 * docs/cluster-consistency.md}), so the call runs on a thread of this pool and the caller waits for
 * it; a caller that gives up leaves the call running there.
 *
 * <p>Buffers: what a call that was given up on still writes into must not be reused before it
 * returns. The caller hands it over when it gives up ({@code onAbandon} answers the action that
 * gives it back), and this pool runs that action once the call has returned, on the call's thread.
 * A call that ended in time leaves its buffers with the caller, as a direct call would.
 *
 * <p>Threads: one per call in progress, made on demand and ended after a minute idle, so waiting
 * callers never queue behind calls that were given up on. At most {@code maxAbandoned} given-up
 * calls may still be running; beyond that a call is refused before it starts ({@link
 * CallTimeoutException}, which names the stuck calls), so stuck calls cannot pile up threads.
 */
public final class BoundedCalls {
  private static final Logger LOG = LoggerFactory.getLogger(BoundedCalls.class);

  /**
   * How long an idle thread waits for the next call before it ends: long enough for a steady stream
   * of lock reads to reuse threads, short enough that a quiet JVM (a closed manager, the soak's
   * resource check) is back to its own threads within seconds.
   */
  static final long IDLE_THREAD_SECONDS = 2;

  private final String name;
  private final int maxAbandoned;
  private final ThreadPoolExecutor pool;
  private final AtomicInteger abandoned = new AtomicInteger();

  /**
   * @param name names the threads ({@code mooncake-<name>-<n>}) and the pool in messages
   * @param maxAbandoned how many given-up calls may be running at once before calls are refused
   */
  public BoundedCalls(String name, int maxAbandoned) {
    if (maxAbandoned <= 0) {
      throw new IllegalArgumentException("maxAbandoned must be > 0, got " + maxAbandoned);
    }
    this.name = name;
    this.maxAbandoned = maxAbandoned;
    AtomicInteger counter = new AtomicInteger();
    ThreadFactory factory =
        work -> {
          Thread thread = new Thread(work, "mooncake-" + name + "-" + counter.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        };
    // No queue: every call gets a thread at once (an idle one or a new one).
    this.pool =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            IDLE_THREAD_SECONDS,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            factory);
  }

  /**
   * Ends the idle threads now and refuses new calls ({@link CallTimeoutException}); calls still
   * running go on to their end, and their buffers are given back as before.
   */
  public void close() {
    pool.shutdown();
  }

  /** Given-up calls still running. */
  public int abandoned() {
    return abandoned.get();
  }

  /** Whether a call would be refused now because too many given-up calls still run. */
  public boolean full() {
    return abandoned.get() >= maxAbandoned;
  }

  /**
   * Runs {@code call} on this pool and waits for it at most {@code timeoutNanos}.
   *
   * @param what names the call and its key in messages, e.g. {@code get_into of 'k'}
   * @param onAbandon asked (on the caller's thread) only when the caller gives up on a call that
   *     has started or is about to: the buffers the call writes into pass to it, and the action it
   *     answers, run once the call has returned, gives them back
   * @return the call's answer; what it throws is thrown as is
   * @throws CallTimeoutException when the call did not return in time (it goes on), when the caller
   *     was interrupted while waiting (the interrupt flag is set again), or when too many given-up
   *     calls still run (then it did not start, and nothing was handed over)
   */
  public <T> T call(
      String what, long timeoutNanos, Supplier<T> call, Supplier<Runnable> onAbandon) {
    if (timeoutNanos <= 0) {
      throw new CallTimeoutException(what + ": not started, the operation's time had run out");
    }
    if (full()) {
      throw new CallTimeoutException(
          what
              + ": not started, "
              + abandoned.get()
              + " earlier store calls of "
              + name
              + " are still running after their callers gave up on them (at most "
              + maxAbandoned
              + ")");
    }
    Task<T> task = new Task<>(call);
    try {
      pool.execute(task);
    } catch (RejectedExecutionException e) {
      throw new CallTimeoutException(what + ": not started, " + name + " is closed");
    }
    return task.await(what, timeoutNanos, onAbandon);
  }

  /** One call and its hand-over; the monitor guards every field but {@code call}. */
  private final class Task<T> implements Runnable {
    private final Supplier<T> call;
    private boolean done;
    private boolean givenUp;
    private Runnable giveBack;
    private T value;
    private Throwable failure;
    private String thread;

    Task(Supplier<T> call) {
      this.call = call;
    }

    @Override
    public void run() {
      synchronized (this) {
        thread = Thread.currentThread().getName();
      }
      T answer = null;
      Throwable thrown = null;
      try {
        answer = call.get();
      } catch (RuntimeException | Error e) {
        thrown = e;
      }
      Runnable after;
      synchronized (this) {
        done = true;
        value = answer;
        failure = thrown;
        after = givenUp ? giveBack : null;
        notifyAll();
      }
      if (after != null) {
        try {
          after.run();
        } catch (RuntimeException e) {
          LOG.warn("giving back the buffers of a store call given up on failed", e);
        } finally {
          abandoned.decrementAndGet();
        }
      }
    }

    T await(String what, long timeoutNanos, Supplier<Runnable> onAbandon) {
      Deadline deadline = Deadline.afterNanos(timeoutNanos, Ticker.system());
      boolean interrupted = false;
      synchronized (this) {
        while (!done) {
          if (interrupted || deadline.expired()) {
            givenUp = true;
            giveBack = onAbandon.get();
            abandoned.incrementAndGet();
            if (interrupted) {
              Thread.currentThread().interrupt();
            }
            throw new CallTimeoutException(
                what
                    + (interrupted
                        ? ": interrupted while waiting for it"
                        : ": no answer within "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                            + " ms")
                    + "; the call goes on in the background"
                    + (thread != null ? " (thread " + thread + ")" : "")
                    + ", and what it writes into is released when it returns");
          }
          try {
            deadline.waitOn(this);
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (failure instanceof RuntimeException runtime) {
          throw runtime;
        }
        if (failure instanceof Error error) {
          throw error;
        }
        return value;
      }
    }
  }
}
