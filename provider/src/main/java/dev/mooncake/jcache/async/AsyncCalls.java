package dev.mooncake.jcache.async;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the asynchronous API's operations of one cache manager: each is a synchronous cache call
 * handed to the provider's {@code async} threads, and its stage is completed there.
 *
 * <ul>
 *   <li><b>Back-pressure.</b> At most {@code maxInFlight} operations are issued and not yet
 *       completed; a caller beyond that waits for one to complete, at most {@code permitWait}, then
 *       gets an {@link AsyncOverloadException}. A provider thread (a dependent stage issuing a new
 *       operation) does not wait: it could be the very thread the others wait for.
 *   <li><b>Order per key.</b> Within one cache, an operation starts only after every earlier
 *       operation on any of its keys has completed, and its stage's own dependents have run. So
 *       {@code putAsync(k, 1); putAsync(k, 2)} leaves 2, and their stages complete in that order.
 *       Different keys run in parallel.
 *   <li><b>Closing.</b> {@link Scope#end} fails the cache's queued operations at once and awaits
 *       the running ones (bounded), as closing ends background loads.
 * </ul>
 */
public final class AsyncCalls {
  private static final Logger LOG = LoggerFactory.getLogger(AsyncCalls.class);

  private final int maxInFlight;
  private final Semaphore permits;
  private final long permitWaitNanos;
  private final Consumer<Runnable> workers;
  private final BooleanSupplier onWorker;
  private final String owner;

  /**
   * @param maxInFlight {@code async_max_in_flight}
   * @param permitWait how long a caller waits for room ({@code operation_timeout_ms})
   * @param workers queues an operation on the provider's threads (throws when they are closed)
   * @param onWorker whether the current thread is one of them
   * @param owner names the cache manager in messages
   */
  public AsyncCalls(
      int maxInFlight,
      Duration permitWait,
      Consumer<Runnable> workers,
      BooleanSupplier onWorker,
      String owner) {
    if (maxInFlight <= 0) {
      throw new IllegalArgumentException("async_max_in_flight must be > 0, got " + maxInFlight);
    }
    this.maxInFlight = maxInFlight;
    this.permits = new Semaphore(maxInFlight);
    this.permitWaitNanos = permitWait.toNanos();
    this.workers = workers;
    this.onWorker = onWorker;
    this.owner = owner;
  }

  /** Operations issued and not yet completed, across the manager's caches. */
  public int inFlight() {
    return maxInFlight - permits.availablePermits();
  }

  /** The operations of one cache: their order per key, and their end when the cache closes. */
  public Scope scope(String cacheName) {
    return new Scope(cacheName);
  }

  private void acquire(String cacheName, String operation) {
    if (permits.tryAcquire()) {
      return;
    }
    boolean provider = onWorker.getAsBoolean();
    if (!provider) {
      try {
        if (permits.tryAcquire(permitWaitNanos, TimeUnit.NANOSECONDS)) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AsyncOverloadException(
            operation + " on cache '" + cacheName + "': interrupted while waiting for room");
      }
    }
    throw new AsyncOverloadException(
        operation
            + " on cache '"
            + cacheName
            + "' refused: "
            + owner
            + " already has "
            + maxInFlight
            + " asynchronous operations in flight (async_max_in_flight)"
            + (provider
                ? "; issued from a provider thread, which does not wait"
                : " and none completed within " + TimeUnit.NANOSECONDS.toMillis(permitWaitNanos))
            + (provider ? "" : " ms (operation_timeout_ms)"));
  }

  /** One cache's operations. */
  public final class Scope {
    private final String cacheName;

    /** Per key, the completion of the last operation issued on it that has not completed. */
    private final ConcurrentHashMap<Object, CompletableFuture<Void>> tails =
        new ConcurrentHashMap<>();

    /** Batches register their keys one at a time; one at once, so two never wait for each other. */
    private final Object batchOrder = new Object();

    private final Set<Call<?>> calls = ConcurrentHashMap.newKeySet();
    private volatile boolean ended;

    private Scope(String cacheName) {
      this.cacheName = cacheName;
    }

    /**
     * Issues {@code work} (a synchronous cache call on {@code keys}): it runs on a provider thread
     * once the earlier operations on its keys have completed, and the returned future completes
     * there with its result or exception. Throws {@link AsyncOverloadException} when there is no
     * room, and an {@link IllegalStateException} when the cache has closed or the threads are gone.
     */
    public <T> CompletableFuture<T> submit(String operation, Collection<?> keys, Supplier<T> work) {
      if (ended) {
        throw closed();
      }
      acquire(cacheName, operation);
      Call<T> call = new Call<>(operation, keys, work);
      CompletableFuture<Void> before = enter(keys, call.slot);
      calls.add(call);
      if (ended && call.cancel()) { // end() may have missed it
        throw closed();
      }
      if (before == null) {
        call.dispatch();
      } else {
        before.whenComplete((ignored, failure) -> call.dispatch());
      }
      return call.result;
    }

    /**
     * Ends the cache's operations (idempotent): later calls are refused, queued ones fail with an
     * {@link IllegalStateException} now, running ones are awaited up to {@code bound} in all (one
     * stuck longer is logged and left running). An operation that closes its own cache does not
     * wait for itself.
     */
    public void end(Duration bound) {
      ended = true;
      List<Call<?>> running = new ArrayList<>();
      for (Call<?> call : calls) {
        if (!call.cancel() && call.runsOn != Thread.currentThread()) {
          running.add(call);
        }
      }
      long deadline = System.nanoTime() + bound.toNanos();
      for (Call<?> call : running) {
        try {
          long left = Math.max(0, deadline - System.nanoTime());
          if (!call.finished.await(left, TimeUnit.NANOSECONDS)) {
            LOG.warn(
                "cache '{}' closed while its {} was still running after {} ms",
                cacheName,
                call.operation,
                bound.toMillis());
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    /** Operations issued on this cache and not yet completed (tests). */
    public int pending() {
      return calls.size();
    }

    private IllegalStateException closed() {
      return new IllegalStateException("cache '" + cacheName + "' is closed");
    }

    /**
     * Makes {@code slot} the tail of each key and answers what it must wait for: the tails it
     * replaced, or null. A single key needs no lock (it cannot wait in a cycle); batches take
     * {@link #batchOrder}, so of two overlapping batches one is wholly before the other.
     */
    private CompletableFuture<Void> enter(Collection<?> keys, CompletableFuture<Void> slot) {
      if (keys.size() == 1) {
        return tails.put(keys.iterator().next(), slot);
      }
      List<CompletableFuture<Void>> before = new ArrayList<>();
      synchronized (batchOrder) {
        for (Object key : keys) {
          CompletableFuture<Void> previous = tails.put(key, slot);
          if (previous != null && !previous.isDone()) {
            before.add(previous);
          }
        }
      }
      if (before.isEmpty()) {
        return null;
      }
      return before.size() == 1
          ? before.get(0)
          : CompletableFuture.allOf(before.toArray(new CompletableFuture<?>[0]));
    }

    private void leave(Collection<?> keys, CompletableFuture<Void> slot) {
      for (Object key : keys) {
        tails.remove(key, slot);
      }
    }

    /** One operation: queued, running, or done. */
    private final class Call<T> implements Runnable {
      final String operation;
      final Collection<?> keys;
      final Supplier<T> work;
      final CompletableFuture<T> result = new CompletableFuture<>();

      /** Completes after {@link #result}: what later operations on the same keys wait for. */
      final CompletableFuture<Void> slot = new CompletableFuture<>();

      /** Taken by whichever comes first: a worker running the call, or its end. */
      final AtomicBoolean claimed = new AtomicBoolean();

      final CountDownLatch finished = new CountDownLatch(1);
      volatile Thread runsOn;

      Call(String operation, Collection<?> keys, Supplier<T> work) {
        this.operation = operation;
        this.keys = keys;
        this.work = work;
      }

      /** Its predecessors are done: to a provider thread. */
      void dispatch() {
        if (claimed.get()) {
          return;
        }
        try {
          workers.accept(this);
        } catch (RuntimeException e) {
          fail(e); // the threads are closed: the stage fails rather than hangs
        }
      }

      @Override
      public void run() {
        if (!claimed.compareAndSet(false, true)) {
          return; // ended while queued: already failed
        }
        runsOn = Thread.currentThread();
        T value = null;
        Throwable failure = null;
        try {
          value = work.get();
        } catch (Throwable t) {
          failure = t;
        }
        runsOn = null;
        finish(value, failure);
      }

      /** Whether this ended the call (it had not started); then its stage has failed. */
      boolean cancel() {
        return fail(
            new IllegalStateException(
                "cache '" + cacheName + "' was closed before this " + operation + " started"));
      }

      private boolean fail(RuntimeException failure) {
        if (!claimed.compareAndSet(false, true)) {
          return false;
        }
        finish(null, failure);
        return true;
      }

      /**
       * Room first (a dependent may issue the next operation), then the stage, then the keys: the
       * next operation on them starts after this one's dependents ran.
       */
      private void finish(T value, Throwable failure) {
        calls.remove(this);
        permits.release();
        finished.countDown();
        try {
          if (failure == null) {
            result.complete(value);
          } else {
            result.completeExceptionally(failure);
          }
        } finally {
          slot.complete(null);
          leave(keys, slot);
        }
      }
    }
  }
}
