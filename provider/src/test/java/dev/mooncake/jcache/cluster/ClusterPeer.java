package dev.mooncake.jcache.cluster;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * One JVM of the multi-JVM tests: {@code ClusterPeer <config> <id>} opens the config's cluster,
 * prints {@code READY}, then runs one command per stdin line and answers one line, {@code OK …} or
 * {@code ERR …} (see {@link #run}). Workloads run on two threads. Errors are counted, and the first
 * one of each command goes to stderr for the test log.
 */
public final class ClusterPeer {
  private final String id;
  private final Cache<String, Long> counters;
  private final Cache<String, String> strings;
  private final BufferedReader in;

  private ClusterPeer(String id, CacheManager manager, BufferedReader in) {
    this.id = id;
    this.counters = cache(manager, "counters", Long.class);
    this.strings = cache(manager, "strings", String.class);
    this.in = in;
  }

  private static <V> Cache<String, V> cache(CacheManager manager, String name, Class<V> type) {
    Cache<String, V> cache = manager.getCache(name, String.class, type);
    return cache != null
        ? cache
        : manager.createCache(
            name, new MutableConfiguration<String, V>().setTypes(String.class, type));
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(Path.of(args[0]).toUri(), ClusterPeer.class.getClassLoader());
    ClusterPeer peer = new ClusterPeer(args[1], manager, in);
    answer("READY");
    for (String line; (line = in.readLine()) != null; ) {
      if (line.equals("exit")) {
        break;
      }
      String reply;
      try {
        reply = "OK " + peer.run(line.split(" "));
      } catch (Exception e) {
        reply = "ERR " + e;
      }
      answer(reply.replace('\n', ' '));
    }
    manager.close();
  }

  private static void answer(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /** Counts of one workload, shared by its threads. */
  private final class Counts {
    final AtomicLong done = new AtomicLong();
    final AtomicLong absent = new AtomicLong();
    final AtomicLong errors = new AtomicLong();

    void error(String what, Exception e) {
      if (errors.getAndIncrement() == 0) {
        System.err.println("peer " + id + ": " + what + ": " + e);
      }
    }

    @Override
    public String toString() {
      return "done=" + done + " absent=" + absent + " errors=" + errors;
    }
  }

  private String run(String[] c) throws Exception {
    return switch (c[0]) {
      case "get" -> String.valueOf(strings.get(c[1]));
      case "put" -> {
        strings.put(c[1], c[2]);
        yield "done";
      }
      case "getLong" -> String.valueOf(counters.get(c[1]));
      case "putLong" -> {
        counters.put(c[1], Long.parseLong(c[2]));
        yield "done";
      }
      case "present" -> present(c[1], Integer.parseInt(c[2]));
      case "fill" -> fill(c[1], Integer.parseInt(c[2]), Integer.parseInt(c[3]));
      case "invoke" -> invoke(c[1], Integer.parseInt(c[2]), Integer.parseInt(c[3]));
      case "pia" -> putIfAbsent(c[1], Integer.parseInt(c[2]));
      case "cas" -> cas(c[1], Integer.parseInt(c[2]));
      case "write" -> write(c[1], Integer.parseInt(c[2]));
      case "putRace" -> putRace(c[1], Integer.parseInt(c[2]));
      case "putAllRace" -> putAllRace(c[1], Integer.parseInt(c[2]), Integer.parseInt(c[3]));
      case "read" -> read(c[1]);
      case "hold" -> hold(c[1]);
      case "take" -> take(c[1], c[2]);
      default -> throw new IllegalArgumentException("unknown command " + c[0]);
    };
  }

  /**
   * Two threads, {@code perThread} increments each, round-robin over keys prefix0..; a processor
   * that finds a key absent counts it and does not write.
   */
  private String invoke(String prefix, int keys, int perThread) throws Exception {
    Counts counts = new Counts();
    twoThreads(
        thread -> {
          for (int i = 0; i < perThread; i++) {
            String key = prefix + ((i + thread) % keys);
            try {
              boolean applied =
                  counters.invoke(
                      key,
                      (entry, args) -> {
                        if (!entry.exists()) {
                          return false;
                        }
                        entry.setValue(entry.getValue() + 1);
                        return true;
                      });
              (applied ? counts.done : counts.absent).incrementAndGet();
            } catch (Exception e) {
              counts.error("invoke " + key, e);
            }
          }
        });
    return counts.toString();
  }

  /** Two threads each try putIfAbsent on prefix0..prefix(n-1), from opposite ends. */
  private String putIfAbsent(String prefix, int n) throws Exception {
    Counts counts = new Counts();
    twoThreads(
        thread -> {
          for (int i = 0; i < n; i++) {
            String key = prefix + (thread == 0 ? i : n - 1 - i);
            try {
              if (strings.putIfAbsent(key, id + "-" + thread)) {
                counts.done.incrementAndGet();
              }
            } catch (Exception e) {
              counts.error("putIfAbsent " + key, e);
            }
          }
        });
    return counts.toString();
  }

  private String present(String prefix, int n) {
    int present = 0;
    for (int i = 0; i < n; i++) {
      present += strings.containsKey(prefix + i) ? 1 : 0;
    }
    return String.valueOf(present);
  }

  /** Puts prefix0..prefix(n-1), each a value of {@code chars} characters naming its key. */
  private String fill(String prefix, int n, int chars) {
    Counts counts = new Counts();
    for (int i = 0; i < n; i++) {
      String key = prefix + i;
      try {
        strings.put(key, key + "=" + "x".repeat(Math.max(0, chars - key.length() - 1)));
        counts.done.incrementAndGet();
      } catch (Exception e) {
        counts.error("put " + key, e);
      }
    }
    return counts.toString();
  }

  /** Two threads, {@code perThread} successful replace(k, v, v + 1) each. */
  private String cas(String key, int perThread) throws Exception {
    Counts counts = new Counts();
    twoThreads(
        thread -> {
          int mine = 0;
          for (long attempts = 0; mine < perThread; attempts++) {
            if (attempts > 100_000) {
              counts.errors.incrementAndGet(); // no progress: starved
              return;
            }
            try {
              Long value = counters.get(key);
              if (value == null) {
                counts.absent.incrementAndGet();
              } else if (counters.replace(key, value, value + 1)) {
                mine++;
                counts.done.incrementAndGet();
              }
            } catch (Exception e) {
              counts.error("replace " + key, e);
            }
          }
        });
    return counts.toString();
  }

  /** {@code count} overwrites w0.. of an existing key, then "final". */
  private String write(String key, int count) {
    Counts counts = new Counts();
    for (int i = 0; i <= count; i++) {
      try {
        strings.put(key, i == count ? "final" : "w" + i);
        counts.done.incrementAndGet();
      } catch (Exception e) {
        counts.error("put " + key, e);
      }
    }
    return counts.toString();
  }

  /** Two threads put the same key {@code perThread} times each, values naming the writer. */
  private String putRace(String key, int perThread) throws Exception {
    Counts counts = new Counts();
    twoThreads(
        thread -> {
          for (int i = 0; i < perThread; i++) {
            try {
              strings.put(key, id + "-" + thread + "-" + i);
              counts.done.incrementAndGet();
            } catch (Exception e) {
              counts.error("put " + key, e);
            }
          }
        });
    return counts.toString();
  }

  /**
   * Two threads, {@code perThread} putAlls each of keys prefix0.. at once, every key of a putAll
   * given the same value: a putAll holds all its keys' locks while it writes, so the keys end with
   * one putAll's values.
   */
  private String putAllRace(String prefix, int keys, int perThread) throws Exception {
    Counts counts = new Counts();
    twoThreads(
        thread -> {
          for (int i = 0; i < perThread; i++) {
            Map<String, String> all = new HashMap<>();
            for (int k = 0; k < keys; k++) {
              all.put(prefix + k, id + "-" + thread + "-" + i);
            }
            try {
              strings.putAll(all);
              counts.done.incrementAndGet();
            } catch (Exception e) {
              counts.error("putAll " + prefix, e);
            }
          }
        });
    return counts.toString();
  }

  /** Two threads read the key until they see "final" (another JVM's last overwrite). */
  private String read(String key) throws Exception {
    Counts counts = new Counts();
    // the writer's 300 overwrites take a few seconds; 60 s tells "never saw final" from slow
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    twoThreads(
        thread -> {
          while (System.nanoTime() < deadline) {
            try {
              String value = strings.get(key);
              counts.done.incrementAndGet();
              if (value == null) {
                counts.absent.incrementAndGet();
              } else if (value.equals("final")) {
                return;
              }
            } catch (Exception e) {
              counts.error("get " + key, e);
            }
          }
          counts.errors.incrementAndGet(); // never saw "final"
        });
    return counts.toString();
  }

  /**
   * Holds the key's lock inside an entry processor: prints HOLDING, waits for the next stdin line,
   * then sets the value. Answers "wrote" or the exception that refused the write.
   */
  private String hold(String key) {
    strings.invoke(
        key,
        (entry, args) -> {
          answer("HOLDING");
          try {
            String go = in.readLine();
            entry.setValue("held-by-" + id + "-" + go);
          } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
          }
          return null;
        });
    return "wrote";
  }

  /** Sets the value under the lock; answers how long getting there took. */
  private String take(String key, String value) {
    long start = System.nanoTime();
    strings.invoke(
        key,
        (entry, args) -> {
          entry.setValue(value);
          return null;
        });
    return "ms=" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  private interface Work {
    void run(int thread) throws Exception;
  }

  private static void twoThreads(Work work) throws Exception {
    List<Thread> threads = new ArrayList<>();
    List<Exception> failures = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      int thread = t;
      Thread worker =
          new Thread(
              () -> {
                try {
                  work.run(thread);
                } catch (Exception e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
              });
      worker.start();
      threads.add(worker);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
  }
}
