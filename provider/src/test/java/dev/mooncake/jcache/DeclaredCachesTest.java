package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Caches declared in the config file's {@code caches} section. */
class DeclaredCachesTest {
  private final MooncakeCachingProvider provider = new MooncakeCachingProvider();
  @TempDir Path dir;

  @AfterEach
  void close() {
    provider.close();
  }

  private CacheManager manager(String json) throws Exception {
    Path file = dir.resolve("mooncake.json");
    Files.writeString(file, json);
    return provider.getCacheManager(file.toUri(), getClass().getClassLoader());
  }

  private static final String CONFIG =
      """
      {"tenant_id": "declared",
       "caches": {
         "users": {"key_type": "java.lang.String", "value_type": "java.lang.Integer",
                   "expiry": {"policy": "created", "duration": "5m"}, "statistics": true}}}
      """;

  @Test
  void declaredCacheNeedsNoCreateCache() throws Exception {
    CacheManager manager = manager(CONFIG);
    List<String> names = new ArrayList<>();
    manager.getCacheNames().forEach(names::add);
    assertEquals(List.of("users"), names);

    Cache<String, Integer> users = manager.getCache("users", String.class, Integer.class);
    assertNotNull(users);
    assertSame(users, manager.getCache("users"));
    users.put("alice", 1);
    assertEquals(1, users.get("alice"));
    CompleteConfiguration<?, ?> c = users.getConfiguration(CompleteConfiguration.class);
    assertTrue(c.isStatisticsEnabled());
    ExpiryPolicy expiry = c.getExpiryPolicyFactory().create();
    assertEquals(
        new Duration(java.util.concurrent.TimeUnit.MINUTES, 5), expiry.getExpiryForCreation());
  }

  @Test
  void createCacheMergesItsConfigurationOverTheFiles() throws Exception {
    CacheManager manager = manager(CONFIG);
    Cache<String, Integer> users =
        manager.createCache(
            "users",
            new MutableConfiguration<String, Integer>()
                .setTypes(String.class, Integer.class)
                .setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(Duration.ONE_HOUR)));
    CompleteConfiguration<?, ?> c = users.getConfiguration(CompleteConfiguration.class);
    assertEquals(Duration.ONE_HOUR, c.getExpiryPolicyFactory().create().getExpiryForCreation());
    assertTrue(c.isStatisticsEnabled(), "the file's statistics switch was lost in the merge");
    assertThrows(
        CacheException.class, () -> manager.createCache("users", new MutableConfiguration<>()));
  }

  @Test
  void destroyedDeclaredCacheStaysGone() throws Exception {
    CacheManager manager = manager(CONFIG);
    manager.getCache("users").put("alice", 1);
    manager.destroyCache("users");
    assertNull(manager.getCache("users"));
    assertTrue(!manager.getCacheNames().iterator().hasNext());
  }

  @Test
  void declaredCacheWithAnUnknownClassFailsWhenTheManagerIsCreated() {
    CacheException error =
        assertThrows(
            CacheException.class,
            () ->
                manager(
                    """
        {"caches": {"orders": {"key_type": "com.example.NoSuchKey"}}}
        """));
    assertTrue(error.getMessage().contains("orders"), error.getMessage());
    assertTrue(error.getMessage().contains("com.example.NoSuchKey"), error.getMessage());
  }
}
