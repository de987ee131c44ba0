package dev.mooncake.jcache.internal.event.remote;

import static dev.mooncake.jcache.internal.event.remote.KvEvent.Kind.REMOVED;
import static dev.mooncake.jcache.internal.event.remote.KvEvent.Kind.STORED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.near.NearCache;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RemoteEventsTest {
  private final AtomicLong clock = new AtomicLong(1000);
  private final OwnWrites own = new OwnWrites(clock::get, 10_000);
  private final FakeTarget target = new FakeTarget();
  private final NearCache<String> near = new NearCache<>(100);
  private final RemoteEvents events = new RemoteEvents(near, own, target, Runnable::run);

  /** Waits for deliveries in flight (a lone removal waits for a replace's stored first). */
  private void settle() throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!events.idle()) {
      assertTrue(System.nanoTime() < deadline, "deliveries did not finish");
      Thread.sleep(1);
    }
  }

  private static KvEvent stored(String key) {
    return new KvEvent(STORED, key, "default", "cpu");
  }

  private static KvEvent removed(String key) {
    return new KvEvent(REMOVED, key, "default", "cpu");
  }

  @Test
  void createsReplacesAndRemovesOfOtherJvms() throws Exception {
    target.present.add("a");
    events.onEvents(List.of(stored("a")));
    events.onEvents(List.of(removed("a"), stored("a"), new KvEvent(STORED, "a", "default", "ssd")));
    target.present.remove("a");
    events.onEvents(List.of(removed("a")));
    settle();
    assertEquals(List.of("CREATED a", "UPDATED a", "REMOVED a"), target.delivered);
  }

  @Test
  void aReplaceSplitAcrossMessagesIsOneUpdateWhenThePutLandedFirst() throws Exception {
    target.present.add("a");
    events.onEvents(List.of(removed("a"))); // delivered when a is back: first half of a replace
    events.onEvents(List.of(stored("a")));
    settle();
    assertEquals(List.of("UPDATED a"), target.delivered);
  }

  @Test
  void aLoneRemovalWaitsForTheStoredOfAReplace() throws Exception {
    target.present.add("a");
    events.onEvents(List.of(stored("a")));
    target.present.remove("a"); // the replace's remove …
    events.onEvents(List.of(removed("a"))); // … is delivered while its put is in flight
    target.present.add("a");
    events.onEvents(List.of(stored("a"))); // the put lands within the grace
    settle();
    assertEquals(List.of("CREATED a", "UPDATED a"), target.delivered);
  }

  @Test
  void ownWritesAreNotDeliveredTwice() throws Exception {
    own.expect("a", REMOVED, STORED); // a put over an absent key: only stored comes
    events.onEvents(List.of(stored("a")));
    own.expect("a", REMOVED, STORED); // a replace
    events.onEvents(List.of(removed("a"), stored("a")));
    own.expect("a", REMOVED); // a remove
    events.onEvents(List.of(removed("a")));
    assertEquals(List.of(), target.delivered);
    assertEquals(0, own.size());
    target.present.add("a");
    events.onEvents(List.of(stored("a"))); // now another JVM's
    settle();
    assertEquals(List.of("CREATED a"), target.delivered);
  }

  @Test
  void cancelledOrLapsedExpectationsDoNotSwallowRemoteChanges() throws Exception {
    target.present.add("a");
    own.expect("a", REMOVED, STORED).cancel(); // the store call failed
    events.onEvents(List.of(stored("a")));
    own.expect("b", STORED);
    clock.addAndGet(10_001); // its echo never came
    target.present.add("b");
    events.onEvents(List.of(stored("b")));
    settle();
    assertEquals(List.of("CREATED a", "CREATED b"), target.delivered);
  }

  @Test
  void bulkRemovalsSwallowAsManyUnmatchedRemovals() throws Exception {
    own.bulkStarted();
    events.onEvents(List.of(removed("x"))); // during the call
    own.bulkEnded(2);
    events.onEvents(List.of(removed("y"))); // after it, within its count
    events.onEvents(List.of(removed("z"))); // beyond: another JVM's
    settle();
    assertEquals(List.of("REMOVED z"), target.delivered);
  }

  @Test
  void everyEventInvalidatesTheNearCacheOwnOnesToo() {
    near.flush(true);
    near.install("a", "old", Long.MAX_VALUE, near.token("a"));
    own.expect("a", REMOVED, STORED);
    events.onEvents(List.of(removed("a"), stored("a")));
    assertNull(near.get("a", 0));
  }

  @Test
  void flushEmptiesTheNearCacheAndForgetsExpectations() {
    events.onFlush(EventSink.FlushReason.CONNECTED, true);
    near.install("a", "v", Long.MAX_VALUE, near.token("a"));
    own.expect("a", STORED);
    events.onFlush(EventSink.FlushReason.GAP, true);
    assertNull(near.get("a", 0));
    assertTrue(near.isLive());
    assertEquals(0, own.size());
    events.onFlush(EventSink.FlushReason.DISCONNECTED, false);
    assertFalse(near.isLive());
  }

  @Test
  void noListenersNoReads() {
    target.listeners = false;
    events.onEvents(List.of(removed("a"), stored("b")));
    assertEquals(0, target.calls);
  }

  static final class FakeTarget implements RemoteTarget {
    final Set<String> present = java.util.concurrent.ConcurrentHashMap.newKeySet();
    final List<String> delivered = new java.util.concurrent.CopyOnWriteArrayList<>();
    boolean listeners = true;
    int calls;

    @Override
    public boolean hasListeners() {
      return listeners;
    }

    @Override
    public void stored(String storeKey, boolean updated) {
      calls++;
      if (present.contains(storeKey)) {
        delivered.add((updated ? "UPDATED " : "CREATED ") + storeKey);
      }
    }

    @Override
    public void removed(String storeKey) {
      calls++;
      delivered.add("REMOVED " + storeKey);
    }

    @Override
    public boolean exists(String storeKey) {
      calls++;
      return present.contains(storeKey);
    }
  }
}
