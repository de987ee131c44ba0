package dev.mooncake.jcache.samples.springboot;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.cache.CacheManager;
import javax.cache.management.CacheStatisticsMXBean;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.springframework.stereotype.Component;

/**
 * Reads a cache's JSR-107 statistics from the platform MBean server, where the provider registers
 * them for every cache with {@code "statistics": true}. Standard JCache: no provider classes used.
 */
@Component
public class CacheStatisticsReader {
  private final CacheManager cacheManager;
  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

  /** Spring Boot exposes the JCache manager it built from spring.cache.jcache.config as a bean. */
  public CacheStatisticsReader(CacheManager cacheManager) {
    this.cacheManager = cacheManager;
  }

  /** The live statistics bean of one cache. */
  public CacheStatisticsMXBean statistics(String cacheName) {
    ObjectName name = objectName(cacheName);
    if (!server.isRegistered(name)) {
      throw new IllegalStateException(
          "no statistics for cache '"
              + cacheName
              + "' ("
              + name
              + "): declare it in mooncake.json with \"statistics\": true");
    }
    return JMX.newMXBeanProxy(server, name, CacheStatisticsMXBean.class);
  }

  /** Every cache's counters, for the /cache-stats endpoint. */
  public Map<String, Map<String, Object>> snapshot() {
    Map<String, Map<String, Object>> all = new LinkedHashMap<>();
    for (String cacheName : cacheManager.getCacheNames()) {
      if (!server.isRegistered(objectName(cacheName))) {
        continue;
      }
      CacheStatisticsMXBean s = statistics(cacheName);
      Map<String, Object> counters = new LinkedHashMap<>();
      counters.put("gets", s.getCacheGets());
      counters.put("hits", s.getCacheHits());
      counters.put("misses", s.getCacheMisses());
      counters.put("hitPercentage", s.getCacheHitPercentage());
      counters.put("puts", s.getCachePuts());
      counters.put("removals", s.getCacheRemovals());
      counters.put("evictions", s.getCacheEvictions());
      all.put(cacheName, counters);
    }
    return all;
  }

  /**
   * {@code javax.cache:type=CacheStatistics,CacheManager=<uri>,Cache=<name>}, with ',', ':', '='
   * (and newlines) in the URI and name replaced by '.', as the provider registers it.
   */
  ObjectName objectName(String cacheName) {
    try {
      return new ObjectName(
          "javax.cache:type=CacheStatistics"
              + ",CacheManager="
              + safe(cacheManager.getURI().toString())
              + ",Cache="
              + safe(cacheName));
    } catch (MalformedObjectNameException e) {
      throw new IllegalArgumentException("cache name " + cacheName, e);
    }
  }

  private static String safe(String text) {
    return text.replaceAll("[,:=\n]", ".");
  }
}
