package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.mooncake.jcache.internal.async.AsyncCalls;
import dev.mooncake.jcache.internal.time.Deadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link MooncakeCache#getEach}, what asynchronous gets ready at once run as: each key answers what
 * its own {@code get} would, with the same statistics, loads and expiry, on every backend.
 */
class GetEachTest {
  private static final AtomicInteger NAMES = new AtomicInteger();

  private final JCacheFixture fixture = new JCacheFixture();

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  /** Loads "l*" keys one at a time (a loadAll would be a difference from get); "lbad" fails. */
  private static final class Loader implements CacheLoader<String, String> {
    final List<String> loaded = new ArrayList<>();

    @Override
    public String load(String key) {
      if (key.equals("lbad")) {
        throw new CacheLoaderException("lbad cannot be loaded");
      }
      loaded.add(key);
      return key.startsWith("l") ? "loaded:" + key : null;
    }

    @Override
    public Map<String, String> loadAll(Iterable<? extends String> keys) {
      throw new AssertionError("a get never loads in bulk");
    }
  }

  @SuppressWarnings("unchecked")
  private MooncakeCache<String, String> cache(String backend, Loader loader) {
    MooncakeCacheManager manager =
        fixture.manager(
            backend.equals("mooncake") ? TestConfigs.mooncakeFixture() : TestConfigs.inProcess());
    Factory<CacheLoader<String, String>> loaders = () -> loader;
    Cache<String, String> cache =
        manager.createCache(
            "each-" + NAMES.incrementAndGet(),
            new MutableConfiguration<String, String>()
                .setTypes(String.class, String.class)
                .setReadThrough(true)
                .setCacheLoaderFactory(loaders)
                .setExpiryPolicyFactory(
                    AccessedExpiryPolicy.factoryOf(
                        new javax.cache.expiry.Duration(java.util.concurrent.TimeUnit.HOURS, 1)))
                .setStatisticsEnabled(true));
    return cache.unwrap(MooncakeCache.class);
  }

  private Deadline deadline() {
    return Deadline.after(Duration.ofSeconds(30), fixture.ticker);
  }

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "mooncake"})
  void eachKeyAnswersAndCountsAsItsOwnGetWould(String backend) {
    Loader eachLoader = new Loader();
    Loader getLoader = new Loader();
    MooncakeCache<String, String> each = cache(backend, eachLoader);
    MooncakeCache<String, String> gets = cache(backend, getLoader);
    for (MooncakeCache<String, String> cache : List.of(each, gets)) {
      cache.put("a", "1");
      cache.put("b", "2");
    }
    List<String> keys = List.of("a", "x", "l1", "b");
    List<AsyncCalls.Answer<String>> answers = each.getEach(keys, deadline());
    List<String> expected = new ArrayList<>();
    for (String key : keys) {
      expected.add(gets.get(key));
    }
    assertEquals(expected, answers.stream().map(AsyncCalls.Answer::value).toList());
    assertEquals(List.of("1", "loaded:l1"), List.of(expected.get(0), expected.get(2)));
    assertEquals(getLoader.loaded, eachLoader.loaded, "one load per missing key, as get");
    dev.mooncake.jcache.internal.management.CacheStatistics eachStats = statistics(each);
    dev.mooncake.jcache.internal.management.CacheStatistics getStats = statistics(gets);
    assertEquals(getStats.getCacheHits(), eachStats.getCacheHits());
    assertEquals(getStats.getCacheMisses(), eachStats.getCacheMisses());
    assertEquals(getStats.getCacheGets(), eachStats.getCacheGets());
    assertEquals("loaded:l1", each.get("l1"), "the load was stored");
  }

  @Test
  void oneKeysFailedLoadFailsOnlyThatKey() {
    MooncakeCache<String, String> cache = cache("in-process", new Loader());
    cache.put("a", "1");
    List<AsyncCalls.Answer<String>> answers = cache.getEach(List.of("a", "lbad", "l2"), deadline());
    assertEquals("1", answers.get(0).value());
    assertNull(answers.get(1).value());
    assertInstanceOf(CacheLoaderException.class, answers.get(1).failure());
    assertEquals("loaded:l2", answers.get(2).value());
  }

  private static dev.mooncake.jcache.internal.management.CacheStatistics statistics(
      MooncakeCache<?, ?> cache) {
    return cache.statistics();
  }
}
