package dev.mooncake.jcache;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.connection.StoreConnection;
import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.net.URI;
import java.util.Properties;
import javax.cache.CacheManager;

/**
 * The one door the reliability tests (dev.mooncake.jcache.reliability) need past the public API: a
 * cache manager on an in-process store the test also holds, so a test can plant raw objects
 * (foreign, corrupted, another cache's) where the cache will read them. Over the Mooncake backend
 * the tests do the same through the native client, which needs no such door.
 */
public final class ReliabilityHooks {
  private ReliabilityHooks() {}

  /** The store a config URI would open, for {@link #managerOn}. */
  public static ObjectStore openStore(URI configUri) {
    return StoreConnection.open(
            ConfigLoader.load(configUri, ReliabilityHooks.class.getClassLoader()),
            dev.mooncake.jcache.internal.time.Ticker.system())
        .store();
  }

  /** A manager of the config at {@code configUri} on {@code store} (not closed with it). */
  public static CacheManager managerOn(URI configUri, ClassLoader loader, ObjectStore store) {
    MooncakeConfig config = ConfigLoader.load(configUri, loader);
    return new MooncakeCacheManager(
        new MooncakeCachingProvider(),
        manager -> {},
        configUri,
        loader,
        new Properties(),
        config,
        StoreConnection.of(store));
  }
}
