package dev.mooncake.jcache.internal.backend.inprocess;

import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.KIB;
import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.MIB;
import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.filled;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mooncake.jcache.config.MooncakeConfig.EvictionSettings;
import dev.mooncake.jcache.config.MooncakeConfig.ReplicaSettings;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Eviction in a 1 MiB segment with 64 KiB objects (16 fit). With Mooncake's defaults (watermark
 * 0.90, ratio 0.05) up to 14 objects stay under the watermark (917,504 ≤ 943,718 bytes); the put of
 * a 15th evicts until usage is back under the watermark plus 52,429 bytes to spare: 2 objects.
 */
class InProcessEvictionTest {
  private static final int OBJECT = 64 * 1024;
  private static final int NO_AVAILABLE_HANDLE = -200;
  private static final int OBJECT_NOT_FOUND = -704;

  private final FakeTicker clock = new FakeTicker();

  private InProcessStore open(long segment) {
    return new InProcessStore(TestConfigs.segment(segment), 10_000, clock);
  }

  private int put(InProcessStore store, String key) {
    clock.advanceMillis(1);
    return store.put(key, filled(OBJECT, key.hashCode()));
  }

  private void read(InProcessStore store, String key) {
    clock.advanceMillis(1);
    assertEquals(OBJECT, store.getInto(key, ByteBuffer.allocate(OBJECT)), key);
  }

  /** Present or absent without granting a lease (getSize grants none). */
  private static boolean present(InProcessStore store, String key) {
    long size = store.getSize(key);
    if (size != OBJECT && size != OBJECT_NOT_FOUND) {
      throw new AssertionError(key + ": " + size);
    }
    return size == OBJECT;
  }

  @Test
  void manyPutsIntoASmallSegmentAllSucceedAndTheOldestGo() {
    try (InProcessStore store = open(1 * MIB)) {
      for (int i = 0; i < 200; i++) {
        assertEquals(0, put(store, "k" + i), "put k" + i);
        assertEquals(true, store.usedBytes() <= store.capacityBytes());
      }
      // Puts 15, 17, …, 199 each evicted two objects: 93 passes.
      assertEquals(186, store.evictions());
      assertEquals(14, store.objectCount());
      assertEquals(14L * OBJECT, store.usedBytes());
      for (int i = 0; i < 200; i++) {
        assertEquals(i >= 186, present(store, "k" + i), "k" + i);
      }
    }
  }

  @Test
  void theOldestReadGoFirstAndTheRecentlyReadStay() {
    try (InProcessStore store = open(1 * MIB)) {
      for (int i = 0; i < 14; i++) {
        assertEquals(0, put(store, "k" + i));
      }
      for (int i = 0; i < 14; i++) {
        read(store, "k" + i); // k0 has the oldest lease now …
      }
      read(store, "k0"); // … until it and k1 are read again
      read(store, "k1");
      assertEquals(0, store.evictions());

      assertEquals(0, put(store, "k14"));
      assertEquals(2, store.evictions());
      assertEquals(false, present(store, "k2"));
      assertEquals(false, present(store, "k3"));
      for (String kept : new String[] {"k0", "k1", "k4", "k13", "k14"}) {
        assertEquals(true, present(store, kept), kept);
      }
      assertEquals(13L * OBJECT, store.usedBytes());

      // Objects put but never read have no lease: they go before any read one.
      assertEquals(0, put(store, "k15"));
      assertEquals(0, put(store, "k16"));
      assertEquals(4, store.evictions());
      assertEquals(false, present(store, "k14"));
      assertEquals(false, present(store, "k15"));
      assertEquals(true, present(store, "k16"));
      assertEquals(true, present(store, "k4"));
    }
  }

  @Test
  void evictedValuesAreReallyGoneAndSurvivorsIntact() {
    try (InProcessStore store = open(1 * MIB)) {
      for (int i = 0; i < 40; i++) {
        assertEquals(0, put(store, "k" + i));
      }
      for (int i = 0; i < 40; i++) {
        ByteBuffer destination = ByteBuffer.allocate(OBJECT);
        long got = store.getInto("k" + i, destination);
        if (got == OBJECT_NOT_FOUND) {
          continue;
        }
        assertEquals(OBJECT, got);
        byte expected = (byte) ("k" + i).hashCode();
        for (int b = 0; b < OBJECT; b++) {
          if (destination.get(b) != expected) {
            throw new AssertionError("k" + i + " byte " + b + " is " + destination.get(b));
          }
        }
      }
    }
  }

