package dev.mooncake.jcache;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.connection.StoreConnection;
import dev.mooncake.jcache.internal.time.FakeTicker;
import dev.mooncake.jcache.internal.time.Ticker;
import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;

/**
 * Builds managers and caches for tests and closes them all afterwards. Every manager runs on the
 * fixture's {@link FakeTicker} (as Caffeine's JCacheFixture does): expiry tests advance it instead
 * of sleeping.
 */
final class JCacheFixture implements AutoCloseable {
  private final MooncakeCachingProvider provider = new MooncakeCachingProvider();
  private final List<AutoCloseable> opened = new ArrayList<>();
  final FakeTicker ticker = new FakeTicker();

  /** The provider properties every manager of the fixture gets: its ticker. */
  Properties properties() {
    Properties properties = new Properties();
    properties.put(Ticker.PROPERTY, ticker);
    return properties;
  }

  /** A manager on its own in-process store. */
  MooncakeCacheManager manager(MooncakeConfig config) {
    MooncakeCacheManager manager =
        new MooncakeCacheManager(
            provider,
            provider::forget,
            URI.create("test:" + config.tenantId() + "-" + opened.size()),
            getClass().getClassLoader(),
            properties(),
            config);
    opened.add(manager);
    return manager;
  }

  /** A manager on a given store (which may be shared with other managers). */
  MooncakeCacheManager manager(MooncakeConfig config, ObjectStore store) {
    MooncakeCacheManager manager =
        new MooncakeCacheManager(
            provider,
            provider::forget,
            URI.create("test:" + config.tenantId() + "-" + opened.size()),
            getClass().getClassLoader(),
            properties(),
            config,
            StoreConnection.of(store));
    opened.add(manager);
    return manager;
  }

  /** A manager on a given store connection (whose locks the test chose). */
  MooncakeCacheManager manager(MooncakeConfig config, StoreConnection connection) {
    MooncakeCacheManager manager =
        new MooncakeCacheManager(
            provider,
            provider::forget,
            URI.create("test:" + config.tenantId() + "-" + opened.size()),
            getClass().getClassLoader(),
            properties(),
            config,
            connection);
    opened.add(manager);
    return manager;
  }

  <K, V> Cache<K, V> cache(String name, Class<K> keyType, Class<V> valueType) {
    return manager(TestConfigs.inProcess())
        .createCache(name, new MutableConfiguration<K, V>().setTypes(keyType, valueType));
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable closeable : opened) {
      closeable.close();
    }
  }
}
