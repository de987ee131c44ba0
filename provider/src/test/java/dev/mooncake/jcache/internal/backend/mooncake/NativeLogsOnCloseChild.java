package dev.mooncake.jcache.internal.backend.mooncake;

import java.net.URI;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * A JVM for {@link NativeLogsOnCloseTest}: opens a cache manager on the config {@code args[0]},
 * writes one value, then either closes the manager and prints {@code CLOSED} ({@code close}), or
 * exits with the manager open, leaving the store to the provider's shutdown hook ({@code exit}).
 */
public final class NativeLogsOnCloseChild {
  private NativeLogsOnCloseChild() {}

  public static void main(String[] args) {
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(URI.create(args[0]), NativeLogsOnCloseChild.class.getClassLoader());
    Cache<String, String> cache =
        manager.createCache(
            "logs",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    cache.put("k", "v");
    if (args[1].equals("close")) {
      manager.close();
      System.out.println("CLOSED");
      System.out.flush();
    }
    System.exit(0);
  }
}
