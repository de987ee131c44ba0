package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.ConfigException;
import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A manager whose config declares a cache with a class that cannot be loaded fails when it is
 * created, naming the class, and gives its lease on the Mooncake client back (the build sets the
 * client linger to 0, so an unused client closes at once).
 */
class FailedManagerGivesItsClientBackTest {
  private final MooncakeCachingProvider provider = new MooncakeCachingProvider();

  @AfterEach
  void close() {
    provider.close();
  }

  @Test
  void aBadDeclaredCacheFailsTheManagerAndLeavesNoClient(@TempDir Path dir) throws Exception {
    Fake.control("reset=1");
    long clients = Fake.stat("clients");
    Path config = dir.resolve("mooncake.json");
    Files.writeString(
        config,
        """
        {"backend": "mooncake", "library": "%s", "master_server_address": "127.0.0.1:50051",
         "metadata_server": "P2PHANDSHAKE", "protocol": "tcp", "local_hostname": "127.0.0.1",
         "global_segment_size": "16MB", "local_buffer_size": "8MB", "tenant_id": "bad",
         "caches": {"orders": {"loader": "com.example.NoSuchLoader"}}}
        """
            .formatted(Fake.library()));
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> provider.getCacheManager(config.toUri(), getClass().getClassLoader()));
    assertTrue(e.getMessage().contains("com.example.NoSuchLoader"), e.getMessage());
    assertEquals(clients, Fake.stat("clients"), "the failed manager kept its Mooncake client");
  }
}
