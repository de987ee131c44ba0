package dev.mooncake.jcache.real;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;

/**
 * Threads of mixed JCache operations on one cache, timing every call whatever its outcome (a
 * failure during a master outage counts as much as a success): the longest call per operation type,
 * for {@link RealDeadlinesTest}. Run in the test JVM and in {@link RealDeadlinesPeer}.
 */
final class MixedLoad {
  static final List<String> OPERATIONS =
      List.of("get", "put", "remove", "putIfAbsent", "getAll", "putAll", "invoke");

  private final Map<String, AtomicLong> longest = new ConcurrentHashMap<>();
  private final AtomicLong calls = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();

  MixedLoad(Cache<String, String> cache, int threadCount, String name) {
    for (String op : OPERATIONS) {
      longest.put(op, new AtomicLong());
    }
    for (int t = 0; t < threadCount; t++) {
      Thread thread = new Thread(() -> run(cache), name + "-" + t);
      thread.setDaemon(true);
      threads.add(thread);
    }
  }

  MixedLoad start() {
    threads.forEach(Thread::start);
    return this;
  }

  long calls() {
    return calls.get();
  }

  /** Stops the threads (each ends after its call in progress) and answers the longest calls. */
  Map<String, Long> stop() throws InterruptedException {
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(TimeUnit.MINUTES.toMillis(2));
    }
    Map<String, Long> result = new TreeMap<>();
    longest.forEach((op, ms) -> result.put(op, ms.get()));
    return result;
  }

  private void run(Cache<String, String> cache) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (!stop.get()) {
      String op = OPERATIONS.get(random.nextInt(OPERATIONS.size()));
      String key = "k" + random.nextInt(64);
      long start = System.nanoTime();
      try {
        call(cache, op, key);
      } catch (RuntimeException expectedDuringOutages) {
        // timed either way: the bound holds for failures too
      }
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      longest.get(op).accumulateAndGet(ms, Math::max);
      calls.incrementAndGet();
    }
  }

  private static void call(Cache<String, String> cache, String op, String key) {
    switch (op) {
      case "get" -> cache.get(key);
      case "put" -> cache.put(key, "v");
      case "remove" -> cache.remove(key);
      case "putIfAbsent" -> cache.putIfAbsent(key, "v");
      case "getAll" -> cache.getAll(Set.of(key, key + "a", key + "b"));
      case "putAll" -> cache.putAll(Map.of(key, "v", key + "a", "v", key + "b", "v"));
      case "invoke" ->
          cache.invoke(
              key,
              (entry, args) -> {
                entry.setValue(entry.exists() ? entry.getValue() + "+" : "v");
                return null;
              });
      default -> throw new IllegalArgumentException(op);
    }
  }
}
