package dev.mooncake.jcache.samples.quickstart;

import dev.mooncake.jcache.MooncakeCacheAsync;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.integration.CacheLoader;
import javax.cache.spi.CachingProvider;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A tour of plain {@code javax.cache} on Mooncake: nothing but the last step names the provider.
 * The provider is found on the class path, and its default URI picks up {@code mooncake.json} from
 * the class path (switch that file to a Mooncake cluster and this program runs there unchanged).
 * The last step unwraps the provider's asynchronous view, {@link MooncakeCacheAsync}.
 */
public final class Quickstart {

  public static void main(String[] args) throws Exception {
    run(System.out);
  }

  /** Runs the tour, printing each step; returns normally only when every step behaved. */
  public static void run(PrintStream out) throws Exception {
    CachingProvider provider = Caching.getCachingProvider();
    out.println("provider:      " + provider.getClass().getName());
    try (CacheManager manager = provider.getCacheManager()) {
      out.println("config:        " + manager.getURI());

      // 1. A cache declared in mooncake.json: no createCache needed.
      Cache<String, String> greetings = manager.getCache("greetings", String.class, String.class);
      greetings.put("en", "Hello");
      out.println("get(en):       " + greetings.get("en"));
      out.println(
          "putIfAbsent:   "
              + greetings.putIfAbsent("en", "Hi")
              + " (kept "
              + greetings.get("en")
              + ")");
      out.println("replace:       " + greetings.replace("en", "Hello", "Hello, world"));

      // 2. An entry processor: an atomic read-modify-write of one entry.
      String shouted =
          greetings.invoke(
              "en",
              (entry, arguments) -> {
                String upper = entry.getValue().toUpperCase();
                entry.setValue(upper);
                return upper;
              });
      out.println("invoke:        " + shouted);

      // 3. A listener, then iteration.
      greetings.registerCacheEntryListener(
          new MutableCacheEntryListenerConfiguration<>(
              FactoryBuilder.factoryOf(new PrintingListener(out)), null, true, true));
      greetings.putAll(Map.of("fr", "Bonjour", "de", "Hallo"));
      greetings.put("fr", "Salut");
      for (Cache.Entry<String, String> entry : greetings) {
        out.println("iterate:       " + entry.getKey() + " = " + entry.getValue());
      }

      // 4. A cache created in code: expiry and read-through with a loader.
      MutableConfiguration<Integer, String> squares =
          new MutableConfiguration<Integer, String>()
              .setTypes(Integer.class, String.class)
              .setExpiryPolicyFactory(
                  CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, 200)))
              .setReadThrough(true)
              .setCacheLoaderFactory(FactoryBuilder.factoryOf(new SquareLoader()))
              .setStatisticsEnabled(true);
      Cache<Integer, String> computed = manager.createCache("squares", squares);
      out.println("read-through:  get(12) = " + computed.get(12));
      out.println("cached:        containsKey(12) = " + computed.containsKey(12));
      Thread.sleep(300);
      out.println("expired:       containsKey(12) after 300 ms = " + computed.containsKey(12));

      // 5. Statistics, read the standard way: over JMX.
      greetings.get("en");
      greetings.get("missing");
      MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
      ObjectName stats =
          new ObjectName(
              "javax.cache:type=CacheStatistics,CacheManager="
                  + manager.getURI().toString().replaceAll(",|:|=|\n", ".")
                  + ",Cache=greetings");
      out.println(
          "statistics:    hits="
              + jmx.getAttribute(stats, "CacheHits")
              + " misses="
              + jmx.getAttribute(stats, "CacheMisses")
              + " puts="
              + jmx.getAttribute(stats, "CachePuts"));

      // 6. The provider's asynchronous view: each call returns a CompletionStage, completed on
      // a provider thread; calls on one key run in the order issued (docs/async.md).
      @SuppressWarnings("unchecked")
      MooncakeCacheAsync<String, String> async = greetings.unwrap(MooncakeCacheAsync.class);
      String hola =
          async
              .putAsync("es", "Hola")
              .thenCompose(ignored -> async.getAsync("es"))
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
      out.println("async:         getAsync(es) after putAsync = " + hola);
    }
    out.println("done.");
  }

  /** Prints created and updated events (synchronous: printed before the put returns). */
  static final class PrintingListener
      implements CacheEntryCreatedListener<String, String>,
          CacheEntryUpdatedListener<String, String>,
          java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final transient PrintStream out;

    PrintingListener(PrintStream out) {
      this.out = out;
    }

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      events.forEach(
          e -> out.println("listener:      created " + e.getKey() + " = " + e.getValue()));
    }

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      events.forEach(
          e ->
              out.println(
                  "listener:      updated "
                      + e.getKey()
                      + " = "
                      + e.getOldValue()
                      + " -> "
                      + e.getValue()));
    }
  }

  /** Computes values the cache does not have yet. */
  static final class SquareLoader implements CacheLoader<Integer, String>, java.io.Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public String load(Integer key) {
      return key + "² = " + (key * key);
    }

    @Override
    public Map<Integer, String> loadAll(Iterable<? extends Integer> keys) {
      Map<Integer, String> loaded = new java.util.HashMap<>();
      keys.forEach(k -> loaded.put(k, load(k)));
      return loaded;
    }
  }

  private Quickstart() {}
}
