package dev.mooncake.jcache.internal.entry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.ScriptedStore;
import dev.mooncake.jcache.internal.calls.BoundedCalls;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.ClusterKeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.SegmentLockStore;
import dev.mooncake.jcache.internal.time.Deadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The remembered copy of lock keeping ({@link RememberedEntry}, docs/lock-keeping.md): a step on a
 * key whose cluster lock this JVM kept since its own write uses that write's entry instead of a
 * read, removing first, so a write costs remove + put; an entry Mooncake dropped meanwhile is never
 * seen; any other change of the key forgets the copy; a step that keeps or fails puts the entry
 * back; a step nested on the key sees the entry, not the gap.
 */
class RememberedEntryTest {
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final ScriptedStorage fixture = new ScriptedStorage("remembered", Duration.ofSeconds(1));
  private final ScriptedStore store = fixture.store;
  private final AtomicLong lockClock = new AtomicLong(1_000_000_000L);
  private final List<String> events = new ArrayList<>();

  @AfterEach
  void close() {
    fixture.close();
  }

  /** Cluster locks over the fixture's store, kept after their operations unless {@code idle} 0. */
  private ClusterKeyLocks clusterLocks(Duration idle) {
    return new ClusterKeyLocks(
        new SegmentLockStore(store, new OwnStore(store, "remembered-test:1")),
        "jvm-remembering",
        LEASE,
        Duration.ofSeconds(2),
        lockClock::get,
        lockClock::addAndGet,
        new BoundedCalls("remembered-test", 4),
        Duration.ofSeconds(1),
        idle);
  }

  private EntryMap<String> map(KeyLocks locks) {
    return new EntryMap<>(
        fixture.storage,
        locks,
        fixture.ticker,
        k -> k,
        new EntryMap.Listener<>() {
          @Override
          public void written(String key, Object value, StoredEntry previous, boolean unread) {
            events.add("written " + key + "=" + value + " over " + shown(previous));
          }

          @Override
          public void removed(String key, StoredEntry previous) {
            events.add("removed " + key + "=" + previous.value());
          }

          @Override
          public void expired(String key, StoredEntry entry) {
            events.add("expired " + key + "=" + entry.value());
          }
        });
  }

  private static String shown(StoredEntry entry) {
    return entry == null ? "nothing" : String.valueOf(entry.value());
  }

  private final EntryMap<String> kept = map(clusterLocks(Duration.ofSeconds(10)));

  private static EntryMap.Remapping write(Object value) {
    return current -> Decision.write(value, ExpiryTimes.ETERNAL);
  }

  private static EntryMap.Remapping appending(String suffix) {
    return current ->
        Decision.write(
            (current == null ? "" : (String) current.value()) + suffix, ExpiryTimes.ETERNAL);
  }

  private Object stored() {
    StoredEntry entry = fixture.storage.read("k", Deadline.none());
    return entry == null ? null : entry.value();
  }

  /** Writes "v1" under a lock that is then kept, and clears the calls and events. */
  private void writeKept(EntryMap<String> map) {
    map.compute("k", "k", write("v1"), Deadline.none());
    store.clearCalls();
    events.clear();
  }

  @Test
  void aWriteOverAKeyItsWriterKeptIsTheEntrysRemoveAndPut() {
    writeKept(kept);
    for (int i = 2; i <= 4; i++) {
      Outcome outcome = kept.computeRemembered("k", "k", appending("+"), Deadline.none());
      assertTrue(outcome.changed());
    }
    assertEquals(
        List.of("remove", "put", "remove", "put", "remove", "put"),
        store.calls(),
        "each step on the kept key: its remove and its put, no read, no lock call");
    assertEquals("v1+++", stored());
    assertEquals(
        List.of("written k=v1+ over v1", "written k=v1++ over v1+", "written k=v1+++ over v1++"),
        events,
        "each step saw the entry the one before wrote");
  }

