package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failing Mooncake call surfaces from the JCache API as a CacheException that names the
 * operation, the cache and Mooncake's code (the fake library injects the codes).
 */
class CacheErrorsOnMooncakeTest {
  private final MooncakeCachingProvider provider = new MooncakeCachingProvider();
  private Cache<String, String> cache;

  @BeforeEach
  void open(@TempDir Path dir) throws Exception {
    Fake.control("reset=1");
    Path config = dir.resolve("mooncake.json");
    Files.writeString(
        config,
        """
        {"backend": "mooncake", "library": "%s", "master_server_address": "127.0.0.1:50051",
         "metadata_server": "P2PHANDSHAKE", "protocol": "tcp", "local_hostname": "127.0.0.1",
         "global_segment_size": "16MB", "local_buffer_size": "8MB", "tenant_id": "errors",
         "operation_timeout_ms": 3000}
        """
            .formatted(Fake.library()));
    CacheManager manager = provider.getCacheManager(config.toUri(), getClass().getClassLoader());
    cache =
        manager.createCache(
            "orders",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
  }

  @AfterEach
  void close() {
    Fake.control("reset=1");
    provider.close();
  }

  /** Lock calls wait out a full pool until the operation's deadline (3 s here), then name it. */
  @Test
  void aFullPoolIsNamedOnPut() {
    Fake.control("fail_ops=-200");
    CacheException error = assertThrows(CacheException.class, () -> cache.put("k", "v"));
    assertMessage(error, "cache 'orders'", "-200 NO_AVAILABLE_HANDLE");
  }

  @Test
  void anRpcTimeoutIsNamedOnGet() {
    cache.put("k", "v");
    Fake.control("fail_ops=-901");
    CacheException error = assertThrows(CacheException.class, () -> cache.get("k"));
    assertMessage(error, "get on cache 'orders'", "-901 RPC_TIMEOUT");
  }

  @Test
  void batchFailuresAreNamedToo() {
    Fake.control("fail_batch=-200");
    CacheException error =
        assertThrows(CacheException.class, () -> cache.putAll(Map.of("a", "1", "b", "2")));
    assertMessage(error, "batch put on cache 'orders'", "-200 NO_AVAILABLE_HANDLE");
  }

  @Test
  void theCacheWorksAgainOnceTheStoreRecovers() {
    Fake.control("fail_ops=-901");
    assertThrows(CacheException.class, () -> cache.put("k", "v"));
    // The -901 sent a master probe (MasterOutage); it answers before the store recovers, so the
    // next put does not depend on which of the two came first.
    SharedMooncakeStores.awaitMasterProbes();
    Fake.control("fail_ops=0");
    cache.put("k", "v");
    assertEquals("v", cache.get("k"));
    assertEquals(Map.of("k", "v"), cache.getAll(Set.of("k")));
  }

  private static void assertMessage(CacheException error, String... fragments) {
    for (String fragment : fragments) {
      assertTrue(error.getMessage().contains(fragment), error.getMessage());
    }
  }
}
