package dev.mooncake.jcache.internal.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.ScriptedStore;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import javax.cache.CacheException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A read the store answers -800 TRANSFER_FAIL (the object is listed, its segment cannot be reached:
 * the JVM that held it died) is repeated briefly and then read as absent, counted; a write after it
 * removes first (the master still lists the old object, and a put would keep it); a write answering
 * -800 stays an error. Also: the retries of one mutation share one deadline.
 */
class UnreachableSegmentReadTest {
  private static final long TRANSFER_FAIL = StoreStatus.TRANSFER_FAIL.code();

  private final ScriptedStorage fixture =
      new ScriptedStorage("unreachable-test", Duration.ofMillis(500));
  private final FakeTicker ticker = fixture.ticker;
  private final ScriptedStore store = fixture.store;
  private final EntryStorage storage = fixture.storage;

  @AfterEach
  void close() {
    fixture.close();
  }

  @Test
  void aReadAnsweringTransferFailIsRepeatedThenAMiss() {
    storage.write(
        TestLocks.unproved(storage, "k"), "v", ExpiryTimes.ETERNAL, true, storage.deadline());
    store.script("getInto", TRANSFER_FAIL, TRANSFER_FAIL, TRANSFER_FAIL, TRANSFER_FAIL);
    assertNull(storage.read("k", storage.deadline()));
    assertEquals(4, store.count("getInto"), "one read and three repeats");
    assertEquals(1, storage.unreachableReads());
    assertEquals(0, store.count("getSize"), "not mistaken for a too-small buffer");
  }

  @Test
  void aTransferThatSucceedsWhenRepeatedReadsTheValue() {
    storage.write(
        TestLocks.unproved(storage, "k"), "v", ExpiryTimes.ETERNAL, true, storage.deadline());
    store.script("getInto", TRANSFER_FAIL);
    assertEquals("v", storage.read("k", storage.deadline()).value());
    assertEquals(0, storage.unreachableReads());
  }

  @Test
  void theRepeatsStopAtTheOperationDeadline() {
    storage.write(
        TestLocks.unproved(storage, "k"), "v", ExpiryTimes.ETERNAL, true, storage.deadline());
    store.script("getInto", TRANSFER_FAIL, TRANSFER_FAIL, TRANSFER_FAIL, TRANSFER_FAIL);
    store.advancing(ticker, 600); // each call takes longer than the 500 ms operation timeout
    assertNull(storage.read("k", storage.deadline()));
    assertEquals(1, store.count("getInto"), "no repeat after the deadline: " + store.calls());
    assertEquals(1, storage.unreachableReads());
  }

  @Test
  void aZeroCopyReadAnsweringTransferFailIsAMiss() {
    ByteBuffer value = storage.buffers().acquire(ValueHeader.SIZE + 3);
    value.position(ValueHeader.SIZE).limit(ValueHeader.SIZE + 3);
    value.put(ValueHeader.SIZE, new byte[] {1, 2, 3});
    storage.writeInPlace(
        TestLocks.unproved(storage, "z"), value, ExpiryTimes.ETERNAL, true, storage.deadline());
    storage.buffers().release(value);
    store.script("getInto", TRANSFER_FAIL, TRANSFER_FAIL, TRANSFER_FAIL, TRANSFER_FAIL);
    ByteBuffer destination = ByteBuffer.allocateDirect(64);
    assertEquals(ExpiryTimes.ABSENT, storage.readInPlace("z", destination, storage.deadline()));
    assertEquals(0, destination.position());
    assertEquals(1, storage.unreachableReads());
  }

  @Test
  void aWriteAfterAnUnreachableMissRemovesFirstForAWhile() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    store.script("getInto", TRANSFER_FAIL, TRANSFER_FAIL, TRANSFER_FAIL, TRANSFER_FAIL);
    assertNull(storage.read("k", storage.deadline()));
    int before = store.calls().size();
    // read-through's put of the loaded value: the caller believes the key absent
    storage.write(
        TestLocks.unproved(storage, "k"), "loaded", ExpiryTimes.ETERNAL, true, storage.deadline());
    assertEquals(
        List.of("remove", "put", "getSize"),
        store.calls().subList(before, store.calls().size()),
        "without the remove the store keeps the unreachable object and the put changes nothing");
    assertEquals("loaded", storage.read("k", storage.deadline()).value());

    ticker.advanceMillis(61_000); // long after: a create costs one put again
    before = store.calls().size();
    storage.write(
        TestLocks.unproved(storage, "fresh"), "v", ExpiryTimes.ETERNAL, true, storage.deadline());
    assertEquals(List.of("put"), store.calls().subList(before, store.calls().size()));
  }

  @Test
  void aWriteAnsweringTransferFailStaysAnError() {
    store.script("put", TRANSFER_FAIL);
    CacheException e =
        assertThrows(
            CacheException.class,
            () ->
                storage.write(
                    TestLocks.unproved(storage, "k"),
                    "v",
                    ExpiryTimes.ETERNAL,
                    true,
                    storage.deadline()));
    assertTrue(e.getMessage().contains("-800 TRANSFER_FAIL"), e.getMessage());
  }

  @Test
  void theRetriesOfOneMutationShareOneDeadline() {
    storage.write(
        TestLocks.unproved(storage, "k"), "old", ExpiryTimes.ETERNAL, true, storage.deadline());
    long notReady = StoreStatus.REPLICA_IS_NOT_READY.code();
    long[] removes = new long[8]; // 400 ms of a busy remove, then it goes through
    Arrays.fill(removes, notReady);
    long[] puts = new long[1000];
    Arrays.fill(puts, notReady);
    store.script("remove", removes).script("put", puts).advancing(ticker, 50);
    int before = store.calls().size();
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
    assertTrue(e.getMessage().contains("-703 REPLICA_IS_NOT_READY"), e.getMessage());
    int calls = store.calls().size() - before;
    // 500 ms at 50 ms a call: about 10 calls in all. A fresh deadline per loop (as before) gave
    // the put's retries another 500 ms after the removes' 400 ms: about 19.
    assertTrue(calls <= 12, calls + " calls: " + store.calls().subList(before, before + calls));
  }
}
