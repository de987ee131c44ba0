package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import java.nio.file.Path;
import java.util.Arrays;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pool full of objects that cannot be evicted (hard-pinned), over the fake library with its
 * eviction on, as a Mooncake master evicts: puts fail with a message naming -200, gets and removes
 * keep working, and puts succeed again once space returns. The same on a real Mooncake:
 * dev.mooncake.jcache.real.RealMooncakeFaultsTest.
 */
class PoolFullTest {
  private static final int VALUE = 256 * 1024;

  @TempDir Path dir;

  private static void control(String assignment) {
    try (MooncakeClient client =
        MooncakeClient.create(MooncakeLibrary.open(Configs.fakeLibrary(), null))) {
      assertEquals(0, client.remove(MooncakeClient.key("__fake_mc__/ctl/" + assignment), true));
    }
  }

  @BeforeEach
  void evictionOn() {
    control("eviction=1");
  }

  @AfterEach
  void evictionOff() {
    control("eviction=0");
  }

  private static byte[] value(int i) {
    byte[] bytes = new byte[VALUE];
    Arrays.fill(bytes, (byte) i);
    return bytes;
  }

  @Test
  void hardPinnedObjectsFillThePoolThenSpaceReturns() {
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(
                Configs.fake(dir, "pool-full", "16MB", "\"with_hard_pin\": true, \"abi\": \"v2\""),
                getClass().getClassLoader());
    try {
      Cache<String, byte[]> cache =
          manager.createCache(
              "pinned",
              new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
      int stored = 0;
      CacheException full = null;
      long start = System.nanoTime();
      for (int i = 0; i < 20_000 && full == null; i++) {
        try {
          cache.put("k" + i, value(i));
          stored++;
        } catch (CacheException e) {
          full = e;
        }
      }
      long fillMillis = (System.nanoTime() - start) / 1_000_000;
      assertNotNull(full, "the pool never filled");
      assertTrue(full.getMessage().contains("-200"), full.getMessage());
      System.out.printf(
          "pool full after %d hard-pinned puts of %d KB in %d ms: %s%n",
          stored, VALUE / 1024, fillMillis, full.getMessage());
      // Nothing was evicted: every stored object is still there, and reads work.
      for (int i = 0; i < stored; i++) {
        assertArrayEquals(value(i), cache.get("k" + i), "k" + i);
      }
      String failedKey = "k" + stored;
      assertNull(cache.get(failedKey), "the failed put left nothing behind");
      // Further puts fail the same way, at once; removes work.
      CacheException again =
          org.junit.jupiter.api.Assertions.assertThrows(
              CacheException.class, () -> cache.put("another", value(1)));
      assertTrue(again.getMessage().contains("-200"), again.getMessage());
      for (int i = 0; i < 8; i++) {
        assertTrue(cache.remove("k" + i), "remove k" + i);
      }
      // Space returned: puts succeed again, without a restart.
      cache.put("after", value(7));
      assertArrayEquals(value(7), cache.get("after"));
      cache.put(failedKey, value(9));
      assertArrayEquals(value(9), cache.get(failedKey));
      System.out.printf(
          "pool full: %d reads of pinned objects held, 8 removes, 2 puts after%n", stored);
      cache.clear();
    } finally {
      manager.close();
    }
  }
}
