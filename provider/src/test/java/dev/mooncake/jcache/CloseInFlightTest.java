package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.testing.Latches;
import java.io.Closeable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CompletionListenerFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Closing or destroying a cache with work in flight. A {@code loadAll} queued or running: the
 * loader is closed only after the running load ends, a queued load never reaches it, and a
 * destroyed cache keeps no entry a load wrote. (Once seen in the TCK: a load that ran after close
 * reopened the TCK loader's client connection.) An asynchronous listener's queued events: delivered
 * before the listener is closed.
 */
class CloseInFlightTest {
  private static final long WAIT_SECONDS = 10;

  private final JCacheFixture fixture = new JCacheFixture();
  private final HeldLoader loader = new HeldLoader();
  // One retrieve worker: a second loadAll waits in the lane's queue behind a held one.
  private final MooncakeCacheManager manager =
      fixture.manager(TestConfigs.withLanes(TestConfigs.inProcess(), Map.of("retrieve", 1), false));

  @AfterEach
  void close() throws Exception {
    loader.release.countDown();
    fixture.close();
  }

  @Test
  void closeWaitsForTheRunningLoadBeforeClosingTheLoader() throws Exception {
    Cache<Integer, Integer> cache = cacheWithLoader("held");
    CompletionListenerFuture loaded = startHeldLoad(cache);

    closeWhileHeld(cache::close, loader.release);
    assertEquals(List.of("load [1]", "loaded", "close"), loader.calls);
    loaded.get(WAIT_SECONDS, TimeUnit.SECONDS); // the running load completed normally
  }

  @Test
  void aQueuedLoadFailsItsListenerAndNeverReachesTheLoader() throws Exception {
    Cache<Integer, Integer> cache = cacheWithLoader("queued");
    startHeldLoad(cache);
    CompletionListenerFuture queued = new CompletionListenerFuture();
    cache.loadAll(Set.of(2), false, queued); // behind the held one on the only retrieve worker

    // Told while the first load still holds the worker: close() does not wait to cancel it.
    closeWhileHeld(
        cache::close,
        loader.release,
        () -> {
          ExecutionException failed =
              assertThrows(
                  ExecutionException.class, () -> queued.get(WAIT_SECONDS, TimeUnit.SECONDS));
          assertInstanceOf(CacheLoaderException.class, failed.getCause());
          assertTrue(failed.getCause().getMessage().contains("closed before"), failed.getMessage());
        });

    assertEquals(List.of("load [1]", "loaded", "close"), loader.calls);
  }

  @Test
  void aLoadAfterCloseBeganFailsAtOnce() throws Exception {
    Cache<Integer, Integer> cache = cacheWithLoader("late");
    startHeldLoad(cache);
    closeWhileHeld(
        cache::close,
        loader.release,
        () -> {
          assertTrue(cache.isClosed());
          assertThrows(IllegalStateException.class, () -> cache.loadAll(Set.of(3), false, null));
        });
    assertEquals(List.of("load [1]", "loaded", "close"), loader.calls);
  }

  @Test
  void destroyKeepsNoEntryFromALoadThatWasRunning() throws Exception {
    Cache<Integer, Integer> cache = cacheWithLoader("destroyed");
    CompletionListenerFuture loaded = startHeldLoad(cache);

    closeWhileHeld(() -> manager.destroyCache("destroyed"), loader.release);
    loaded.get(WAIT_SECONDS, TimeUnit.SECONDS); // the load's write, if any, is done by now

    Cache<Integer, Integer> again =
        manager.createCache(
            "destroyed",
            new MutableConfiguration<Integer, Integer>().setTypes(Integer.class, Integer.class));
    assertNull(again.get(1), "the destroyed cache kept an entry its running load wrote");
  }

  @Test
  void aLoaderThatClosesItsOwnCacheDoesNotWaitForItself() throws Exception {
    Cache<Integer, Integer> cache = cacheWithLoader("self");
    loader.onLoad = cache::close;
    loader.release.countDown();
    CompletionListenerFuture loaded = new CompletionListenerFuture();
    cache.loadAll(Set.of(1), false, loaded);

    loaded.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertTrue(cache.isClosed());
    assertEquals(List.of("load [1]", "close", "loaded"), loader.calls);
  }

  @Test
  void queuedAsynchronousEventsReachTheListenerBeforeItCloses() throws Exception {
    HeldListener listener = new HeldListener();
    Factory<CacheEntryListener<Integer, Integer>> factory = () -> listener;
    Cache<Integer, Integer> cache =
        manager.createCache(
            "listened",
            new MutableConfiguration<Integer, Integer>()
                .setTypes(Integer.class, Integer.class)
                .addCacheEntryListenerConfiguration(
                    new MutableCacheEntryListenerConfiguration<>(factory, null, false, false)));
    cache.put(1, 1);
    assertTrue(listener.entered.await(WAIT_SECONDS, TimeUnit.SECONDS), "no event delivered");
    cache.put(1, 2); // queued behind the held delivery of the first (same key: in order)

    closeWhileHeld(cache::close, listener.release);
    assertEquals(List.of("created 1", "updated 2", "close"), listener.calls);
  }

  private Cache<Integer, Integer> cacheWithLoader(String name) {
    Factory<CacheLoader<Integer, Integer>> factory = () -> loader;
    return manager.createCache(
        name,
        new MutableConfiguration<Integer, Integer>()
            .setTypes(Integer.class, Integer.class)
            .setCacheLoaderFactory(factory));
  }

  /** Loads key 1 and returns once the loader holds it (until {@code loader.release}). */
  private CompletionListenerFuture startHeldLoad(Cache<Integer, Integer> cache)
      throws InterruptedException {
    CompletionListenerFuture loaded = new CompletionListenerFuture();
    cache.loadAll(Set.of(1), false, loaded);
    assertTrue(loader.entered.await(WAIT_SECONDS, TimeUnit.SECONDS), "the load never started");
    return loaded;
  }

  /**
   * Runs {@code close} on a thread of its own, releases the held call once that thread waits (or
   * has ended), and asserts it then returns.
   */
  private static void closeWhileHeld(Runnable close, CountDownLatch release)
      throws InterruptedException {
    closeWhileHeld(close, release, () -> {});
  }

  /**
   * {@link #closeWhileHeld(Runnable, CountDownLatch)}, running {@code meanwhile} before release.
   */
  private static void closeWhileHeld(Runnable close, CountDownLatch release, Runnable meanwhile)
      throws InterruptedException {
    Thread closer = new Thread(close, "closer");
    closer.start();
    awaitBlockedOrDone(closer);
    meanwhile.run();
    release.countDown();
    closer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    assertFalse(closer.isAlive(), "close did not return once the held call ended");
  }

  /** Until {@code thread} waits (for the held load) or has ended: no sleep, no fixed time. */
  private static void awaitBlockedOrDone(Thread thread) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (thread.getState() != Thread.State.TIMED_WAITING
        && thread.getState() != Thread.State.WAITING
        && thread.getState() != Thread.State.TERMINATED) {
      assertTrue(System.nanoTime() < deadline, thread.getName() + " neither waited nor ended");
      Thread.onSpinWait();
    }
  }

  /** Records its calls; the first event's delivery waits for {@link #release}. */
  private static final class HeldListener
      implements CacheEntryCreatedListener<Integer, Integer>,
          CacheEntryUpdatedListener<Integer, Integer>,
          Closeable {
    final List<String> calls = new CopyOnWriteArrayList<>();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends Integer>> events) {
      entered.countDown();
      Latches.await(release, "the test released the held call");
      events.forEach(e -> calls.add("created " + e.getValue()));
    }

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends Integer, ? extends Integer>> events) {
      events.forEach(e -> calls.add("updated " + e.getValue()));
    }

    @Override
    public void close() {
      calls.add("close");
    }
  }

  /** Records its calls; {@code loadAll} waits for {@link #release}. */
  private static final class HeldLoader implements CacheLoader<Integer, Integer>, Closeable {
    final List<String> calls = new CopyOnWriteArrayList<>();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile Runnable onLoad = () -> {};

    @Override
    public Integer load(Integer key) {
      throw new AssertionError("only loadAll is used here");
    }

    @Override
    public Map<Integer, Integer> loadAll(Iterable<? extends Integer> keys) {
      StringBuilder seen = new StringBuilder();
      Map<Integer, Integer> values = new HashMap<>();
      for (Integer key : keys) {
        seen.append(seen.length() == 0 ? "" : ", ").append(key);
        values.put(key, key * 10);
      }
      calls.add("load [" + seen + "]");
      entered.countDown();
      onLoad.run();
      Latches.await(release, "the test released the held call");
      calls.add("loaded");
      return values;
    }

    @Override
    public void close() {
      calls.add("close");
    }
  }
}
