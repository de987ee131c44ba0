package dev.mooncake.jcache.internal.entry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.mooncake.jcache.internal.backend.ScriptedStore;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Batches on an in-process store go in groups of about {@link EntryStorage#IN_PROCESS_GROUP_BYTES}
 * of values (so each value is still in the core's cache for its second copy), a remote store's in
 * one call; either way every value comes back at its index.
 */
class BatchGroupsTest {
  private static final int LARGE = 300 * 1024; // three fit in a group, four do not

  private final ScriptedStorage fixture =
      new ScriptedStorage("groups-test", Duration.ofMillis(500));
  private final FakeTicker ticker = fixture.ticker;
  private final ScriptedStore store = fixture.store;
  private final EntryStorage storage = fixture.storage;

  @AfterEach
  void close() {
    fixture.close();
  }

  private static byte[] value(int index, int size) {
    byte[] value = new byte[size];
    for (int i = 0; i < size; i++) {
      value[i] = (byte) (index * 31 + i);
    }
    return value;
  }

  private List<EntryStorage.Write> writes(int count, int size) {
    List<EntryStorage.Write> writes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      writes.add(
          new EntryStorage.Write(
              TestLocks.unproved(storage, "k" + i), value(i, size), ExpiryTimes.ETERNAL, true));
    }
    return writes;
  }

  private static String[] keys(int count) {
    String[] keys = new String[count + 1];
    for (int i = 0; i < count; i++) {
      keys[i] = "k" + i;
    }
    keys[count] = "missing";
    return keys;
  }

  private void assertReadBack(StoredEntry[] found, int count, int size) {
    for (int i = 0; i < count; i++) {
      assertArrayEquals(value(i, size), (byte[]) found[i].value(), "value at index " + i);
    }
    assertNull(found[count], "an absent key reads null at its index");
  }

  @Test
  void largeValuesGoInGroupsOfAboutAMebibyteInProcess() {
    storage.writeAll(writes(8, LARGE), storage.deadline());
    assertEquals(List.of(3, 3, 2), store.batchKeys("batchPut"));

    storage.read("k0", storage.deadline()); // the read buffer grows to the largest value seen
    store.clearCalls();
    StoredEntry[] found = storage.readAll(keys(8), storage.deadline());
    assertEquals(List.of(3, 3, 3), store.batchKeys("batchGetInto"));
    assertEquals(0, store.count("getInto"), "no value fell back to the single path");
    assertReadBack(found, 8, LARGE);
  }

  @Test
  void aValueLargerThanTheGroupGoesAlone() {
    int huge = (int) EntryStorage.IN_PROCESS_GROUP_BYTES + 1;
    storage.writeAll(writes(3, huge), storage.deadline());
    assertEquals(List.of(1, 1, 1), store.batchKeys("batchPut"));
    assertReadBack(storage.readAll(keys(3), storage.deadline()), 3, huge);
  }

  @Test
  void smallValuesStayInOneCall() {
    storage.writeAll(writes(64, 1024), storage.deadline());
    assertEquals(List.of(64), store.batchKeys("batchPut"));
    assertReadBack(storage.readAll(keys(64), storage.deadline()), 64, 1024);
    assertEquals(List.of(65), store.batchKeys("batchGetInto"));
  }

  @Test
  void aRemoteStoreGetsTheWholeBatchInOneCall() {
    store.actingRemote();
    storage.writeAll(writes(8, LARGE), storage.deadline());
    assertEquals(List.of(8), store.batchKeys("batchPut"));
    storage.read("k0", storage.deadline());
    store.clearCalls();
    assertReadBack(storage.readAll(keys(8), storage.deadline()), 8, LARGE);
    assertEquals(List.of(9), store.batchKeys("batchGetInto"));
  }

  @Test
  void aGroupedWriteTellsPerKeyWhetherItReplacedSomething() {
    storage.write(
        TestLocks.unproved(storage, "k1"),
        value(1, LARGE),
        ExpiryTimes.ETERNAL,
        true,
        storage.deadline());
    storage.write(
        TestLocks.unproved(storage, "k5"),
        value(5, LARGE),
        ExpiryTimes.ETERNAL,
        true,
        storage.deadline());
    List<EntryStorage.Write> writes = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      writes.add(
          new EntryStorage.Write(
              TestLocks.unproved(storage, "k" + i), value(i, LARGE), ExpiryTimes.ETERNAL, false));
    }
    boolean[] replaced = storage.writeAll(writes, storage.deadline());
    assertArrayEquals(
        new boolean[] {false, true, false, false, false, true, false, false}, replaced);
    assertReadBack(storage.readAll(keys(8), storage.deadline()), 8, LARGE);
  }
}