  @Test
  void anEntryMooncakeDroppedDoesNotComeBackThroughTheCopy() {
    writeKept(kept);
    store.remove("k", true, Deadline.none()); // evicted, or gone with a segment
    store.clearCalls();
    AtomicReference<StoredEntry> seen =
        new AtomicReference<>(new StoredEntry((byte) 0, 0, null, null));
    kept.computeRemembered(
        "k",
        "k",
        current -> {
          seen.set(current);
          return Decision.KEEP;
        },
        Deadline.none());
    assertNull(seen.get(), "the step saw the dropped entry");
    assertEquals(List.of("remove"), store.calls(), "the remove answered absent; nothing put back");
    assertNull(stored(), "a dropped entry came back");

    writeKept(kept);
    store.remove("k", true, Deadline.none());
    store.clearCalls();
    kept.computeRemembered("k", "k", appending("fresh"), Deadline.none());
    assertEquals("fresh", stored(), "the write was decided on the remembered entry");
    assertEquals(List.of("written k=fresh over nothing"), events);
  }

  @Test
  void aStepThatKeepsTheEntryPutsItBackAndTheNextStepReads() {
    writeKept(kept);
    kept.computeRemembered("k", "k", current -> Decision.KEEP, Deadline.none());
    assertEquals(List.of("remove", "put"), store.calls(), "the entry put back");
    assertEquals("v1", stored());
    store.clearCalls();
    kept.computeRemembered("k", "k", current -> Decision.KEEP, Deadline.none());
    assertEquals(List.of("getInto"), store.calls(), "a kept entry is not remembered again");
    assertEquals(List.of(), events);
  }

  @Test
  void aRemovalIsOneRemove() {
    writeKept(kept);
    Outcome outcome = kept.computeRemembered("k", "k", current -> Decision.REMOVE, Deadline.none());
    assertTrue(outcome.changed());
    assertEquals(List.of("remove"), store.calls());
    assertNull(stored());
    assertEquals(List.of("removed k=v1"), events);
    store.clearCalls();
    Outcome again = kept.computeRemembered("k", "k", current -> Decision.REMOVE, Deadline.none());
    assertEquals(false, again.changed(), "nothing is remembered after a removal: it read absent");
    assertEquals(List.of("getInto"), store.calls());
  }

