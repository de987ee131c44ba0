package dev.mooncake.jcache.internal.backend.inprocess;

import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Off-heap memory is really returned, when the store says so, not when the garbage collector runs:
 * measured with the JVM's own "direct" buffer pool accounting. The tests allocate nothing direct
 * themselves (heap values and destinations only) so that the accounting is all the store's.
 */
class InProcessMemoryTest {
  private static final long SLACK = 256 * 1024;
  private static final int MB = (int) MIB;

  private long baseline;

  private static long directUsed() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return pool.getMemoryUsed();
      }
    }
    throw new AssertionError("no direct buffer pool MXBean");
  }

  private static ByteBuffer heapValue(int size, int fill) {
    byte[] bytes = new byte[size];
    java.util.Arrays.fill(bytes, (byte) fill);
    return ByteBuffer.wrap(bytes);
  }

  @BeforeEach
  void measure() throws InterruptedException {
    assertTrue(DirectMemory.freesPromptly(), "Unsafe#invokeCleaner is unavailable");
    // Other test classes in this JVM leave direct garbage; collect it now, so that no cleaner
    // lowers the counter in the middle of a test.
    System.gc();
    long deadline = System.nanoTime() + 5_000_000_000L;
    long previous;
    do {
      previous = directUsed();
      Thread.sleep(50);
    } while (directUsed() != previous && System.nanoTime() < deadline);
    baseline = directUsed();
  }

  @Test
  void closeReturnsEveryByteOfObjectsAndStagingBuffers() {
    InProcessStore store = InProcessStore.open(TestConfigs.segment(64 * MIB));
    for (int i = 0; i < 48; i++) {
      assertEquals(0, store.put("k" + i, heapValue(MB, i)));
    }
    List<ByteBuffer> staging = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      staging.add(store.buffers().acquire(MB));
    }
    staging.forEach(store.buffers()::release); // pooled: still allocated until close
    assertTrue(directUsed() >= baseline + 51 * MIB, "used " + (directUsed() - baseline));

    store.close();
    assertTrue(directUsed() <= baseline + SLACK, "left " + (directUsed() - baseline));
  }

  @Test
  void removeFreesAtOnce() {
    try (InProcessStore store = InProcessStore.open(TestConfigs.segment(64 * MIB))) {
      assertEquals(0, store.put("big", heapValue(16 * MB, 1)));
      assertTrue(directUsed() >= baseline + 16 * MIB);
      assertEquals(0, store.remove("big", true));
      assertTrue(directUsed() <= baseline + SLACK, "left " + (directUsed() - baseline));
    }
  }

  @Test
  void evictionKeepsTheJvmsDirectMemoryWithinTheSegment() {
    try (InProcessStore store = InProcessStore.open(TestConfigs.segment(8 * MIB))) {
      for (int i = 0; i < 64; i++) {
        assertEquals(0, store.put("k" + i, heapValue(MB, i)));
        assertTrue(directUsed() <= baseline + 8 * MIB + SLACK, "at put " + i);
      }
      assertTrue(store.evictions() > 50);
    }
  }

  @Test
  void aReaderHoldingAnObjectDelaysItsFreeUntilItLetsGo() {
    try (InProcessStore store = InProcessStore.open(TestConfigs.segment(64 * MIB))) {
      assertEquals(0, store.put("k", heapValue(16 * MB, 7))); // above the idle limit: freed
      Slot slot = store.table().get("k");
      assertTrue(slot.tryAcquire()); // a get in the middle of its copy
      // measured here, not against the test's baseline: direct buffers other tests left for the
      // GC may be freed meanwhile, which made the baseline comparison fail in a long run
      long held = directUsed();

      assertEquals(0, store.remove("k", true));
      assertEquals(-704, store.getInto("k", ByteBuffer.allocate(16 * MB)));
      assertEquals(0, store.usedBytes()); // the budget is back at once …
      assertTrue(directUsed() > held - 16 * MIB); // … the memory stays while it is read

      ByteBuffer copy = ByteBuffer.allocate(16 * MB);
      slot.copyTo(copy);
      for (int i = 0; i < 16 * MB; i += 4096) {
        assertEquals(7, copy.get(i));
      }
      slot.release();
      assertTrue(directUsed() <= baseline + SLACK, "left " + (directUsed() - baseline));
      assertEquals(false, slot.tryAcquire());
    }
  }

  @Test
  void aReplaceReusesTheMemoryOfTheValueItReplaces() {
    try (InProcessStore store = InProcessStore.open(TestConfigs.segment(64 * MIB))) {
      assertEquals(0, store.put("k", heapValue(MB, 1)));
      long afterFirst = directUsed();
      for (int i = 0; i < 20; i++) {
        assertEquals(0, store.remove("k", true));
        assertEquals(MIB, store.idleBytes()); // kept for the next put …
        assertEquals(0, store.put("k", heapValue(MB - 100, i))); // … of the same size class
        assertEquals(0, store.idleBytes());
        assertEquals(afterFirst, directUsed(), "a replace allocated direct memory");
      }
      ByteBuffer destination = ByteBuffer.allocate(MB);
      assertEquals(MB - 100, store.getInto("k", destination));
      assertEquals(19, destination.get(MB - 101)); // the reused memory holds the new value
    }
  }

  @Test
  void idleMemoryIsBoundedByAnEighthOfTheSegment() {
    try (InProcessStore store = InProcessStore.open(TestConfigs.segment(32 * MIB))) {
      for (int i = 0; i < 16; i++) {
        assertEquals(0, store.put("k" + i, heapValue(MB, i)));
      }
      for (int i = 0; i < 16; i++) {
        assertEquals(0, store.remove("k" + i, true));
      }
      assertEquals(4 * MIB, store.idleBytes());
      assertTrue(directUsed() <= baseline + 4 * MIB + SLACK, "left " + (directUsed() - baseline));
      store.close();
      assertTrue(directUsed() <= baseline + SLACK, "left " + (directUsed() - baseline));
    }
  }

  @Test
  void freshMemoryFreesIdleBuffersOfOtherSizesToStayWithinTheSegment() {
    try (InProcessStore store = InProcessStore.open(TestConfigs.segment(16 * MIB))) {
      for (int i = 0; i < 12; i++) {
        assertEquals(0, store.put("small" + i, heapValue(128 * 1024, i)));
      }
      for (int i = 0; i < 12; i++) {
        assertEquals(0, store.remove("small" + i, true));
      }
      assertEquals(12 * 128 * 1024, store.idleBytes()); // 1.5 MiB, under 16 MiB / 8
      // Objects of another class fill the segment: the idle small buffers must go first.
      for (int i = 0; i < 14; i++) {
        assertEquals(0, store.put("big" + i, heapValue(MB, i)));
        assertTrue(store.usedBytes() + store.idleBytes() <= store.capacityBytes(), "at " + i);
        assertTrue(directUsed() <= baseline + 16 * MIB + SLACK, "at put " + i);
      }
      assertEquals(0, store.evictions()); // 14 MiB fit under the watermark once idle memory went
      assertTrue(store.idleBytes() <= 2 * MIB);
    }
  }
}
