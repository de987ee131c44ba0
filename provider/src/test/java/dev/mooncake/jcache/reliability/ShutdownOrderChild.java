package dev.mooncake.jcache.reliability;

import java.net.URI;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * A JVM that exits while another shutdown hook (as Spring's graceful shutdown does) still serves
 * requests that use the cache, and closes the cache manager last. Prints "LATE OK n" when all n
 * late operations succeeded.
 */
public final class ShutdownOrderChild {
  private ShutdownOrderChild() {}

  public static void main(String[] args) throws Exception {
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(URI.create(args[0]), ShutdownOrderChild.class.getClassLoader());
    Cache<String, String> cache =
        manager.createCache(
            "requests",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    cache.put("warm", "up");
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  int ok = 0;
                  try {
                    Thread.sleep(300); // a request still in flight when the JVM started to exit
                    for (int i = 0; i < 50; i++) {
                      cache.put("late-" + i, "v" + i);
                      if (("v" + i).equals(cache.get("late-" + i))) {
                        ok++;
                      }
                    }
                    System.out.println("LATE OK " + ok);
                  } catch (Throwable t) {
                    System.out.println("LATE FAILED after " + ok + ": " + t);
                  } finally {
                    manager.close(); // the application's context closes its cache manager last
                  }
                },
                "app-graceful-shutdown"));
    System.exit(0);
  }
}
