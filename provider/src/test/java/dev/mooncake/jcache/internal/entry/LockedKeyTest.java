package dev.mooncake.jcache.internal.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.ScriptedStore;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.lock.LocalKeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.ClusterKeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.SegmentLockStore;
import dev.mooncake.jcache.internal.lock.cluster.TestLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import javax.cache.CacheException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A locked key's mutators act only while its lock holds: once released they refuse with an {@link
 * IllegalStateException}, once a cluster lock's lease ran out with a {@link CacheException}, both
 * before any store call. Whether a put after a remove is checked follows from how the lock was
 * taken, never from the caller.
 */
class LockedKeyTest {
  private static final Duration LEASE = Duration.ofSeconds(5);

  private final ScriptedStorage fixture = new ScriptedStorage("locked-test", Duration.ofSeconds(1));
  private final ScriptedStore store = fixture.store;
  private final EntryStorage storage = fixture.storage;
  private final AtomicLong lockClock = new AtomicLong(1_000_000_000L);
  private final ClusterKeyLocks cluster =
      TestLocks.on(
          new SegmentLockStore(store, new OwnStore(store, "locked-test:1")),
          "jvm-test",
          LEASE,
          Duration.ofSeconds(2),
          lockClock::get,
          lockClock::addAndGet);

  @AfterEach
  void close() {
    fixture.close();
  }

  /**
   * Every mutator of a locked key (EntryStorage's, given the key), each as one attempt (the entry:
   * what it read while held).
   */
  private final List<BiConsumer<LockedKey, StoredEntry>> mutators =
      List.of(
          (k, entry) -> storage.write(k, "new", ExpiryTimes.ETERNAL, false, Deadline.none()),
          (k, entry) -> storage.replace(k, "new", ExpiryTimes.ETERNAL, Deadline.none()),
          (k, entry) -> storage.rewrite(k, entry, 1234L, Deadline.none()),
          (k, entry) -> storage.delete(k, Deadline.none()),
          (k, entry) ->
              storage.writeInPlace(k, inPlace(), ExpiryTimes.ETERNAL, false, Deadline.none()));

  private static ByteBuffer inPlace() {
    ByteBuffer buffer = ByteBuffer.allocateDirect(ValueHeader.OVERHEAD + 3);
    return buffer.position(ValueHeader.SIZE).limit(ValueHeader.SIZE + 3);
  }

  private void writeOld() {
    try (LockedKey locked =
        new EntryLocks(storage, new LocalKeyLocks()).lock("k", Deadline.none())) {
      storage.write(locked, "old", ExpiryTimes.ETERNAL, true, Deadline.none());
    }
  }

  private Object value() {
    return storage.read("k", Deadline.none()).value();
  }

