package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.cache.CacheManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What closing managers and the provider release: the shared Mooncake client stays while any
 * manager holds it, lingers for clientLingerMillis once none does (a manager opened again soon
 * finds it), then closes; with the linger at 0 it closes with the last manager. Over the fake.
 */
class ProviderCloseReleasesTheClientTest {
  private String lingerBefore;
  private URI config;

  @BeforeEach
  void setUp(@TempDir Path dir) throws Exception {
    Fake.control("reset=1");
    lingerBefore = System.getProperty(SharedMooncakeStores.LINGER_PROPERTY);
    Path file = dir.resolve("mooncake.json");
    Files.writeString(
        file,
        """
        {"backend": "mooncake", "library": "%s", "master_server_address": "127.0.0.1:50051",
         "metadata_server": "P2PHANDSHAKE", "protocol": "tcp", "local_hostname": "127.0.0.1",
         "global_segment_size": "16MB", "local_buffer_size": "8MB", "tenant_id": "release"}
        """
            .formatted(Fake.library()));
    config = file.toUri();
  }

  @AfterEach
  void restore() {
    if (lingerBefore == null) {
      System.clearProperty(SharedMooncakeStores.LINGER_PROPERTY);
    } else {
      System.setProperty(SharedMooncakeStores.LINGER_PROPERTY, lingerBefore);
    }
  }

  @Test
  void theProvidersCloseGivesTheClientBackAfterTheLinger() throws Exception {
    System.setProperty(SharedMooncakeStores.LINGER_PROPERTY, "300");
    long clients = Fake.stat("clients");
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    ClassLoader other = new URLClassLoader(new URL[0], getClass().getClassLoader());
    CacheManager first = provider.getCacheManager(config, getClass().getClassLoader());
    provider.getCacheManager(config, other);
    assertEquals(clients + 1, Fake.stat("clients"), "two managers of one cluster, one client");
    first.close();
    assertEquals(clients + 1, Fake.stat("clients"), "the other manager still holds the client");
    provider.close();
    assertEquals(clients + 1, Fake.stat("clients"), "the client did not linger");
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (Fake.stat("clients") != clients && System.nanoTime() < deadline) {
      Thread.sleep(50); // polls for the linger timer's close, bounded; asserts nothing on timing
    }
    assertEquals(clients, Fake.stat("clients"), "the provider's close left the client open");
  }

  @Test
  void withoutTheLingerTheLastManagersCloseClosesTheClient() {
    System.setProperty(SharedMooncakeStores.LINGER_PROPERTY, "0");
    long clients = Fake.stat("clients");
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    provider.getCacheManager(config, getClass().getClassLoader());
    assertEquals(clients + 1, Fake.stat("clients"));
    provider.close();
    assertEquals(clients, Fake.stat("clients"), "the provider's close left the client open");
  }
}
