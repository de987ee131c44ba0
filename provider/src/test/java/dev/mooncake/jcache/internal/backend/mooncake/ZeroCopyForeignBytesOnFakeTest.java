package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.ZeroCopyCache;
import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A zero-copy get whose transfer brought another key's object (the fake's {@code foreign_reads}:
 * what a reader whose block was reused gets) leaves none of its bytes in the caller's buffer,
 * whatever the call ends with: a miss, a hit on a shorter value, retries exhausted, a time-out.
 * Every destination starts filled with {@link #MINE}; afterwards each byte is {@code MINE} or zero,
 * and exactly the range the foreign object was transferred into is zero.
 */
class ZeroCopyForeignBytesOnFakeTest {
  private static final byte MINE = 0x55;
  private static final byte FOREIGN = 0x77;
  private static final int FOREIGN_SIZE = 200;
  private static final int FOREIGN_OBJECT =
      ZeroCopyCache.HEADER_BYTES + FOREIGN_SIZE + ZeroCopyCache.TRAILER_BYTES;
  private static final int POSITION = 16;
  private static final int LIMIT = 1000;

  private final MooncakeCachingProvider provider = new MooncakeCachingProvider();
  @TempDir Path dir;

  @AfterEach
  void close() {
    Fake.control("reset=1");
    provider.close();
  }

  @SuppressWarnings("unchecked")
  private ZeroCopyCache<String> zeroCopy(String name, int timeoutMs) throws Exception {
    Fake.control("reset=1");
    Path config = dir.resolve(name + ".json");
    Files.writeString(
        config,
        """
        {"backend": "mooncake", "library": "%s", "master_server_address": "127.0.0.1:50051",
         "metadata_server": "P2PHANDSHAKE", "protocol": "tcp", "local_hostname": "127.0.0.1",
         "global_segment_size": "16MB", "local_buffer_size": "8MB",
         "tenant_id": "foreign-%s", "consistency": "local", "operation_timeout_ms": %d}
        """
            .formatted(Fake.library(), name, timeoutMs));
    CacheManager manager = provider.getCacheManager(config.toUri(), getClass().getClassLoader());
    Cache<String, byte[]> cache =
        manager.createCache(
            "blobs",
            new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
    return cache.unwrap(ZeroCopyCache.class);
  }

  /** Puts {@code size} bytes of {@code fill} under {@code key}: the fake's last put. */
  private static void put(ZeroCopyCache<String> cache, String key, int size, byte fill) {
    ByteBuffer value = cache.allocate(size);
    for (int i = 0; i < size; i++) {
      value.put(ZeroCopyCache.HEADER_BYTES + i, fill);
    }
    cache.put(key, value);
    cache.release(value);
  }

  /** A cache holding "mine" (3 bytes of 1), then "other", the fake's last put. */
  private ZeroCopyCache<String> mineThenOther(String name, int timeoutMs) throws Exception {
    ZeroCopyCache<String> cache = zeroCopy(name, timeoutMs);
    put(cache, "mine", 3, (byte) 1);
    put(cache, "other", FOREIGN_SIZE, FOREIGN);
    return cache;
  }

  private static ByteBuffer destination() {
    ByteBuffer destination = ByteBuffer.allocateDirect(1024);
    for (int i = 0; i < destination.capacity(); i++) {
      destination.put(i, MINE);
    }
    return destination.position(POSITION).limit(LIMIT);
  }

  /** Zero in {@code [POSITION + from, POSITION + to)}, the caller's byte everywhere else. */
  private static void assertZeroedOnly(ByteBuffer destination, int from, int to) {
    ByteBuffer all = destination.duplicate().clear();
    for (int i = 0; i < all.capacity(); i++) {
      boolean zeroed = i >= POSITION + from && i < POSITION + to;
      assertEquals(zeroed ? 0 : MINE, all.get(i), "byte " + i + " of the destination");
    }
  }

  /**
   * Zero in {@code [POSITION, POSITION + zeroed)}, zero or the caller's byte in the rest of the
   * frame (a transfer that timed out may have reached any of it), the caller's byte outside.
   */
  private static void assertNothingForeign(ByteBuffer destination, int zeroed) {
    ByteBuffer all = destination.duplicate().clear();
    for (int i = 0; i < all.capacity(); i++) {
      byte b = all.get(i);
      if (i >= POSITION && i < POSITION + zeroed) {
        assertEquals(0, b, "byte " + i + " of the foreign object's range");
      } else if (i >= POSITION && i < LIMIT) {
        assertTrue(b == 0 || b == MINE, "byte " + i + " of the frame is " + b);
      } else {
        assertEquals(MINE, b, "byte " + i + " outside the frame");
      }
    }
  }

  @Test
  void aForeignObjectThenAMissLeavesZerosWhereItWasTransferred() throws Exception {
    ZeroCopyCache<String> cache = zeroCopy("miss", 5_000);
    put(cache, "other", FOREIGN_SIZE, FOREIGN);
    ByteBuffer destination = destination();
    Fake.control("foreign_reads=1");

    assertEquals(-1, cache.get("absent", destination));

    assertEquals(POSITION, destination.position());
    assertEquals(LIMIT, destination.limit());
    assertZeroedOnly(destination, 0, FOREIGN_OBJECT);
  }

  @Test
  void aForeignObjectOnEveryRetryFailsAndLeavesNoneOfItsBytes() throws Exception {
    ZeroCopyCache<String> cache = mineThenOther("exhausted", 5_000);
    ByteBuffer destination = destination();
    Fake.control("foreign_reads=100");

    assertThrows(CacheException.class, () -> cache.get("mine", destination));

    assertEquals(POSITION, destination.position());
    assertEquals(LIMIT, destination.limit());
    assertZeroedOnly(destination, 0, FOREIGN_OBJECT);
  }

  @Test
  void aHitOnAShorterValueAfterAForeignObjectLeavesNoTailOfIt() throws Exception {
    ZeroCopyCache<String> cache = mineThenOther("hit", 5_000);
    ByteBuffer destination = destination();
    Fake.control("foreign_reads=1");

    assertEquals(3, cache.get("mine", destination));

    int value = ZeroCopyCache.HEADER_BYTES;
    ByteBuffer all = destination.duplicate().clear();
    for (int i = 0; i < 3; i++) {
      assertEquals(1, all.get(POSITION + value + i), "value byte " + i);
    }
    int mineEnds = value + 3 + ZeroCopyCache.TRAILER_BYTES;
    for (int i = POSITION + mineEnds; i < all.capacity(); i++) {
      boolean zeroed = i < POSITION + FOREIGN_OBJECT;
      assertEquals(zeroed ? 0 : MINE, all.get(i), "byte " + i + " after mine's trailer");
    }
  }

  @Test
  void aTimeOutAfterAForeignObjectLeavesNoneOfItsBytes() throws Exception {
    ZeroCopyCache<String> cache = mineThenOther("time-out", 1_000);
    ByteBuffer destination = destination();
    Fake.control("read_delay_us=400000"); // the second or third read outlasts the 1 s bound
    Fake.control("foreign_reads=100");

    assertThrows(CacheException.class, () -> cache.get("mine", destination));

    assertEquals(POSITION, destination.position());
    assertEquals(LIMIT, destination.limit());
    assertNothingForeign(destination, FOREIGN_OBJECT);
  }
}