  @Test
  void aReleasedKeyRefusesEveryMutatorBeforeAnyStoreCall() {
    writeOld();
    for (BiConsumer<LockedKey, StoredEntry> mutator : mutators) {
      LockedKey locked = new EntryLocks(storage, new LocalKeyLocks()).lock("k", Deadline.none());
      StoredEntry entry = locked.entry();
      assertEquals("old", entry.value());
      locked.close();
      store.clearCalls();
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> mutator.accept(locked, entry));
      assertTrue(e.getMessage().contains("store key 'k'"), e.getMessage());
      assertTrue(e.getMessage().contains("lock was released"), e.getMessage());
      assertEquals(List.of(), mutationsOf(store.calls()), "a mutation went out after release");
    }
    assertEquals("old", value());
  }

  @Test
  void aKeyWhoseClusterLeaseRanOutRefusesEveryMutatorBeforeAnyStoreCall() {
    writeOld();
    for (BiConsumer<LockedKey, StoredEntry> mutator : mutators) {
      try (LockedKey locked = new EntryLocks(storage, cluster).lock("k", Deadline.none())) {
        assertTrue(locked.provedExclusive(), "the cluster lock's read-back proved nothing");
        StoredEntry entry = locked.entry();
        assertEquals("old", entry.value(), "the entry that rode with the lock");
        lockClock.addAndGet(LEASE.toNanos()); // the lease runs out while the step runs
        store.clearCalls();
        CacheException e = assertThrows(CacheException.class, () -> mutator.accept(locked, entry));
        assertTrue(e.getMessage().contains("lock_lease_ms"), e.getMessage());
        assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
        assertEquals(List.of(), mutationsOf(store.calls()), "a mutation went out after the lease");
      }
    }
    assertEquals("old", value());
  }

  @Test
  void onlyALockThatProvedItselfExclusiveSkipsTheDroppedPutCheck() {
    writeOld();
    EntryLocks clusterLocks = new EntryLocks(storage, cluster);
    try (LockedKey proved = clusterLocks.lock("k", Deadline.none())) {
      assertTrue(proved.provedExclusive());
      try (LockedKey reentered = clusterLocks.lock("k", Deadline.none())) {
        assertFalse(reentered.provedExclusive(), "re-entry proved nothing by itself");
        store.clearCalls();
        storage.write(reentered, "checked", ExpiryTimes.ETERNAL, false, Deadline.none());
        assertEquals(List.of("remove", "put", "getSize"), store.calls());
      }
      store.clearCalls();
      storage.write(proved, "unchecked", ExpiryTimes.ETERNAL, false, Deadline.none());
      assertEquals(List.of("remove", "put"), store.calls());
    }
    try (LockedKey local =
        new EntryLocks(storage, new LocalKeyLocks()).lock("k", Deadline.none())) {
      assertFalse(local.provedExclusive(), "a lock of this JVM proves nothing across JVMs");
      store.clearCalls();
      storage.write(local, "local", ExpiryTimes.ETERNAL, false, Deadline.none());
      assertEquals(List.of("remove", "put", "getSize"), store.calls());
    }
    assertEquals("local", value());
  }

  /**
   * A replace is a remove then a put: a put refused after the remove would lose the entry, so a
   * proof older than half a lease is renewed (one read of the lock) before the remove, and the put
   * then stands on the renewed proof even past the first lease.
   */
  @Test
  void aReplaceRenewsAHalfALeaseOldProofBeforeItsRemove() {
    writeOld();
    try (LockedKey locked = new EntryLocks(storage, cluster).lock("k", Deadline.none())) {
      lockClock.addAndGet(LEASE.toNanos() * 3 / 5); // the step ran over half a lease
      store.clearCalls();
      storage.write(locked, "new", ExpiryTimes.ETERNAL, false, Deadline.none());
      assertEquals(List.of("getInto", "remove", "put"), store.calls(), "no renewal first");
      lockClock.addAndGet(LEASE.toNanos() * 9 / 20); // past the first proof's lease
      store.clearCalls();
      storage.write(locked, "newer", ExpiryTimes.ETERNAL, false, Deadline.none());
      assertEquals(List.of("remove", "put"), store.calls(), "the renewal did not renew");
    }
    assertEquals("newer", value());
  }

  @Test
  void aReplaceWhoseLockIsNoLongerOursRemovesNothing() {
    writeOld();
    try (LockedKey locked = new EntryLocks(storage, cluster).lock("k", Deadline.none())) {
      lockClock.addAndGet(LEASE.toNanos() / 2);
      // the master lost it (a restart)
      assertEquals(0, store.remove("mcjlock/other/k", true, Deadline.none()));
      store.clearCalls();
      CacheException e =
          assertThrows(
              CacheException.class,
              () -> storage.write(locked, "new", ExpiryTimes.ETERNAL, false, Deadline.none()));
      assertTrue(e.getMessage().contains("could not be: it is gone"), e.getMessage());
      assertEquals(List.of(), mutationsOf(store.calls()), "a mutation went out unproved");
      assertThrows(CacheException.class, locked::ensureHeld, "a lost lock was trusted again");
    }
    assertEquals("old", value());
  }

  /** Cluster locks that keep each lock after its operation (lock_keep_idle_ms). */
  private ClusterKeyLocks keeping() {
    return new ClusterKeyLocks(
        new SegmentLockStore(store, new OwnStore(store, "locked-test:1")),
        "jvm-keeping",
        LEASE,
        Duration.ofSeconds(2),
        lockClock::get,
        lockClock::addAndGet,
        new dev.mooncake.jcache.internal.calls.BoundedCalls("locked-test", 4),
        Duration.ofSeconds(1),
        Duration.ofSeconds(1));
  }

  @Test
  void aKeptClusterLockSkipsTheCheckReadsLazilyAndRefusesAReadThatReturnedAfterItsLease() {
    writeOld();
    EntryLocks kept = new EntryLocks(storage, keeping());
    kept.lock("k", Deadline.none()).close(); // taken, then kept
    store.clearCalls();
    try (LockedKey again = kept.lock("k", Deadline.none())) {
      assertEquals(List.of(), store.calls(), "a kept lock went to the store");
      assertTrue(again.provedExclusive(), "a kept lock is proved and held since");
      assertEquals("old", again.entry().value(), "read under the kept lock");
      storage.write(again, "unchecked", ExpiryTimes.ETERNAL, false, Deadline.none());
    }
    assertEquals(List.of("getInto", "remove", "put"), store.calls());
    try (LockedKey late = kept.lock("k", Deadline.none())) {
      lockClock.addAndGet(LEASE.toNanos()); // paused between the lock call and its read
      CacheException e = assertThrows(CacheException.class, late::entry);
      assertTrue(e.getMessage().contains("lock_lease_ms"), e.getMessage());
    }
  }

  /** The store calls that change something. */
  private static List<String> mutationsOf(List<String> calls) {
    return calls.stream()
        .filter(c -> List.of("put", "batchPut", "remove", "removeByRegex").contains(c))
        .toList();
  }
}
