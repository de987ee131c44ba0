package dev.mooncake.jcache.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.backend.ScriptedStore;
import dev.mooncake.jcache.backend.StoreStatus;
import dev.mooncake.jcache.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.codec.DeserializationFilter;
import dev.mooncake.jcache.codec.SerializationCodec;
import dev.mooncake.jcache.codec.TypedCodec;
import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.expiry.ExpiryTimes;
import dev.mooncake.jcache.lane.Lanes;
import dev.mooncake.jcache.lock.KeyLocks;
import dev.mooncake.jcache.time.FakeTicker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

  /** A lock that is always held (local locks cannot be lost). */
  private static final KeyLocks.Held NO_LOCK = () -> {};

  private final FakeTicker ticker = new FakeTicker();
  private final ScriptedStore store =
      new ScriptedStore(InProcessStore.open(ConfigLoader.defaults(), ticker));
  private final Lanes lanes = new Lanes(1, Map.of(), false, false, "entry-test");
  private final EntryStorage storage =
      new EntryStorage(
          "orders",
          store,
          lanes,
          new TypedCodec(
              new SerializationCodec(
                  new DeserializationFilter(List.of()), getClass().getClassLoader())),
          ticker,
          Duration.ofMillis(500));

  @AfterEach
  void close() {
    lanes.close();
    store.close();
  }

  private Object read(String key) {
    StoredEntry entry = storage.read(key);
    return entry == null ? null : entry.value();
  }

  @Test
  void aRemoveAnsweringNotReadyOrLeasedIsRetried() {
    storage.write("k", "old", ExpiryTimes.ETERNAL, true, NO_LOCK);
    store.script("remove", NOT_READY, HAS_LEASE, NOT_READY);
    storage.write("k", "new", ExpiryTimes.ETERNAL, false, NO_LOCK);
    assertEquals("new", read("k"));
    assertEquals(4, store.count("remove"), "three transient answers, then the remove");
  }

  @Test
  void aRemoveStillBusyAfterTheTimeoutFailsNamingCacheKeyAndStatus() {
    storage.write("k", "old", ExpiryTimes.ETERNAL, true, NO_LOCK);
    long[] busy = new long[1000];
    java.util.Arrays.fill(busy, NOT_READY);
    store.script("remove", busy).advancing(ticker, 50);
    CacheException e =
        assertThrows(
            CacheException.class,
            () -> storage.write("k", "new", ExpiryTimes.ETERNAL, false, NO_LOCK));
    assertTrue(e.getMessage().contains("remove on cache 'orders'"), e.getMessage());
    assertTrue(e.getMessage().contains("store key 'k'"), e.getMessage());
    assertTrue(e.getMessage().contains("-703 REPLICA_IS_NOT_READY"), e.getMessage());
    assertTrue(e.getMessage().contains("500 ms (operation_timeout_ms)"), e.getMessage());
    long calls = store.count("remove");
    assertTrue(calls >= 10 && calls <= 12, "retried for 500 ms at 50 ms a call: " + calls);
    assertEquals("old", read("k"), "a failed replace left the old value");
  }

  @Test
  void aLockLostWhileRetryingStopsTheRetriesBeforeTheNextMutation() {
    storage.write("k", "old", ExpiryTimes.ETERNAL, true, NO_LOCK);
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
          public void close() {}
        };
    CacheException e =
        assertThrows(
            CacheException.class,
            () -> storage.write("k", "new", ExpiryTimes.ETERNAL, false, losing));
    assertEquals("lease on 'k' lost", e.getMessage());
    assertEquals(2, store.count("remove"), "a mutation went out after the lock was lost");
    assertEquals(1, store.count("put"));
  }

  @Test
  void aPutAnsweringNotReadyIsRetriedWithRemoveThenPut() {
    storage.write("k", "old", ExpiryTimes.ETERNAL, true, NO_LOCK);
    store.script("put", NOT_READY);
    storage.write("k", "new", ExpiryTimes.ETERNAL, false, NO_LOCK);
    assertEquals("new", read("k"));
  }

  @Test
  void aPutTheStoreDropsAfterARemoveIsDetectedAndRepeated() {
    storage.write("k", "old", ExpiryTimes.ETERNAL, true, NO_LOCK);
    store.script("put", ScriptedStore.DROP); // answers OK, stores nothing
    storage.write("k", "new", ExpiryTimes.ETERNAL, false, NO_LOCK);
    assertEquals("new", read("k"), "the dropped put left the key absent");
    assertEquals(
        List.of("remove", "put", "getSize", "remove", "put", "getSize"),
        store.calls().subList(1, 7));
  }

  @Test
  void aPutThatKeepsBeingDroppedFailsAfterTheTimeout() {
    storage.write("k", "old", ExpiryTimes.ETERNAL, true, NO_LOCK);
    long[] drops = new long[1000];
    java.util.Arrays.fill(drops, ScriptedStore.DROP);
    store.script("put", drops).advancing(ticker, 50);
    CacheException e =
        assertThrows(
            CacheException.class,
            () -> storage.write("k", "new", ExpiryTimes.ETERNAL, false, NO_LOCK));
    assertTrue(
        e.getMessage().contains("put on cache 'orders' was dropped for store key 'k'"),
        e.getMessage());
    assertTrue(e.getMessage().contains("-704 OBJECT_NOT_FOUND"), e.getMessage());
  }

  @Test
  void aCreateIsNotCheckedAndCostsOneCall() {
    storage.write("k", "v", ExpiryTimes.ETERNAL, true, NO_LOCK);
    assertEquals(List.of("put"), store.calls());
  }

  @Test
  void aReplacePutIsCheckedOnce() {
    storage.write("k", "old", ExpiryTimes.ETERNAL, true, NO_LOCK);
    storage.write("k", "new", ExpiryTimes.ETERNAL, false, NO_LOCK);
    assertEquals(List.of("put", "remove", "put", "getSize"), store.calls());
  }

  @Test
  void anUnreadReplaceTellsWhetherSomethingWasThere() {
    assertFalse(storage.replace("k", "first", ExpiryTimes.ETERNAL, false, NO_LOCK));
    assertTrue(storage.replace("k", "second", ExpiryTimes.ETERNAL, false, NO_LOCK));
    assertEquals("second", read("k"));
  }

  @Test
  void aBatchPutDroppedAfterARemoveIsRepeated() {
    storage.write("a", "old-a", ExpiryTimes.ETERNAL, true, NO_LOCK);
    store.script("batchIsExist", 0); // the store lost what it answered OK for
    storage.writeAll(
        List.of(
            new EntryStorage.Write("a", "new-a", ExpiryTimes.ETERNAL, false, NO_LOCK),
            new EntryStorage.Write("b", "new-b", ExpiryTimes.ETERNAL, true, NO_LOCK)));
    assertEquals("new-a", read("a"));
    assertEquals("new-b", read("b"));
    assertEquals(1, store.count("batchIsExist"), "only replaced keys are checked, in one call");
  }

  @Test
  void aReadThatDoesNotMatchItsHeaderIsRepeated() {
    storage.write("k", "new", ExpiryTimes.ETERNAL, true, NO_LOCK);
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
  void aReadBufferTooSmallIsGrownOnceWithTheSizeAsked() {
    String large = "x".repeat(10_000); // more than the first read buffer (4 KiB)
    storage.write("big", large, ExpiryTimes.ETERNAL, true, NO_LOCK);
    assertEquals(large, read("big"));
    assertEquals(List.of("put", "getInto", "getSize", "getInto"), store.calls());
    assertEquals(large, read("big"));
    assertEquals("getInto", store.calls().get(4), "the grown buffer was not remembered");
    assertEquals(5, store.calls().size());
  }

  @Test
  void aReadOfAnObjectStillBeingWrittenRetriesThenReadsAbsent() {
    storage.write("k", "v", ExpiryTimes.ETERNAL, true, NO_LOCK);
    store.script("getInto", NOT_READY, NOT_READY);
    assertEquals("v", read("k"));
    long[] forever = new long[100];
    java.util.Arrays.fill(forever, NOT_READY);
    store.script("getInto", forever);
    assertNull(read("k"), "a put in flight reads as absent (the read protocol then waits)");
  }
}
