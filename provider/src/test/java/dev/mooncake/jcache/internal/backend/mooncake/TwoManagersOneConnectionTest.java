package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two cache managers in one JVM on the same cluster, tenant and cache name, under two class loaders
 * (as application servers and Spring DevTools make): they share the Mooncake client and so the
 * keys, and must share the key locks too, or their invokes interleave between the read and the
 * remove-then-put of a replace.
 */
class TwoManagersOneConnectionTest {
  private static final int THREADS = 8;
  private static final int INCREMENTS = 500;

  private final MooncakeCachingProvider provider = new MooncakeCachingProvider();
  private final List<URLClassLoader> loaders = new ArrayList<>();
  private Path config;

  @BeforeEach
  void writeConfig(@TempDir Path dir) throws Exception {
    Fake.control("reset=1");
    config = dir.resolve("mooncake.json");
    Files.writeString(
        config,
        """
        {"backend": "mooncake", "library": "%s", "master_server_address": "127.0.0.1:50051",
         "metadata_server": "P2PHANDSHAKE", "protocol": "tcp", "local_hostname": "127.0.0.1",
         "global_segment_size": "16MB", "local_buffer_size": "8MB", "tenant_id": "shared"}
        """
            .formatted(Fake.library()));
  }

  @AfterEach
  void close() throws Exception {
    provider.close();
    for (URLClassLoader loader : loaders) {
      loader.close();
    }
    Fake.control("reset=1");
  }

  private Cache<String, Integer> counters(ClassLoader loader) {
    CacheManager manager = provider.getCacheManager(config.toUri(), loader);
    Cache<String, Integer> cache = manager.getCache("counters", String.class, Integer.class);
    return cache != null
        ? cache
        : manager.createCache(
            "counters",
            new MutableConfiguration<String, Integer>().setTypes(String.class, Integer.class));
  }

  private ClassLoader child() {
    URLClassLoader loader = new URLClassLoader(new URL[0], getClass().getClassLoader());
    loaders.add(loader);
    return loader;
  }

  @Test
  void invokesThroughTwoManagersAreAtomicPerKey() throws Exception {
    Cache<String, Integer> first = counters(child());
    Cache<String, Integer> second = counters(child());
    assertNotSame(first.getCacheManager(), second.getCacheManager(), "one manager, not two");
    first.put("n", 0);

    AtomicInteger absentReads = new AtomicInteger();
    AtomicInteger errors = new AtomicInteger();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(THREADS);
    for (int t = 0; t < THREADS; t++) {
      Cache<String, Integer> cache = t % 2 == 0 ? first : second;
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                  for (int i = 0; i < INCREMENTS; i++) {
                    try {
                      cache.invoke(
                          "n",
                          (entry, args) -> {
                            if (!entry.exists()) {
                              absentReads.incrementAndGet(); // the key is never absent
                              entry.setValue(1);
                            } else {
                              entry.setValue(entry.getValue() + 1);
                            }
                            return null;
                          });
                    } catch (RuntimeException e) {
                      errors.incrementAndGet();
                      firstError.compareAndSet(null, e);
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } finally {
                  done.countDown();
                }
              },
              "incrementer-" + t);
      thread.start();
    }
    start.countDown();
    assertTrue(done.await(2, TimeUnit.MINUTES), "the incrementers did not finish");

    assertEquals(0, errors.get(), () -> "errors, the first: " + firstError.get());
    assertEquals(0, absentReads.get(), "processors saw the key absent");
    assertEquals(THREADS * INCREMENTS, first.get("n"));
    assertEquals(THREADS * INCREMENTS, second.get("n"));
  }
}
