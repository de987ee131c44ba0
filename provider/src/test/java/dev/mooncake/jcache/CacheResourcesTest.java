package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The cache over a bounded, evicting in-process store, and memory handed back on close. */
class CacheResourcesTest {
  private final JCacheFixture fixture = new JCacheFixture();

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  @Test
  void smallSegmentEvictsOldEntriesAndKeepsServing() {
    MooncakeCacheManager manager = fixture.manager(
        TestConfigs.withSegment(TestConfigs.inProcess(), 1 << 20, 1 << 20));
    Cache<Integer, byte[]> cache = manager.createCache("blobs",
        new MutableConfiguration<Integer, byte[]>().setTypes(Integer.class, byte[].class));
    byte[] value = new byte[32 * 1024];
    for (int i = 0; i < 200; i++) {
      Arrays.fill(value, (byte) i);
      cache.put(i, value.clone()); // 200 × 32 KiB into 1 MiB: most must be evicted
    }
    assertNull(cache.get(0), "the oldest entry survived a segment 6x too small");
    byte[] newest = cache.get(199);
    byte[] expected = new byte[32 * 1024];
    Arrays.fill(expected, (byte) 199);
    assertArrayEquals(expected, newest);
    int present = 0;
    for (Cache.Entry<Integer, byte[]> entry : cache) {
      present++;
      byte[] fill = new byte[32 * 1024];
      Arrays.fill(fill, (byte) (int) entry.getKey());
      assertArrayEquals(fill, entry.getValue(), "entry " + entry.getKey() + " corrupted");
    }
    assertTrue(present > 0 && present < 32, "present after eviction: " + present);
  }

  @Test
  void closingTheManagerReturnsItsOffHeapMemory() {
    long before = directMemoryUsed();
    MooncakeCacheManager manager = fixture.manager(
        TestConfigs.withSegment(TestConfigs.inProcess(), 64L << 20, 8L << 20));
    Cache<Integer, byte[]> cache = manager.createCache("blobs",
        new MutableConfiguration<Integer, byte[]>().setTypes(Integer.class, byte[].class));
    for (int i = 0; i < 256; i++) {
      cache.put(i, new byte[64 * 1024]);
    }
    long filled = directMemoryUsed();

    manager.close();

    long after = directMemoryUsed();
    // Compared with the level just before close, not with the start: buffers of earlier test
    // classes freed by the GC meanwhile would make growth since the start read as less.
    assertTrue(filled - after >= 16L << 20, "16 MiB stored, close handed back only "
        + (filled - after));
    assertTrue(after - before < 1L << 20,
        "after close, direct memory is still " + (after - before) + " bytes above the start");
    assertEquals(true, cache.isClosed());
  }

  private static long directMemoryUsed() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return pool.getMemoryUsed();
      }
    }
    throw new AssertionError("no direct buffer pool bean");
  }
}
