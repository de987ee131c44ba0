package dev.mooncake.jcache.internal.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.ScriptedStore;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import javax.cache.CacheException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The entry layer's answers to a store that is busy or misbehaves, on a scripted store over the
 * in-process one: transient codes on the remove/put path are retried within the operation timeout
 * (time advanced by the store double, never slept), a put the store drops is detected and repeated,
 * a too-small read buffer is grown, and a final failure names cache, key and status.
 */
class EntryStorageTest {
  private static final int NOT_READY = StoreStatus.REPLICA_IS_NOT_READY.code();
  private static final int HAS_LEASE = StoreStatus.OBJECT_HAS_LEASE.code();

  private final ScriptedStorage fixture = new ScriptedStorage("entry-test", Duration.ofMillis(500));
  private final FakeTicker ticker = fixture.ticker;
  private final ScriptedStore store = fixture.store;
  private final EntryStorage storage = fixture.storage;

  @AfterEach
  void close() {
    fixture.close();
  }

  private Object read(String key) {
    StoredEntry entry = storage.read(key, storage.deadline());
    return entry == null ? null : entry.value();
  }

  @Test
  void aReadRetryLoopStopsAtTheOperationsDeadlineNotAFreshTimeout() {
    storage.write(
        TestLocks.unproved(storage, "k"), "v", ExpiryTimes.ETERNAL, true, storage.deadline());
    long[] expired = new long[1000];
    java.util.Arrays.fill(expired, StoreStatus.LEASE_EXPIRED.code()); // -707: retried by deadline
    store.script("getInto", expired).advancing(ticker, 50);
    Deadline deadline = storage.deadline(); // 500 ms
    ticker.advanceMillis(300); // the operation's lock and earlier calls took 300 ms of it
    store.clearCalls();
    assertThrows(CacheException.class, () -> storage.read("k", deadline));
    long reads = store.count("getInto");
    // 200 ms left at 50 ms a call: 4 or 5 reads; a fresh 500 ms would have allowed 10 or 11.
    assertTrue(reads >= 4 && reads <= 5, "read " + reads + " times in the 200 ms left");
    for (long remaining : store.remainingMillis("getInto")) {
      assertTrue(remaining <= 200, "a read was given " + remaining + " ms, not what was left");
    }
  }

