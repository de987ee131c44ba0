package dev.mooncake.jcache.config;

import java.net.URI;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CompletionListenerFuture;
import javax.cache.spi.CachingProvider;

/**
 * One seed config in a fresh JVM, opened as its users would: {@code SeedConfigPeer <uri>}
 * (LMCache's JSON as a provider URI), or no argument: the provider's default URI, which {@code
 * MOONCAKE_CONFIG_PATH} names (vLLM's way). It puts, reads, asks containsKey, removes and loads
 * without replacing (a presence check in a batch: the lookup lane), then prints {@code WORKS
 * lookup-threads=<n>} ({@code n}: threads of a dedicated lookup pool that ran) and exits 0; a
 * failure prints {@code REFUSED <every message of the cause chain>} and exits 3.
 */
public final class SeedConfigPeer {
  private SeedConfigPeer() {}

  public static void main(String[] args) {
    try {
      System.out.println("WORKS lookup-threads=" + run(args));
      System.out.flush();
      System.exit(0);
    } catch (Throwable e) {
      StringBuilder messages = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        messages.append(messages.length() == 0 ? "" : " | ").append(t);
      }
      System.out.println("REFUSED " + messages);
      System.out.flush();
      System.exit(3);
    }
  }

  private static long run(String[] args) throws Exception {
    CachingProvider provider = Caching.getCachingProvider();
    URI uri = args.length > 0 ? URI.create(args[0]) : provider.getDefaultURI();
    try (CacheManager manager =
        provider.getCacheManager(uri, SeedConfigPeer.class.getClassLoader())) {
      Cache<String, String> cache =
          manager.createCache(
              "seed",
              new MutableConfiguration<String, String>()
                  .setTypes(String.class, String.class)
                  .setCacheLoaderFactory(FactoryBuilder.factoryOf(UpperCase.class)));
      Map<String, String> values = new HashMap<>();
      for (int i = 0; i < 40; i++) {
        values.put("k" + i, "v" + i);
      }
      cache.putAll(values);
      cache.put("one", "1");
      check("1".equals(cache.getAndPut("one", "one")), "getAndPut");
      check("one".equals(cache.get("one")), "get after put");
      check(cache.containsKey("k7"), "containsKey of a present key");
      check(!cache.containsKey("absent"), "containsKey of an absent key");
      check(values.equals(cache.getAll(values.keySet())), "getAll after putAll");
      check(cache.remove("k7") && !cache.containsKey("k7"), "remove");
      Set<String> toLoad = new HashSet<>(Set.of("k1", "new1", "new2"));
      CompletionListenerFuture loaded = new CompletionListenerFuture();
      cache.loadAll(toLoad, false, loaded);
      loaded.get(60, TimeUnit.SECONDS);
      check("v1".equals(cache.get("k1")), "loadAll without replacing kept a present value");
      check("NEW1".equals(cache.get("new1")), "loadAll loaded an absent key");
      return Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.getName().contains("-lookup-"))
          .count();
    }
  }

  private static void check(boolean holds, String what) {
    if (!holds) {
      throw new AssertionError(what + " did not hold");
    }
  }

  /** Loads a key as its upper case. */
  public static final class UpperCase implements CacheLoader<String, String> {
    @Override
    public String load(String key) {
      return key.toUpperCase(java.util.Locale.ROOT);
    }

    @Override
    public Map<String, String> loadAll(Iterable<? extends String> keys) {
      Map<String, String> loaded = new HashMap<>();
      for (String key : keys) {
        loaded.put(key, load(key));
      }
      return loaded;
    }
  }
}
