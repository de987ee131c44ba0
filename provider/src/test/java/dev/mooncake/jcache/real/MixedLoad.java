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
 * Threads of mixed JCache operations on keys {@code k0 … k<keys-1>} of one cache, timing every call
 * whatever its outcome (a failure during an outage counts as much as a success): the longest call
 * per operation type, for {@link RealDeadlinesTest}. Run in the test JVM and in {@link
 * RealDeadlinesPeer}.
 */
final class MixedLoad {
  static final List<String> OPERATIONS =
      List.of("get", "put", "remove", "putIfAbsent", "getAll", "putAll", "invoke");

  /** The calls of one operation type: the longest (and how it ended), how many, how many failed. */
  record OpStats(long longestMillis, long calls, long failures, String longestOutcome) {
    static final OpStats NONE = new OpStats(-1, 0, 0, "no call");

    /** One line for a peer's stdout: {@code OP <op> <ms> <calls> <failures> <outcome>}. */
    String line(String op) {
      return "OP " + op + " " + longestMillis + " " + calls + " " + failures + " " + longestOutcome;
    }

    /** The operation type and its stats from a {@link #line}. */
    static Map.Entry<String, OpStats> parse(String line) {
      String[] parts = line.split(" ", 6);
      return Map.entry(
          parts[1],
          new OpStats(
              Long.parseLong(parts[2]),
              Long.parseLong(parts[3]),
              Long.parseLong(parts[4]),
              parts.length > 5 ? parts[5] : ""));
    }
  }

  /** Guarded by itself: calls take milliseconds, one monitor per type costs nothing here. */
  private static final class Tally {
    private long longest = -1;
    private long calls;
    private long failures;
    private String outcome = "no call";

    synchronized void add(long millis, String how) {
      calls++;
      if (!how.equals("ok")) {
        failures++;
      }
      if (millis > longest) {
        longest = millis;
        outcome = how;
      }
    }

    synchronized OpStats stats() {
      return new OpStats(longest, calls, failures, outcome);
    }
  }

  private final Map<String, Tally> tallies = new ConcurrentHashMap<>();
  private final AtomicLong calls = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  private final int keys;

  MixedLoad(Cache<String, String> cache, int threadCount, String name) {
    this(cache, threadCount, name, 64);
  }

  MixedLoad(Cache<String, String> cache, int threadCount, String name, int keys) {
    this.keys = keys;
    for (String op : OPERATIONS) {
      tallies.put(op, new Tally());
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

  /** Stops the threads (each ends after its call in progress) and answers each type's stats. */
  Map<String, OpStats> stop() throws InterruptedException {
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(TimeUnit.MINUTES.toMillis(2));
    }
    Map<String, OpStats> result = new TreeMap<>();
    tallies.forEach((op, tally) -> result.put(op, tally.stats()));
    return result;
  }

  private void run(Cache<String, String> cache) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (!stop.get()) {
      String op = OPERATIONS.get(random.nextInt(OPERATIONS.size()));
      String key = "k" + random.nextInt(keys);
      long start = System.nanoTime();
      String how = "ok";
      try {
        call(cache, op, key);
      } catch (RuntimeException expectedDuringOutages) {
        // timed either way: the bound holds for failures too
        how =
            key
                + ": "
                + expectedDuringOutages.getClass().getSimpleName()
                + ": "
                + firstLine(expectedDuringOutages);
      }
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      tallies.get(op).add(ms, how);
      calls.incrementAndGet();
    }
  }

  /** An exception's message on one line (a peer reports it in one). */
  static String firstLine(Throwable e) {
    String message = String.valueOf(e.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
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
