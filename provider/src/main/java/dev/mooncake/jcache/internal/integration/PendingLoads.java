package dev.mooncake.jcache.internal.integration;

import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CompletionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cache's {@code loadAll} calls that run in the background, queued on a lane or inside the
 * loader, so that closing the cache can end them before it closes the loader: a queued load fails
 * its listener without calling the loader, a running one is awaited (bounded). Without this a load
 * that started after {@code close()} reopened what closing the loader had released (the TCK's
 * loader client connection) and wrote entries into a closed, or destroyed, cache.
 */
public final class PendingLoads {
  private static final Logger LOG = LoggerFactory.getLogger(PendingLoads.class);
  private static final Ticker CLOCK = Ticker.system(); // close waits for real threads: real time

  private final String cacheName;
  private final Set<Load> loads = ConcurrentHashMap.newKeySet();
  private volatile boolean ended;

  public PendingLoads(String cacheName) {
    this.cacheName = cacheName;
  }

  /**
   * Hands {@code work} to {@code submit} as a task that runs it unless {@link #end} came first;
   * then {@code listener} hears a {@link CacheLoaderException} instead. Whatever {@code submit}
   * throws (a closed lane) is thrown as is, and the load is forgotten.
   */
  public void start(Runnable work, CompletionListener listener, Consumer<Runnable> submit) {
    Load load = new Load(work, listener);
    loads.add(load);
    if (ended) { // end() may have missed it: whichever of the two cancels first tells the listener
      load.cancel();
      return;
    }
    try {
      submit.accept(load);
    } catch (RuntimeException e) {
      loads.remove(load);
      throw e;
    }
  }

  /**
   * Ends every load: queued ones fail their listener now, running ones are awaited up to {@code
   * bound} in all (a loader stuck longer is logged and left running). Loads started later fail at
   * once. Idempotent; a load that ends the cache from inside the loader does not wait for itself.
   */
  public void end(Duration bound) {
    ended = true;
    List<Load> running = new ArrayList<>();
    for (Load load : loads) {
      if (!load.cancel() && load.runsOn != Thread.currentThread()) {
        running.add(load);
      }
    }
    if (Deadline.after(bound, CLOCK).awaitEach(running, load -> load.finished) != null) {
      LOG.warn(
          "cache '{}' closed while its loader was still loading after {} ms; the loader is"
              + " closed under it",
          cacheName,
          bound.toMillis());
    }
  }

  /** Loads queued or running now (tests). */
  int pending() {
    return loads.size();
  }

  private final class Load implements Runnable {
    private final Runnable work;
    private final CompletionListener listener;
    // Taken by whichever comes first, the lane running the load or end() cancelling it.
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile Thread runsOn;

    Load(Runnable work, CompletionListener listener) {
      this.work = work;
      this.listener = listener;
    }

    @Override
    public void run() {
      runsOn = Thread.currentThread();
      if (!claimed.compareAndSet(false, true)) {
        return; // cancelled while queued: the listener has been told
      }
      try {
        work.run();
      } finally {
        loads.remove(this);
        finished.countDown();
      }
    }

    /** Whether this call cancelled the load (it was still queued); then tells the listener. */
    boolean cancel() {
      if (!claimed.compareAndSet(false, true)) {
        return false;
      }
      loads.remove(this);
      finished.countDown();
      try {
        listener.onException(
            new CacheLoaderException(
                "cache '"
                    + cacheName
                    + "' was closed before this loadAll started; nothing loaded"));
      } catch (RuntimeException e) {
        LOG.warn("the completion listener of a cancelled loadAll on '{}' failed", cacheName, e);
      }
      return true;
    }
  }
}