  @Test
  void hardPinnedObjectsAreNeverEvictedAndAFullPoolAnswersNoAvailableHandle() {
    try (InProcessStore store =
        new InProcessStore(TestConfigs.hardPinned(1 * MIB), 10_000, clock)) {
      for (int i = 0; i < 16; i++) {
        assertEquals(0, put(store, "k" + i), "k" + i); // past the watermark, up to capacity
      }
      assertEquals(1 * MIB, store.usedBytes());
      assertEquals(NO_AVAILABLE_HANDLE, put(store, "k16"));
      assertEquals(0, store.evictions());
      assertEquals(16, store.objectCount());
      assertEquals(0, store.remove("k3", true));
      assertEquals(0, put(store, "k16"));
      assertEquals(NO_AVAILABLE_HANDLE, put(store, "k17"));
    }
  }

  @Test
  void softPinnedObjectsGoOnlyAfterUnpinnedOnes() {
    try (InProcessStore store = open(1 * MIB)) {
      for (int i = 0; i < 4; i++) {
        clock.advanceMillis(1);
        assertEquals(0, store.put("soft" + i, filled(OBJECT, i), Pin.SOFT)); // the oldest
      }
      for (int i = 0; i < 10; i++) {
        assertEquals(0, put(store, "plain" + i));
      }
      assertEquals(0, put(store, "plain10"));
      assertEquals(2, store.evictions());
      assertEquals(false, present(store, "plain0"));
      assertEquals(false, present(store, "plain1"));
      assertEquals(true, present(store, "soft0"));

      // With only soft-pinned objects left to evict, they go, oldest lease first.
      store.removeByRegex("^plain", true);
      for (int i = 0; i < 10; i++) {
        clock.advanceMillis(1);
        assertEquals(0, store.put("hard" + i, filled(OBJECT, i), Pin.HARD));
      }
      assertEquals(0, store.put("hard10", filled(OBJECT, 10), Pin.HARD));
      assertEquals(4, store.evictions());
      assertEquals(false, present(store, "soft0"));
      assertEquals(false, present(store, "soft1"));
      assertEquals(true, present(store, "soft2"));
    }
  }

  @Test
  void nothingEvictableMeansNoAvailableHandle() {
    try (InProcessStore store = open(1 * MIB)) {
      for (int i = 0; i < 16; i++) {
        clock.advanceMillis(1);
        assertEquals(0, store.put("hard" + i, filled(OBJECT, i), Pin.HARD));
      }
      assertEquals(NO_AVAILABLE_HANDLE, put(store, "plain"));
      assertEquals(1 * MIB, store.usedBytes());
    }
  }

  @Test
  void aWatermarkOfOneEvictsOnlyWhatTheNewObjectNeeds() {
    EvictionSettings full = new EvictionSettings(1.0, 0.0);
    try (InProcessStore store =
        new InProcessStore(
            TestConfigs.config(
                1 * MIB, 4 * MIB, full, ReplicaSettings.DEFAULT, Duration.ofSeconds(5)),
            10_000,
            clock)) {
      for (int i = 0; i < 16; i++) {
        assertEquals(0, put(store, "k" + i));
      }
      assertEquals(0, store.evictions());
      assertEquals(0, put(store, "k16"));
      assertEquals(1, store.evictions());
      assertEquals(false, present(store, "k0"));
      assertEquals(1 * MIB, store.usedBytes());
      // An object needing three slots' room evicts exactly three.
      clock.advanceMillis(1);
      assertEquals(0, store.put("big", filled(3 * OBJECT, 7)));
      assertEquals(4, store.evictions());
      assertEquals(false, present(store, "k3"));
      assertEquals(true, present(store, "k4"));
    }
  }

  @Test
  void removeAndEvictionGiveTheBudgetBack() {
    try (InProcessStore store = open(256 * KIB)) {
      assertEquals(0, put(store, "a"));
      assertEquals(0, put(store, "b"));
      assertEquals(2L * OBJECT, store.usedBytes());
      assertEquals(0, store.remove("a", true));
      assertEquals((long) OBJECT, store.usedBytes());
      assertEquals(1, store.removeByRegex("^", true));
      assertEquals(0, store.usedBytes());
    }
  }
}
