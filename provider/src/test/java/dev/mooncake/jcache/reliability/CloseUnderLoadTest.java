package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Closing a cache, its manager or the provider while 16 threads are mid-operation: the JVM lives,
 * no call hangs, and every call either completes or fails with IllegalStateException (JSR-107 for
 * an operation on a closed cache). Anything else is recorded and fails the test.
 */
class CloseUnderLoadTest {
  private static final int THREADS = 16;
  private static final int ROUNDS = 30;

  @TempDir Path dir;

  private enum Closer {
    CACHE,
    MANAGER,
    PROVIDER
  }

  @ParameterizedTest
  @CsvSource({
    "in-process, CACHE",
    "in-process, MANAGER",
    "in-process, PROVIDER",
    "fake, CACHE",
    "fake, MANAGER",
    "fake, PROVIDER"
  })
  void closeWhileSixteenThreadsAreMidOperation(String backend, Closer closer) throws Exception {
    Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    List<String> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
    long start = System.nanoTime();
    for (int round = 0; round < ROUNDS; round++) {
      URI uri =
          backend.equals("fake")
              ? Configs.fake(dir, "close-" + round, "")
              : Configs.inProcess(dir, "close-" + round, "");
      CachingProvider provider = Caching.getCachingProvider();
      CacheManager manager = provider.getCacheManager(uri, getClass().getClassLoader());
      Cache<String, String> cache =
          manager.createCache(
              "c",
              new MutableConfiguration<String, String>()
                  .setTypes(String.class, String.class)
                  .setStatisticsEnabled(true));
      CountDownLatch running = new CountDownLatch(THREADS);
      CountDownLatch done = new CountDownLatch(THREADS);
      AtomicBoolean closed = new AtomicBoolean();
      for (int t = 0; t < THREADS; t++) {
        int id = t;
        Thread thread =
            new Thread(
                () -> {
                  try {
                    int lateCalls = 0;
                    for (int i = 0; lateCalls < 3; i++) {
                      boolean afterClose = closed.get();
                      String key = "k" + (i % 64);
                      try {
                        switch ((id + i) % 8) {
                          case 0 -> cache.put(key, "v" + i);
                          case 1 -> cache.get(key);
                          case 2 ->
                              cache.invoke(
                                  key,
                                  (e, a) -> {
                                    e.setValue(e.exists() ? e.getValue() + "+" : "0");
                                    return null;
                                  });
                          case 3 -> cache.remove(key);
                          case 4 ->
                              cache.getAll(new java.util.HashSet<>(List.of(key, "k" + (i % 7))));
                          case 5 -> {
                            Map<String, String> values = new java.util.HashMap<>();
                            values.put(key, "a");
                            values.put("k" + (i % 5), "b");
                            cache.putAll(values);
                          }
                          case 6 -> cache.replace(key, "r");
                          default -> cache.containsKey(key);
                        }
                        outcomes
                            .computeIfAbsent(
                                afterClose ? "completed after close returned" : "completed",
                                k -> new LongAdder())
                            .increment();
                      } catch (IllegalStateException e) {
                        outcomes
                            .computeIfAbsent("IllegalStateException", k -> new LongAdder())
                            .increment();
                        lateCalls++;
                      } catch (Throwable e) {
                        unexpected.add(closer + " " + e);
                        outcomes
                            .computeIfAbsent(
                                "other: " + e.getClass().getSimpleName(), k -> new LongAdder())
                            .increment();
                        lateCalls++;
                      }
                      if (i == 20) {
                        running.countDown();
                      }
                    }
                  } finally {
                    done.countDown();
                  }
                },
                "close-load-" + t);
        thread.setDaemon(true);
        thread.start();
      }
      assertTrue(running.await(30, TimeUnit.SECONDS), "threads did not start");
      switch (closer) {
        case CACHE -> cache.close();
        case MANAGER -> manager.close();
        case PROVIDER -> provider.close(uri, getClass().getClassLoader());
      }
      closed.set(true);
      assertTrue(done.await(30, TimeUnit.SECONDS), "a call hung after close");
      assertTrue(cache.isClosed());
      manager.close();
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    Map<String, Long> counts = new TreeMap<>();
    outcomes.forEach((k, v) -> counts.put(k, v.sum()));
    System.out.printf(
        "close under load, %s, close %s: %d rounds x %d threads in %d ms: %s%n",
        backend, closer, ROUNDS, THREADS, millis, counts);
    assertEquals(List.of(), unexpected.subList(0, Math.min(10, unexpected.size())));
    assertEquals(
        null,
        counts.get("completed after close returned"),
        "a call that started after close() returned must fail");
  }
}
