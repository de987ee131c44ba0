package dev.mooncake.jcache.samples.springboot;

import io.micrometer.core.instrument.Tag;
import javax.cache.configuration.MutableConfiguration;
import org.springframework.boot.actuate.metrics.cache.CacheMetricsRegistrar;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.stereotype.Component;

/**
 * Creates caches that mooncake.json does not declare, after start-up, and makes them visible in
 * {@code /actuator/metrics}. Spring Boot binds to Micrometer only the caches its cache manager
 * lists at start-up; a cache created later is usable at once (Spring's JCache manager looks it up
 * by name) but has no metrics until {@link CacheMetricsRegistrar#bindCacheToRegistry} is called.
 */
@Component
public class RuntimeCaches {
  /** The tag Spring Boot gives the caches it binds itself: the cache manager's bean name. */
  private static final Tag CACHE_MANAGER = Tag.of("cache.manager", "cacheManager");

  private final javax.cache.CacheManager jcacheManager;
  private final CacheManager springCacheManager;
  private final CacheMetricsRegistrar metrics;

  public RuntimeCaches(javax.cache.CacheManager jcacheManager, CacheManager springCacheManager,
      CacheMetricsRegistrar metrics) {
    this.jcacheManager = jcacheManager;
    this.springCacheManager = springCacheManager;
    this.metrics = metrics;
  }

  /**
   * A new Mooncake cache with statistics on (Micrometer reads its CacheStatistics MBean), as a
   * Spring cache bound to the meter registry.
   */
  public <K, V> Cache create(String name, Class<K> keyType, Class<V> valueType) {
    jcacheManager.createCache(name, new MutableConfiguration<K, V>()
        .setTypes(keyType, valueType)
        .setStatisticsEnabled(true));
    Cache cache = springCacheManager.getCache(name);
    if (cache == null) {
      throw new IllegalStateException("Spring's cache manager does not see the new cache " + name);
    }
    metrics.bindCacheToRegistry(cache, CACHE_MANAGER);
    return cache;
  }
}