  @Test
  void aRemoveAnsweringNotReadyOrLeasedIsRetried() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    store.script("remove", NOT_READY, HAS_LEASE, NOT_READY);
    storage.write(
        TestLocks.unproved(storage, "k"), "new", ExpiryTimes.ETERNAL, false, storage.deadline());
    assertEquals("new", read("k"));
    assertEquals(4, store.count("remove"), "three transient answers, then the remove");
  }

  @Test
  void aRemoveStillBusyAfterTheTimeoutFailsNamingCacheKeyAndStatus() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    long[] busy = new long[1000];
    java.util.Arrays.fill(busy, NOT_READY);
    store.script("remove", busy).advancing(ticker, 50);
    CacheException e =
        assertThrows(
            CacheException.class,
            () ->
                storage.write(
                    TestLocks.unproved(storage, "k"),
                    "new",
                    ExpiryTimes.ETERNAL,
                    false,
                    storage.deadline()));
    assertTrue(e.getMessage().contains("remove on cache 'orders'"), e.getMessage());
    assertTrue(e.getMessage().contains("store key 'k'"), e.getMessage());
    assertTrue(e.getMessage().contains("-703 REPLICA_IS_NOT_READY"), e.getMessage());
    assertTrue(e.getMessage().contains("deadline (operation_timeout_ms 500, "), e.getMessage());
    assertTrue(e.getMessage().contains(" ms spent)"), e.getMessage());
    long calls = store.count("remove");
    assertTrue(calls >= 10 && calls <= 12, "retried for 500 ms at 50 ms a call: " + calls);
    assertEquals("old", read("k"), "a failed replace left the old value");
  }

  @Test
  void aLockLostWhileRetryingStopsTheRetriesBeforeTheNextMutation() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    store.script("remove", NOT_READY, NOT_READY, NOT_READY, NOT_READY);
    java.util.concurrent.atomic.AtomicInteger asked =
        new java.util.concurrent.atomic.AtomicInteger();
    KeyLocks.Held losing =
        new KeyLocks.Held() {
          @Override
          public void ensureHeld() {
            if (asked.incrementAndGet() > 2) {
              throw new CacheException("lease on 'k' lost");
            }
          }

          @Override
          public void ensureHeldToReplace(Deadline deadline) {
            ensureHeld();
          }

          @Override
          public KeyLocks.Memo memo() {
            return null;
          }

          @Override
          public void close() {}
        };
    CacheException e =
        assertThrows(
            CacheException.class,
            () ->
                storage.write(
                    TestLocks.held(storage, "k", losing),
                    "new",
                    ExpiryTimes.ETERNAL,
                    false,
                    storage.deadline()));
    assertEquals("lease on 'k' lost", e.getMessage());
    assertEquals(2, store.count("remove"), "a mutation went out after the lock was lost");
    assertEquals(1, store.count("put"));
  }

  @Test
  void aPutRetriesExactlyTheCodesStoreStatusCallsTransientForWrites() {
    for (StoreStatus status : StoreStatus.values()) {
      int code = status.code();
      if (code == 0) {
        continue;
      }
      String key = "put" + code;
      storage.write(
          TestLocks.unproved(storage, key), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
      store.script("put", code);
      if (StoreStatus.isTransientForWrites(code)) {
        storage.write(
            TestLocks.unproved(storage, key),
            "new",
            ExpiryTimes.ETERNAL,
            false,
            storage.deadline());
        assertEquals("new", read(key), status + " was retried");
      } else {
        CacheException e =
            assertThrows(
                CacheException.class,
                () ->
                    storage.write(
                        TestLocks.unproved(storage, key),
                        "new",
                        ExpiryTimes.ETERNAL,
                        false,
                        storage.deadline()),
                status.name());
        assertTrue(e.getMessage().startsWith("put on cache 'orders'"), e.getMessage());
        assertTrue(e.getMessage().contains(StoreStatus.describe(code)), e.getMessage());
        assertFalse(e.getMessage().contains("still after"), status + " was retried");
      }
    }
  }

  @Test
  void aRemoveRetriesExactlyTheCodesStoreStatusCallsTransientForWrites() {
    for (StoreStatus status : StoreStatus.values()) {
      int code = status.code();
      if (code == 0 || status == StoreStatus.OBJECT_NOT_FOUND) {
        continue; // answers, not failures: removed, absent
      }
      String key = "remove" + code;
      storage.write(
          TestLocks.unproved(storage, key), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
      store.script("remove", code);
      if (StoreStatus.isTransientForWrites(code)) {
        storage.write(
            TestLocks.unproved(storage, key),
            "new",
            ExpiryTimes.ETERNAL,
            false,
            storage.deadline());
        assertEquals("new", read(key), status + " was retried");
      } else {
        CacheException e =
            assertThrows(
                CacheException.class,
                () ->
                    storage.write(
                        TestLocks.unproved(storage, key),
                        "new",
                        ExpiryTimes.ETERNAL,
                        false,
                        storage.deadline()),
                status.name());
        assertTrue(e.getMessage().startsWith("remove on cache 'orders'"), e.getMessage());
        assertTrue(e.getMessage().contains(StoreStatus.describe(code)), e.getMessage());
        assertEquals("old", read(key), "a failed replace left the old value");
      }
    }
  }

  @Test
  void aPutAnsweringNotReadyIsRetriedWithRemoveThenPut() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    store.script("put", NOT_READY);
    storage.write(
        TestLocks.unproved(storage, "k"), "new", ExpiryTimes.ETERNAL, false, storage.deadline());
    assertEquals("new", read("k"));
  }

  @Test
  void aPutTheStoreDropsAfterARemoveIsDetectedAndRepeated() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    store.script("put", ScriptedStore.DROP); // answers OK, stores nothing
    storage.write(
        TestLocks.unproved(storage, "k"), "new", ExpiryTimes.ETERNAL, false, storage.deadline());
    assertEquals("new", read("k"), "the dropped put left the key absent");
    assertEquals(
        List.of("remove", "put", "getSize", "remove", "put", "getSize"),
        store.calls().subList(1, 7));
  }

  @Test
  void aPutThatKeepsBeingDroppedFailsAfterTheTimeout() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    long[] drops = new long[1000];
    java.util.Arrays.fill(drops, ScriptedStore.DROP);
    store.script("put", drops).advancing(ticker, 50);
    CacheException e =
        assertThrows(
            CacheException.class,
            () ->
                storage.write(
                    TestLocks.unproved(storage, "k"),
                    "new",
                    ExpiryTimes.ETERNAL,
                    false,
                    storage.deadline()));
    assertTrue(
        e.getMessage().contains("put on cache 'orders' was dropped for store key 'k'"),
        e.getMessage());
    assertTrue(e.getMessage().contains("-704 OBJECT_NOT_FOUND"), e.getMessage());
  }

  @Test
  void aCreateIsNotCheckedAndCostsOneCall() {
    storage.write(
        TestLocks.unproved(storage, "k"), "v", ExpiryTimes.ETERNAL, true, storage.deadline());
    assertEquals(List.of("put"), store.calls());
  }

  @Test
  void aReplacePutIsCheckedOnce() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    storage.write(
        TestLocks.unproved(storage, "k"), "new", ExpiryTimes.ETERNAL, false, storage.deadline());
    assertEquals(List.of("put", "remove", "put", "getSize"), store.calls());
  }

  @Test
  void anUnreadReplaceTellsWhetherSomethingWasThere() {
    try (EntryStorage.EntryRead unanswered = storage.entryRead("k", storage.deadline())) {
      assertFalse(
          storage.replace(
              new LockedKey(unanswered, TestLocks.ALWAYS_HELD),
              "first",
              ExpiryTimes.ETERNAL,
              storage.deadline()));
      assertTrue(
          storage.replace(
              new LockedKey(unanswered, TestLocks.ALWAYS_HELD),
              "second",
              ExpiryTimes.ETERNAL,
              storage.deadline()));
    }
    assertEquals("second", read("k"));
    assertEquals(
        List.of("remove", "put", "remove", "put", "getSize"),
        store.calls().subList(0, 5),
        "under a lock that proved nothing (local, re-entry) the put after a remove is checked");
  }

  /** A ride answered as a cluster lock answers it: from the batch that proved the lock held. */
  private EntryStorage.EntryRead provedRead(String key) {
    EntryStorage.EntryRead read = storage.entryRead(key, storage.deadline());
    ByteBuffer destination = read.destination();
    read.answered(store.getInto(key, destination));
    return read;
  }

  @Test
  void anUnreadReplaceUnderALockProvedExclusiveIsNotChecked() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    int before = store.calls().size() + 1; // the ride's own read
    try (EntryStorage.EntryRead proved = provedRead("k")) {
      assertTrue(
          storage.replace(
              new LockedKey(proved, TestLocks.ALWAYS_HELD),
              "new",
              ExpiryTimes.ETERNAL,
              storage.deadline()));
    }
    assertEquals(List.of("remove", "put"), store.calls().subList(before, store.calls().size()));
    assertEquals("new", read("k"));
    try (EntryStorage.EntryRead proved = provedRead("absent")) {
      assertFalse(
          storage.replace(
              new LockedKey(proved, TestLocks.ALWAYS_HELD),
              "v",
              ExpiryTimes.ETERNAL,
              storage.deadline()));
    }
    assertEquals("put", store.calls().get(store.calls().size() - 1), "known absent: no remove");
  }

  @Test
  void aWriteOrRewriteUnderALockProvedExclusiveIsNotChecked() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    try (EntryStorage.EntryRead read = provedRead("k")) {
      LockedKey proved = new LockedKey(read, TestLocks.ALWAYS_HELD);
      store.clearCalls();
      storage.write(proved, "new", ExpiryTimes.ETERNAL, false, storage.deadline());
      assertEquals(List.of("remove", "put"), store.calls(), "proved exclusive: no check");
      StoredEntry entry = storage.read("k", storage.deadline());
      assertEquals("new", entry.value());

      store.clearCalls();
      storage.rewrite(proved, entry, 1234L, storage.deadline());
      assertEquals(List.of("remove", "put"), store.calls(), "proved exclusive: no check");
      assertEquals(1234L, storage.read("k", storage.deadline()).expireAt());
    }

    store.clearCalls();
    storage.write(
        TestLocks.unproved(storage, "k"), "again", ExpiryTimes.ETERNAL, false, storage.deadline());
    assertEquals(List.of("remove", "put", "getSize"), store.calls(), "proved nothing: checked");
  }

  @Test
  void aBatchPutDroppedAfterARemoveIsRepeated() {
    storage.write(
        TestLocks.unproved(storage, "a"), "old-a", ExpiryTimes.ETERNAL, true, storage.deadline());
    store.script("batchIsExist", 0); // the store lost what it answered OK for
    storage.writeAll(
        List.of(
            new EntryStorage.Write(
                TestLocks.unproved(storage, "a"), "new-a", ExpiryTimes.ETERNAL, false),
            new EntryStorage.Write(
                TestLocks.unproved(storage, "b"), "new-b", ExpiryTimes.ETERNAL, true)),
        storage.deadline());
    assertEquals("new-a", read("a"));
    assertEquals("new-b", read("b"));
    assertEquals(1, store.count("batchIsExist"), "only replaced keys are checked, in one call");
  }

  /**
   * A put in flight whose writer was killed never lands, and Mooncake's remove answers -703 for it
   * for ever: only a later put (PutStart) of the key, once the old put is older than its discard
   * timeout, clears it. A write stops waiting for it after {@link StoreStatus#STUCK_PUT_NANOS} and
   * puts, checking each time what landed, until one lands (a rolling restart's replacement JVM must
   * be able to write the entry its killed predecessor left in flight).
   */
  @Test
  void aWriteOverAPutThatNeverLandsPutsUntilMooncakeDiscardsIt() {
    try (ScriptedStorage slow = new ScriptedStorage("stuck-put", Duration.ofSeconds(10))) {
      slow.store
          .script("remove", notReadyFor(1000))
          .script("put", ScriptedStore.DROP, ScriptedStore.DROP) // answered 0: still in flight
          .script("getSize", NOT_READY, NOT_READY)
          .advancing(slow.ticker, 100);
      slow.storage.write(
          TestLocks.unproved(slow.storage, "k"),
          "new",
          ExpiryTimes.ETERNAL,
          false,
          slow.storage.deadline());
      StoredEntry entry = slow.storage.read("k", slow.storage.deadline());
      assertEquals("new", entry.value());
      assertEquals(3, slow.store.count("put"), "two answered over the stuck put, the third landed");
      long removes = slow.store.count("remove");
      long perWait = StoreStatus.STUCK_PUT_NANOS / 100_000_000L; // at 100 ms a call
      assertTrue(
          removes >= 3 * perWait && removes <= 3 * (perWait + 2),
          "each put came after a remove that waited about STUCK_PUT_NANOS: " + removes);
    }
  }

  @Test
  void aRemoveOfAPutThatNeverLandsRemovesNothingReadable() {
    try (ScriptedStorage slow = new ScriptedStorage("stuck-remove", Duration.ofSeconds(10))) {
      slow.store.script("remove", notReadyFor(1000)).advancing(slow.ticker, 100);
      assertFalse(
          slow.storage.delete(TestLocks.unproved(slow.storage, "k"), slow.storage.deadline()));
      long removes = slow.store.count("remove");
      assertTrue(removes <= StoreStatus.STUCK_PUT_NANOS / 100_000_000L + 2, "waited " + removes);
    }
  }

  @Test
  void aBatchWriteOverAPutThatNeverLandsChecksThatKeysPut() {
    try (ScriptedStorage slow = new ScriptedStorage("stuck-batch", Duration.ofSeconds(10))) {
      slow.store.script("remove", notReadyFor(20)).advancing(slow.ticker, 100);
      slow.storage.writeAll(
          List.of(
              new EntryStorage.Write(
                  TestLocks.unproved(slow.storage, "a"), "new-a", ExpiryTimes.ETERNAL, false),
              new EntryStorage.Write(
                  TestLocks.unproved(slow.storage, "b"), "new-b", ExpiryTimes.ETERNAL, true)),
          slow.storage.deadline());
      assertEquals("new-a", slow.storage.read("a", slow.storage.deadline()).value());
      assertEquals("new-b", slow.storage.read("b", slow.storage.deadline()).value());
      assertEquals(
          List.of("batchPut", "put", "getSize"),
          slow.store.calls().stream().filter(c -> !c.equals("remove")).toList().subList(0, 3),
          "the stuck key's put is made again alone and checked");
    }
  }

  private static long[] notReadyFor(int calls) {
    long[] answers = new long[calls];
    java.util.Arrays.fill(answers, NOT_READY);
    return answers;
  }

  /**
   * The object as a read overtaken by a reusing writer copies it: the header (and, here, the
   * payload) of {@code old}, the trailer (checksum) of {@code successor}, both of one length.
   */
  private static byte[] torn(byte[] old, byte[] successor) {
    assertEquals(old.length, successor.length, "a torn read of the same length");
    byte[] torn = old.clone();
    int trailer = torn.length - ValueHeader.TRAILER;
    System.arraycopy(successor, trailer, torn, trailer, ValueHeader.TRAILER);
    return torn;
  }

  private byte[] raw(String key) {
    ByteBuffer buffer = ByteBuffer.allocate(4096);
    long length = store.getInto(key, buffer);
    byte[] bytes = new byte[(int) length];
    buffer.get(0, bytes);
    return bytes;
  }

  @Test
  void aReadTornAtTheSameLengthIsRepeatedThenFails() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    byte[] old = raw("k");
    storage.write(
        TestLocks.unproved(storage, "k"), "new", ExpiryTimes.ETERNAL, false, storage.deadline());
    byte[] successor = raw("k");
    byte[] torn = torn(old, successor);
    store.clearCalls();

    store.scriptBytes("getInto", torn); // once torn, then the store's own object
    assertEquals("new", read("k"));
    assertEquals(2, store.count("getInto"), "the torn read was taken as a value");

    store.scriptBytes("getInto", torn, torn, torn, torn, torn, torn);
    CacheException e = assertThrows(CacheException.class, () -> read("k"));
    assertEquals(8, store.count("getInto"), "five repeats, then the failure");
    assertTrue(e.getMessage().contains("'k' fails its checksum"), e.getMessage());
  }

  @Test
  void aBatchReadTornAtTheSameLengthIsRepeatedSingly() {
    storage.write(
        TestLocks.unproved(storage, "a"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    byte[] old = raw("a");
    storage.write(
        TestLocks.unproved(storage, "a"), "new", ExpiryTimes.ETERNAL, false, storage.deadline());
    storage.write(
        TestLocks.unproved(storage, "b"), "bee", ExpiryTimes.ETERNAL, true, storage.deadline());
    byte[] torn = torn(old, raw("a"));
    store.clearCalls();
    store.scriptBytes("batchGetInto", torn);
    StoredEntry[] found = storage.readAll(new String[] {"a", "b"}, storage.deadline());
    assertEquals("new", found[0].value());
    assertEquals("bee", found[1].value());
    assertEquals(List.of("batchGetInto", "getInto"), store.calls());

    store.scriptBytes("batchGetInto", torn);
    store.scriptBytes("getInto", torn, torn, torn, torn, torn, torn);
    CacheException e =
        assertThrows(
            CacheException.class,
            () -> storage.readAll(new String[] {"a", "b"}, storage.deadline()));
    assertTrue(e.getMessage().contains("'a' fails its checksum"), e.getMessage());
  }

  @Test
  void aRideTornAtTheSameLengthIsReadAgainUnderTheLock() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    byte[] old = raw("k");
    storage.write(
        TestLocks.unproved(storage, "k"), "new", ExpiryTimes.ETERNAL, false, storage.deadline());
    byte[] torn = torn(old, raw("k"));
    store.clearCalls();
    try (EntryStorage.EntryRead read = storage.entryRead("k", storage.deadline())) {
      ByteBuffer destination = read.destination();
      destination.put(0, torn);
      read.answered(torn.length); // the lock's batch brought back a torn entry
      assertEquals("new", read.entry().value());
    }
    assertEquals(List.of("getInto"), store.calls(), "the torn ride was not read again");
  }

  @Test
  void aZeroCopyReadTornAtTheSameLengthIsRepeatedThenFails() {
    writeZeroCopy("k", true, 1, 2, 3);
    byte[] old = raw("k");
    writeZeroCopy("k", false, 4, 5, 6); // the same length, other bytes
    byte[] torn = torn(old, raw("k"));
    store.clearCalls();

    ByteBuffer destination = ByteBuffer.allocateDirect(64);
    store.scriptBytes("getInto", torn);
    assertEquals(ExpiryTimes.ETERNAL, storage.readInPlace("k", destination, storage.deadline()));
    assertEquals(ValueHeader.SIZE, destination.position());
    assertEquals(3, destination.remaining(), "the payload, without the trailer");
    assertEquals(2, store.count("getInto"));

    destination.clear();
    store.scriptBytes("getInto", torn, torn, torn, torn, torn, torn);
    CacheException e =
        assertThrows(
            CacheException.class, () -> storage.readInPlace("k", destination, storage.deadline()));
    assertTrue(e.getMessage().contains("'k' fails its checksum"), e.getMessage());
    assertEquals(8, store.count("getInto"), "five repeats, then the failure");
  }

  @Test
  void aZeroCopyValueNeedsRoomForTheTrailer() {
    ByteBuffer value = ByteBuffer.allocateDirect(ValueHeader.SIZE + 3);
    value.position(ValueHeader.SIZE);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                storage.writeInPlace(
                    TestLocks.unproved(storage, "k"),
                    value,
                    ExpiryTimes.ETERNAL,
                    true,
                    storage.deadline()));
    assertTrue(e.getMessage().contains("4 free bytes after its limit"), e.getMessage());
    assertEquals(List.of(), store.calls(), "nothing was sent");
  }

  @Test
  void anotherKeysWholeValueIsReadAgainAndNeverReturned() {
    storage.write(
        TestLocks.unproved(storage, "k"), "mine", ExpiryTimes.ETERNAL, true, storage.deadline());
    storage.write(
        TestLocks.unproved(storage, "other"),
        "them",
        ExpiryTimes.ETERNAL,
        true,
        storage.deadline());
    byte[] others =
        raw("other"); // whole and well-formed, of the same length: only its owner differs
    store.clearCalls();

    store.scriptBytes("getInto", others); // a read of k answered with other's object, once
    assertEquals("mine", read("k"));
    assertEquals(2, store.count("getInto"), "another key's value was taken as k's");
    assertEquals(1, storage.integrityMismatches(), "the mismatch was not counted");

    store.scriptBytes("getInto", others, others, others, others, others, others);
    CacheException e = assertThrows(CacheException.class, () -> read("k"));
    assertTrue(
        e.getMessage().contains("'k' belongs to another key, cache or tenant"), e.getMessage());
    assertEquals(7, storage.integrityMismatches());
  }

  @Test
  void anotherKeysWholeValueInABatchARideOrAZeroCopyReadIsReadAgain() {
    storage.write(
        TestLocks.unproved(storage, "a"), "mine", ExpiryTimes.ETERNAL, true, storage.deadline());
    storage.write(
        TestLocks.unproved(storage, "b"), "them", ExpiryTimes.ETERNAL, true, storage.deadline());
    byte[] bs = raw("b");
    store.clearCalls();
    store.scriptBytes("batchGetInto", bs); // a's slot of the batch holds b's object
    StoredEntry[] found = storage.readAll(new String[] {"a", "b"}, storage.deadline());
    assertEquals("mine", found[0].value());
    assertEquals("them", found[1].value());
    assertEquals(List.of("batchGetInto", "getInto"), store.calls());

    store.clearCalls();
    try (EntryStorage.EntryRead read = storage.entryRead("a", storage.deadline())) {
      read.destination().put(0, bs);
      read.answered(bs.length); // the lock's batch brought back b's object under a
      assertEquals("mine", read.entry().value());
    }
    assertEquals(List.of("getInto"), store.calls(), "the ride's foreign object was not re-read");

    writeZeroCopy("z1", true, 1, 2, 3);
    writeZeroCopy("z2", true, 4, 5, 6);
    byte[] z2 = raw("z2");
    store.clearCalls();
    ByteBuffer destination = ByteBuffer.allocateDirect(64);
    store.scriptBytes("getInto", z2);
    assertEquals(ExpiryTimes.ETERNAL, storage.readInPlace("z1", destination, storage.deadline()));
    assertEquals(1, destination.get(destination.position()), "z2's payload read as z1's");
    assertEquals(2, store.count("getInto"));
    assertEquals(3, storage.integrityMismatches());
  }

  /** A 64-byte destination filled with 0x55, framed at [4, 60). */
  private static ByteBuffer framedDestination() {
    ByteBuffer destination = ByteBuffer.allocateDirect(64);
    for (int i = 0; i < 64; i++) {
      destination.put(i, (byte) 0x55);
    }
    return destination.position(4).limit(60);
  }

  /** Zero in [4, 4 + zeroed), the caller's 0x55 everywhere else, the frame unchanged. */
  private static void assertOnlyZeroed(ByteBuffer destination, int zeroed) {
    assertEquals(4, destination.position());
    assertEquals(60, destination.limit());
    ByteBuffer all = destination.duplicate().clear();
    for (int i = 0; i < 64; i++) {
      assertEquals(i >= 4 && i < 4 + zeroed ? 0 : 0x55, all.get(i), "byte " + i);
    }
  }

  @Test
  void aZeroCopyReadLeavesNoForeignByteInTheCallersBufferWhateverItEndsWith() {
    writeZeroCopy("other", true, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7);
    byte[] others = raw("other");
    writeZeroCopy("k", true, 1, 2, 3);

    // another key's object, then a miss
    ByteBuffer destination = framedDestination();
    store.scriptBytes("getInto", others);
    assertEquals(
        ExpiryTimes.ABSENT, storage.readInPlace("absent", destination, storage.deadline()));
    assertOnlyZeroed(destination, others.length);

    // another key's object on every attempt: retries exhausted
    ByteBuffer exhausted = framedDestination();
    store.scriptBytes("getInto", others, others, others, others, others, others);
    assertThrows(
        CacheException.class, () -> storage.readInPlace("k", exhausted, storage.deadline()));
    assertOnlyZeroed(exhausted, others.length);

    // another key's object, then the store call times out
    ByteBuffer timedOut = framedDestination();
    store.scriptBytes("getInto", others);
    store.script("getInto", 0, ScriptedStore.TIME_OUT);
    assertThrows(
        CacheException.class, () -> storage.readInPlace("k", timedOut, storage.deadline()));
    assertOnlyZeroed(timedOut, 56); // the throwing call may have reached all of it

    // another key's object, then the operation's deadline runs out before the next attempt
    ByteBuffer late = framedDestination();
    store.advancing(ticker, 600);
    store.scriptBytes("getInto", others);
    assertThrows(CacheException.class, () -> storage.readInPlace("k", late, storage.deadline()));
    assertOnlyZeroed(late, others.length);
    store.advancing(ticker, 0);

    // another key's longer object, then the key's own: nothing of the other's beyond its trailer
    ByteBuffer hit = framedDestination();
    store.scriptBytes("getInto", others);
    assertEquals(ExpiryTimes.ETERNAL, storage.readInPlace("k", hit, storage.deadline()));
    int mine = ValueHeader.OVERHEAD + 3;
    ByteBuffer all = hit.duplicate().clear();
    for (int i = 4 + mine; i < 64; i++) {
      assertEquals(i < 4 + others.length ? 0 : 0x55, all.get(i), "byte " + i + " after k's");
    }
  }

  @Test
  void aReadThatDoesNotMatchItsHeaderIsRepeated() {
    storage.write(
        TestLocks.unproved(storage, "k"), "new", ExpiryTimes.ETERNAL, true, storage.deadline());
    // a torn read: a length that is not the one the header (or no header) says
    store.script("getInto", ValueHeader.SIZE + 1);
    assertEquals("new", read("k"));
    assertEquals(2, store.count("getInto"));

    long torn = ValueHeader.SIZE + 1;
    store.script("getInto", torn, torn, torn, torn, torn, torn);
    CacheException e = assertThrows(CacheException.class, () -> read("k"));
    assertEquals(8, store.count("getInto"), "five repeats, then the failure");
    assertTrue(e.getMessage().contains("'k'"), e.getMessage());
  }

  @Test
  void aReadWhoseLeaseRanOutIsReadAgainWithinTheDeadline() {
    storage.write(
        TestLocks.unproved(storage, "k"), "v", ExpiryTimes.ETERNAL, true, storage.deadline());
    long expired = StoreStatus.LEASE_EXPIRED.code();
    store.script("getInto", expired, expired);
    assertEquals("v", read("k"));
    assertEquals(3, store.count("getInto"), "-707 was not read again: " + store.calls());
  }

  @Test
  void aZeroCopyReadWhoseLeaseRanOutIsReadAgainWithinTheDeadline() {
    writeZeroCopy("z", true, 7, 8, 9);
    store.clearCalls();
    long expired = StoreStatus.LEASE_EXPIRED.code();
    store.script("getInto", expired, expired);
    ByteBuffer destination = ByteBuffer.allocateDirect(64);
    assertEquals(ExpiryTimes.ETERNAL, storage.readInPlace("z", destination, storage.deadline()));
    assertEquals(7, destination.get(destination.position()));
    assertEquals(3, store.count("getInto"), "-707 was not read again: " + store.calls());
  }

  @Test
  void aReadBufferTooSmallIsGrownOnceWithTheSizeAsked() {
    String large = "x".repeat(10_000); // more than the first read buffer (4 KiB)
    storage.write(
        TestLocks.unproved(storage, "big"), large, ExpiryTimes.ETERNAL, true, storage.deadline());
    assertEquals(large, read("big"));
    assertEquals(List.of("put", "getInto", "getSize", "getInto"), store.calls());
    assertEquals(large, read("big"));
    assertEquals("getInto", store.calls().get(4), "the grown buffer was not remembered");
    assertEquals(5, store.calls().size());
  }

  @Test
  void aReadOfAnObjectStillBeingWrittenRetriesThenReadsAbsent() {
    storage.write(
        TestLocks.unproved(storage, "k"), "v", ExpiryTimes.ETERNAL, true, storage.deadline());
    store.script("getInto", NOT_READY, NOT_READY);
    assertEquals("v", read("k"));
    long[] forever = new long[100];
    java.util.Arrays.fill(forever, NOT_READY);
    store.script("getInto", forever);
    assertNull(read("k"), "a put in flight reads as absent (the read protocol then waits)");
  }

  /** A zero-copy write of {@code payload} under {@code key}, as ZeroCopyCache makes one. */
  private void writeZeroCopy(String key, boolean absent, int... payload) {
    ByteBuffer value = ByteBuffer.allocateDirect(ValueHeader.OVERHEAD + payload.length);
    value.position(ValueHeader.SIZE).limit(ValueHeader.SIZE + payload.length);
    for (int i = 0; i < payload.length; i++) {
      value.put(ValueHeader.SIZE + i, (byte) payload[i]);
    }
    storage.writeInPlace(
        TestLocks.unproved(storage, key), value, ExpiryTimes.ETERNAL, absent, storage.deadline());
  }
}
