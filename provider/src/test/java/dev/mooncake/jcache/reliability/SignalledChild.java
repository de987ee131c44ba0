package dev.mooncake.jcache.reliability;

import java.net.URI;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * A JVM that opens a cache manager on the config {@code args[0]}, writes {@code k = v} into cache
 * "held", registers a shutdown hook of its own that prints HOOK-RAN, prints READY and then waits
 * for a signal. It never closes its manager: the provider's shutdown hook is the only thing that
 * closes the store (as in an application that leaves its managers to the JVM's exit).
 */
public final class SignalledChild {
  private SignalledChild() {}

  public static void main(String[] args) throws Exception {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> System.out.println("HOOK-RAN"), "child-hook"));
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(URI.create(args[0]), SignalledChild.class.getClassLoader());
    Cache<String, String> cache =
        manager.createCache(
            "held",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    cache.put("k", "v");
    System.out.println("READY");
    System.out.flush();
    Thread.currentThread().join(); // until a signal ends the JVM
  }
}
