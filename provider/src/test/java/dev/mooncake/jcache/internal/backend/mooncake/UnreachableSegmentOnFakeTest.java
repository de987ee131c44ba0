package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.ZeroCopyCache;
import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Objects whose segment is gone (the fake's {@code unreachable=-800}: reads of the objects stored
 * so far answer -800 TRANSFER_FAIL, as Mooncake does until its client_ttl drops a dead JVM's
 * segment) read as absent through every read of the JCache API, under both consistencies;
 * read-through loads them once and the loaded value is stored (the old object removed first);
 * writes that answer -800 stay errors.
 */
class UnreachableSegmentOnFakeTest {
  private final MooncakeCachingProvider provider = new MooncakeCachingProvider();
  @TempDir Path dir;

  /** Counts loads, answers "loaded-" + key. */
  public static final class CountingLoader implements CacheLoader<String, String> {
    static final AtomicInteger LOADS = new AtomicInteger();

    @Override
    public String load(String key) {
      LOADS.incrementAndGet();
      return "loaded-" + key;
    }

    @Override
    public Map<String, String> loadAll(Iterable<? extends String> keys) {
      Map<String, String> all = new java.util.HashMap<>();
      keys.forEach(k -> all.put(k, load(k)));
      return all;
    }
  }

  private CacheManager manager(String consistency) throws Exception {
    Fake.control("reset=1");
    Path config = dir.resolve("mooncake-" + consistency + ".json");
    Files.writeString(
        config,
        """
        {"backend": "mooncake", "library": "%s", "master_server_address": "127.0.0.1:50051",
         "metadata_server": "P2PHANDSHAKE", "protocol": "tcp", "local_hostname": "127.0.0.1",
         "global_segment_size": "16MB", "local_buffer_size": "8MB",
         "tenant_id": "unreachable-%s", "consistency": "%s", "operation_timeout_ms": 2000}
        """
            .formatted(Fake.library(), consistency, consistency));
    return provider.getCacheManager(config.toUri(), getClass().getClassLoader());
  }

  @AfterEach
  void close() {
    Fake.control("reset=1");
    provider.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "cluster"})
  void readsOfUnreachableObjectsAreMissesAndReadThroughLoadsOnce(String consistency)
      throws Exception {
    CacheManager manager = manager(consistency);
    Cache<String, String> plain =
        manager.createCache(
            "plain",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    Cache<String, String> loading =
        manager.createCache(
            "loading",
            new MutableConfiguration<String, String>()
                .setTypes(String.class, String.class)
                .setReadThrough(true)
                .setCacheLoaderFactory(FactoryBuilder.factoryOf(CountingLoader.class)));
    Cache<String, byte[]> bytes =
        manager.createCache(
            "bytes",
            new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
    for (int i = 0; i < 3; i++) {
      plain.put("k" + i, "v" + i);
      loading.put("k" + i, "stored-" + i);
    }
    bytes.put("z", new byte[] {1, 2, 3});
    Fake.control("unreachable=-800"); // every object stored so far: its segment is gone

    assertNull(plain.get("k0"));
    assertEquals(Map.of(), plain.getAll(Set.of("k1", "k2", "never-stored")));
    boolean exists = plain.<Boolean>invoke("k1", (entry, args) -> entry.exists());
    assertFalse(exists, "invoke sees no entry");
    @SuppressWarnings("unchecked")
    ZeroCopyCache<String> zeroCopy = bytes.unwrap(ZeroCopyCache.class);
    ByteBuffer destination = zeroCopy.allocate(64).clear();
    assertEquals(-1, zeroCopy.get("z", destination));
    zeroCopy.release(destination);

    CountingLoader.LOADS.set(0);
    assertEquals("loaded-k0", loading.get("k0"));
    assertEquals("loaded-k0", loading.get("k0"), "the loaded value was stored, not kept out");
    assertEquals(1, CountingLoader.LOADS.get());
    assertEquals(Map.of("k1", "loaded-k1", "k2", "loaded-k2"), loading.getAll(Set.of("k1", "k2")));
    assertEquals(3, CountingLoader.LOADS.get());

    plain.put("k2", "new"); // a write over an unreachable object replaces it
    assertEquals("new", plain.get("k2"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "cluster"})
  void writesAnsweringTransferFailStayErrors(String consistency) throws Exception {
    Cache<String, String> cache =
        manager(consistency)
            .createCache(
                "writes",
                new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    Fake.control("fail_ops=-800");
    CacheException e = assertThrows(CacheException.class, () -> cache.put("k", "v"));
    assertTrue(e.getMessage().contains("-800 TRANSFER_FAIL"), e.getMessage());
  }
}
