package dev.mooncake.jcache.real;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * The second JVM of {@link RealDeadlinesTest}: {@code <config> <threads>} runs a {@link MixedLoad}
 * on cache "load", prints READY, and on a line "stop" prints {@code MAX <operation> <ms>} per
 * operation type, then DONE.
 */
public final class RealDeadlinesPeer {
  public static void main(String[] args) throws Exception {
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(Path.of(args[0]).toUri(), RealDeadlinesPeer.class.getClassLoader());
    Cache<String, String> cache = manager.getCache("load", String.class, String.class);
    if (cache == null) {
      cache =
          manager.createCache(
              "load",
              new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    }
    MixedLoad load = new MixedLoad(cache, Integer.parseInt(args[1]), "peer-load").start();
    System.out.println("READY");
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null && !line.equals("stop")) {
      // only "stop" is understood
    }
    Map<String, Long> longest = load.stop();
    longest.forEach((op, ms) -> System.out.println("MAX " + op + " " + ms));
    System.out.println("CALLS " + load.calls());
    System.out.println("DONE");
    System.out.flush();
    System.exit(0); // the store's close may wait for calls still inside a stopped master
  }

  private RealDeadlinesPeer() {}
}
