package dev.mooncake.jcache.internal.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.event.EventType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Event delivery: only to listeners of the event's type and through their filter, in publication
 * order per key, synchronous listeners awaited (their failures rethrown), asynchronous ones not.
 */
class EventDispatcherTest {
  /** The events' source: a cache that answers nothing (the dispatcher only names it). */
  @SuppressWarnings("unchecked")
  private static final Cache<String, String> CACHE =
      (Cache<String, String>)
          Proxy.newProxyInstance(
              EventDispatcherTest.class.getClassLoader(),
              new Class<?>[] {Cache.class},
              (proxy, method, args) ->
                  method.getReturnType() == boolean.class
                      ? Boolean.FALSE
                      : method.getName().equals("toString") ? "cache" : null);

  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final EventDispatcher<String, String> dispatcher = new EventDispatcher<>(executor);

  @AfterEach
  void close() {
    executor.shutdownNow();
  }

  /** Records what it hears; optionally blocks on a gate first, or fails. */
  static final class Recorder
      implements CacheEntryCreatedListener<String, String>,
          CacheEntryUpdatedListener<String, String> {
    final List<String> heard = Collections.synchronizedList(new ArrayList<>());
    volatile CountDownLatch gate;
    volatile RuntimeException failure;
    final CountDownLatch received = new CountDownLatch(20);

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      hear(events);
    }

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      hear(events);
    }

    private void hear(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      try {
        if (gate != null) {
          gate.await(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (failure != null) {
        throw failure;
      }
      for (CacheEntryEvent<? extends String, ? extends String> e : events) {
        heard.add(
            e.getEventType()
                + " "
                + e.getKey()
                + "="
                + e.getValue()
                + (e.isOldValueAvailable() ? " was " + e.getOldValue() : ""));
        received.countDown();
      }
    }
  }

  private MutableCacheEntryListenerConfiguration<String, String> register(
      CacheEntryListener<String, String> listener,
      CacheEntryEventFilter<String, String> filter,
      boolean synchronous) {
    MutableCacheEntryListenerConfiguration<String, String> configuration =
        new MutableCacheEntryListenerConfiguration<>(
            new FactoryBuilder.SingletonFactory<>(listener),
            filter == null ? null : new FactoryBuilder.SingletonFactory<>(filter),
            true,
            synchronous);
    dispatcher.register(configuration);
    return configuration;
  }

  @Test
  void eventsGoToListenersOfTheirTypeThroughTheirFilter() {
    Recorder recorder = new Recorder();
    register(recorder, event -> !event.getKey().startsWith("skip"), true);
    assertTrue(dispatcher.hasListenerFor(EventType.CREATED));
    assertTrue(dispatcher.hasListenerFor(EventType.UPDATED));
    assertFalse(dispatcher.hasListenerFor(EventType.REMOVED));
    dispatcher.created(CACHE, "a", "1");
    dispatcher.created(CACHE, "skip-me", "2");
    dispatcher.updated(CACHE, "a", "3", "1");
    dispatcher.removed(CACHE, "a", "3"); // nobody listens for removals
    dispatcher.awaitSynchronous();
    assertEquals(List.of("CREATED a=1", "UPDATED a=3 was 1"), recorder.heard);
  }

  @Test
  void eventsOfOneKeyArriveInPublicationOrder() throws Exception {
    Recorder slow = new Recorder();
    slow.gate = new CountDownLatch(1);
    register(slow, null, false);
    for (int i = 0; i < 20; i++) {
      dispatcher.updated(CACHE, "k", "v" + i, "v" + (i - 1));
    }
    assertEquals(List.of(), slow.heard, "delivered before the gate opened");
    slow.gate.countDown();
    assertTrue(slow.received.await(5, TimeUnit.SECONDS), "not every event arrived");
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      expected.add("UPDATED k=v" + i + " was v" + (i - 1));
    }
    assertEquals(expected, slow.heard);
  }

  @Test
  void aSynchronousListenersFailureIsRethrownAndAnAsynchronousOneIsNot() {
    Recorder failingSync = new Recorder();
    failingSync.failure = new IllegalStateException("listener broke");
    register(failingSync, null, true);
    dispatcher.created(CACHE, "a", "1");
    CacheEntryListenerException e =
        assertThrows(CacheEntryListenerException.class, dispatcher::awaitSynchronous);
    assertSame(failingSync.failure, e.getCause());
    dispatcher.awaitSynchronous(); // nothing pending any more
  }

  @Test
  void ignoredDeliveriesAreNotAwaited() {
    Recorder blocked = new Recorder();
    blocked.gate = new CountDownLatch(1); // never opened before the end
    register(blocked, null, true);
    dispatcher.created(CACHE, "a", "1");
    dispatcher.ignoreSynchronous();
    // Returns at once: the pending delivery was dropped. Without that it would wait for the
    // delivery, which hears the event after the gate's 5 s (on this thread: pending is per thread).
    long start = System.nanoTime();
    dispatcher.awaitSynchronous();
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertEquals(List.of(), blocked.heard, "the ignored delivery was awaited");
    assertTrue(waitedMillis < 4_000, "waited " + waitedMillis + " ms for an ignored delivery");
    blocked.gate.countDown();
  }

  @Test
  void deregisteringHandsBackTheListenerAndStopsDelivery() {
    Recorder recorder = new Recorder();
    MutableCacheEntryListenerConfiguration<String, String> configuration =
        register(recorder, null, true);
    assertSame(recorder, dispatcher.deregister(configuration));
    assertFalse(dispatcher.hasRegistrations());
    dispatcher.created(CACHE, "a", "1");
    dispatcher.awaitSynchronous();
    assertEquals(List.of(), recorder.heard);
  }

  @Test
  void retireDeliversWhatIsQueuedThenDropsLaterEvents() {
    Recorder slow = new Recorder();
    slow.gate = new CountDownLatch(1);
    register(slow, null, false);
    dispatcher.created(CACHE, "a", "1");
    dispatcher.updated(CACHE, "a", "2", "1"); // queued behind the held one
    slow.gate.countDown();

    dispatcher.retire(Duration.ofSeconds(5));
    assertEquals(List.of("CREATED a=1", "UPDATED a=2 was 1"), slow.heard, "retire did not wait");
    dispatcher.created(CACHE, "b", "3"); // e.g. a remote event arriving late
    dispatcher.retire(Duration.ofSeconds(5));
    assertEquals(2, slow.heard.size(), "an event reached a retired listener");
  }

  @Test
  void retireFromInsideAListenerDoesNotWaitForItself() throws Exception {
    CountDownLatch retired = new CountDownLatch(1);
    CacheEntryCreatedListener<String, String> closesItsCache =
        events -> {
          dispatcher.retire(Duration.ofSeconds(30));
          retired.countDown();
        };
    register(closesItsCache, null, false);
    dispatcher.created(CACHE, "a", "1");
    assertTrue(retired.await(5, TimeUnit.SECONDS), "retire() waited for its own delivery");
  }
}