  @Test
  void aStepThatFailsPutsTheEntryBack() {
    writeKept(kept);
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                kept.computeRemembered(
                    "k",
                    "k",
                    current -> {
                      throw new IllegalStateException("processor failed");
                    },
                    Deadline.none()));
    assertEquals("processor failed", e.getMessage());
    assertEquals(List.of("remove", "put"), store.calls());
    assertEquals("v1", stored(), "the failed step lost the entry");
  }

  @Test
  void anyOtherChangeOfTheKeyForgetsTheCopy() {
    writeKept(kept);
    kept.putAll(
        List.of(new EntryMap.Put<>("k", "k", "v2")),
        false,
        current -> ExpiryTimes.ETERNAL,
        Deadline.none());
    store.clearCalls();
    kept.computeRemembered("k", "k", appending("+"), Deadline.none());
    assertEquals("v2+", stored(), "a step used a copy older than the batch's write");
    assertEquals("getInto", store.calls().get(0), "the step read: " + store.calls());

    writeKept(kept);
    kept.compute("k", "k", current -> Decision.REMOVE, Deadline.none()); // read, then removed
    store.clearCalls();
    kept.computeRemembered("k", "k", appending("new"), Deadline.none());
    assertEquals(List.of("getInto", "put"), store.calls(), "read absent, then created");
    assertEquals("new", stored());
  }

  @Test
  void withoutKeepingEveryStepReads() {
    EntryMap<String> released = map(clusterLocks(Duration.ZERO));
    writeKept(released);
    released.computeRemembered("k", "k", appending("+"), Deadline.none());
    assertEquals("v1+", stored());
    assertTrue(store.calls().contains("batchGetInto"), "the lock's read-back: " + store.calls());
  }

  @Test
  void aCallersByteArrayChangedAfterItsPutDoesNotChangeTheCopy() {
    byte[] value = {1, 2, 3};
    kept.compute("k", "k", write(value), Deadline.none());
    value[0] = 9; // the caller's array, after the put
    AtomicReference<Object> seen = new AtomicReference<>();
    kept.computeRemembered(
        "k",
        "k",
        current -> {
          byte[] given = (byte[]) current.copyOfValue();
          seen.set(given.clone());
          given[1] = 9; // the step's own copy, changed: the entry put back must not be
          return Decision.KEEP;
        },
        Deadline.none());
    assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) seen.get());
    assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) stored());
  }

  @Test
  void aStepNestedOnTheKeySeesTheEntryNotTheGap() {
    writeKept(kept);
    AtomicReference<StoredEntry> nested = new AtomicReference<>();
    kept.computeRemembered(
        "k",
        "k",
        current -> {
          nested.set(kept.get("k", "k", Deadline.none())); // an entry processor reading its key
          return Decision.write(current.value() + "+", ExpiryTimes.ETERNAL);
        },
        Deadline.none());
    assertEquals("v1", nested.get().value(), "the nested read saw the removed key as absent");
    assertEquals("v1+", stored());

    // A nested step that writes the key: the outer step's write then replaces that.
    store.clearCalls();
    kept.computeRemembered("k", "k", writingOverANestedWrite(), Deadline.none());
    assertEquals("outer", stored());
    store.clearCalls();
    kept.computeRemembered("k", "k", appending("+"), Deadline.none());
    assertEquals(List.of("remove", "put"), store.calls());
    assertEquals("outer+", stored(), "the copy was the nested step's, not the outer's write");
  }

  /** An outer step that writes "outer" after a step nested in it wrote "inner". */
  private EntryMap.Remapping writingOverANestedWrite() {
    return current -> {
      kept.compute("k", "k", write("inner"), Deadline.none());
      return Decision.write("outer", ExpiryTimes.ETERNAL);
    };
  }

  @Test
  void aStepThatSawNoEntryStillReplacesWhatANestedStepWrote() {
    writeKept(kept);
    store.remove("k", true, Deadline.none()); // evicted: the outer step sees no entry
    kept.computeRemembered("k", "k", writingOverANestedWrite(), Deadline.none());
    assertEquals("outer", stored(), "the outer step's put went into an occupied key, and was lost");
  }

  @Test
  void aCopyWrittenByAnotherCacheIsReadWithThisCachesTypeCheck() {
    EntryStorage strings =
        new EntryStorage(
            "strings-only",
            store,
            new dev.mooncake.jcache.internal.lane.Lanes(1, java.util.Map.of(), false, false, "t"),
            ValueTypeCodec.of(
                new dev.mooncake.jcache.internal.codec.TypedCodec(
                    new dev.mooncake.jcache.internal.codec.SerializationCodec(
                        new dev.mooncake.jcache.internal.codec.DeserializationFilter(List.of()),
                        getClass().getClassLoader())),
                String.class,
                "strings-only"),
            fixture.ticker,
            Duration.ofSeconds(1),
            String.class);
    ClusterKeyLocks locks = clusterLocks(Duration.ofSeconds(10));
    map(locks).compute("k", "k", write(42L), Deadline.none()); // another cache's Long
    EntryMap<String> stringCache =
        new EntryMap<>(
            strings,
            locks,
            fixture.ticker,
            k -> k,
            new EntryMap.Listener<>() {
              @Override
              public void written(String key, Object value, StoredEntry previous, boolean unread) {}

              @Override
              public void removed(String key, StoredEntry previous) {}

              @Override
              public void expired(String key, StoredEntry entry) {}
            });
    assertThrows(
        javax.cache.CacheException.class,
        () ->
            stringCache.computeRemembered(
                "k",
                "k",
                current -> Decision.write(current.value() + "!", ExpiryTimes.ETERNAL),
                Deadline.none()));
    assertEquals(42L, stored(), "the refused step lost the other cache's entry");
  }

  @Test
  void theCopyIsOnlyTheKeptLocksOwn() {
    ClusterKeyLocks locks = clusterLocks(Duration.ofSeconds(10));
    EntryMap<String> map = map(locks);
    map.compute("k", "k", write("v1"), Deadline.none());
    try (LockedKey other = new EntryLocks(fixture.storage, locks).lock("j", Deadline.none())) {
      assertNull(other.remembered(), "another key's lock carried a copy");
    }
    EntryLocks entryLocks = new EntryLocks(fixture.storage, locks);
    try (LockedKey outer = entryLocks.lock("k", Deadline.none())) {
      assertSame(outer.remembered().getClass(), StoredEntry.class);
      try (LockedKey reentered = entryLocks.lock("k", Deadline.none())) {
        assertNull(reentered.remembered(), "re-entry proved nothing, so it uses no copy");
      }
    }
  }
}
