package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import javax.cache.Cache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Conditional operations and invoke are atomic per key on the production path (no TCK-only mode):
 * many threads racing on a few keys lose no update.
 */
class AtomicityTest {
  private static final int THREADS = 8;
  private final JCacheFixture fixture = new JCacheFixture();

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  @Test
  void invokeIncrementsLoseNoUpdate() throws Exception {
    Cache<String, Long> cache = fixture.cache("counters", String.class, Long.class);
    String[] keys = {"a", "b", "c"};
    int perThread = 10_000;
    runConcurrently(
        thread -> {
          for (int i = 0; i < perThread; i++) {
            cache.invoke(
                keys[(i + thread) % keys.length],
                (entry, args) -> {
                  entry.setValue(entry.exists() ? entry.getValue() + 1 : 1L);
                  return null;
                });
          }
        });
    long total = 0;
    for (String key : keys) {
      total += cache.get(key);
    }
    assertEquals((long) THREADS * perThread, total);
  }

  @Test
  void replaceCompareAndSetLosesNoUpdate() throws Exception {
    Cache<String, Integer> cache = fixture.cache("cas", String.class, Integer.class);
    cache.put("k", 0);
    int perThread = 2_000;
    runConcurrently(
        thread -> {
          for (int i = 0; i < perThread; i++) {
            while (true) {
              Integer current = cache.get("k");
              if (cache.replace("k", current, current + 1)) {
                break;
              }
            }
          }
        });
    assertEquals(THREADS * perThread, cache.get("k"));
  }

  @Test
  void exactlyOnePutIfAbsentWinsEachRound() throws Exception {
    Cache<Integer, Integer> cache = fixture.cache("first", Integer.class, Integer.class);
    int rounds = 500;
    AtomicInteger wins = new AtomicInteger();
    runConcurrently(
        thread -> {
          for (int round = 0; round < rounds; round++) {
            if (cache.putIfAbsent(round, thread)) {
              wins.incrementAndGet();
            }
          }
        });
    assertEquals(rounds, wins.get());
  }

  @Test
  void removeIfEqualsRemovesOncePerValue() throws Exception {
    Cache<Integer, String> cache = fixture.cache("once", Integer.class, String.class);
    int keys = 500;
    for (int i = 0; i < keys; i++) {
      cache.put(i, "v" + i);
    }
    AtomicInteger removed = new AtomicInteger();
    runConcurrently(
        thread -> {
          for (int i = 0; i < keys; i++) {
            if (cache.remove(i, "v" + i)) {
              removed.incrementAndGet();
            }
          }
        });
    assertEquals(keys, removed.get());
  }

  /** Mooncake's put never overwrites, so a replace is remove-then-put: no reader sees the gap. */
  @Test
  void readersNeverSeeTheGapOfAReplace() throws Exception {
    Cache<String, Integer> cache = fixture.cache("gap", String.class, Integer.class);
    cache.put("k", 0);
    AtomicBoolean writing = new AtomicBoolean(true);
    CountDownLatch readersReading = new CountDownLatch(3);
    AtomicIntegerArray readsDuringWrites = new AtomicIntegerArray(3);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      Future<?> writer =
          pool.submit(
              () -> {
                readersReading.await(); // every reader is in its loop before the first replace
                // at least 20,000 replaces, and on until every reader read during them (bounded)
                for (int i = 1;
                    i <= 20_000 || (i <= 200_000 && !allPositive(readsDuringWrites));
                    i++) {
                  cache.put("k", i);
                }
                writing.set(false);
                return null;
              });
      List<Future<Integer>> readers = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        int reader = r;
        readers.add(
            pool.submit(
                () -> {
                  int reads = 0;
                  readersReading.countDown();
                  while (writing.get()) {
                    assertNotNull(cache.get("k"), "a reader saw no value during a replace");
                    if (writing.get()) {
                      readsDuringWrites.incrementAndGet(reader); // began and ended in the writes
                    }
                    reads++;
                  }
                  return reads;
                }));
      }
      writer.get();
      for (Future<Integer> reader : readers) {
        reader.get();
      }
      assertTrue(allPositive(readsDuringWrites), "a reader never read during the replaces");
    } finally {
      pool.shutdownNow();
    }
  }

  private static boolean allPositive(AtomicIntegerArray counts) {
    for (int i = 0; i < counts.length(); i++) {
      if (counts.get(i) == 0) {
        return false;
      }
    }
    return true;
  }

  interface PerThread {
    void run(int thread) throws Exception;
  }

  private static void runConcurrently(PerThread work) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Void>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                (Callable<Void>)
                    () -> {
                      start.await();
                      work.run(thread);
                      return null;
                    }));
      }
      start.countDown();
      for (Future<Void> future : futures) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
