package dev.mooncake.jcache.internal.backend.mooncake;

import java.net.URI;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * A JVM for {@link NativeAccessOnJava25Test}: opens a cache manager on the config {@code args[0]}
 * as an application would, puts and gets one value and prints {@code OPENED <value>}; when opening
 * fails it prints {@code FAILED <the exception the application sees>} and exits 3.
 */
public final class NativeAccessChild {
  static final int FAILED = 3;

  private NativeAccessChild() {}

  public static void main(String[] args) {
    try (CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(URI.create(args[0]), NativeAccessChild.class.getClassLoader())) {
      Cache<String, String> cache =
          manager.createCache(
              "native-access",
              new MutableConfiguration<String, String>().setTypes(String.class, String.class));
      cache.put("k", "v");
      System.out.println("OPENED " + cache.get("k"));
    } catch (RuntimeException e) {
      System.out.println("FAILED " + e);
      System.out.flush();
      System.exit(FAILED);
    }
    System.exit(0);
  }
}
