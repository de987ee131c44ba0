package dev.mooncake.jcache.cluster;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * One JVM of {@link HotKeysScenarios}: {@code HotKeysPeer <config> <id>} opens the config's
 * cluster, prints {@code READY}, then answers one line per stdin command:
 *
 * <ul>
 *   <li>{@code set <keys>}: hot0..hot(keys-1) = 0;
 *   <li>{@code get <keys>}: their values, space-separated;
 *   <li>{@code run <threads> <keys> <millis>}: that many platform threads {@code invoke} increments
 *       of random hot keys until the time is up (all start together); answers {@code done}, {@code
 *       timeouts} (lock not acquired by the deadline: nothing written), {@code errors} (anything
 *       else: the outcome unknown), {@code absent}, {@code millis} and {@code acked=n0,n1,…}, the
 *       acknowledged increments per key.
 * </ul>
 */
public final class HotKeysPeer {
  private final Cache<String, Long> counters;

  private HotKeysPeer(CacheManager manager) {
    Cache<String, Long> cache = manager.getCache("hot", String.class, Long.class);
    this.counters =
        cache != null
            ? cache
            : manager.createCache(
                "hot", new MutableConfiguration<String, Long>().setTypes(String.class, Long.class));
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(Path.of(args[0]).toUri(), HotKeysPeer.class.getClassLoader());
    HotKeysPeer peer = new HotKeysPeer(manager);
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

  private String run(String[] c) throws Exception {
    return switch (c[0]) {
      case "set" -> set(Integer.parseInt(c[1]));
      case "get" -> get(Integer.parseInt(c[1]));
      case "run" ->
          increments(Integer.parseInt(c[1]), Integer.parseInt(c[2]), Long.parseLong(c[3]));
      default -> throw new IllegalArgumentException("unknown command " + c[0]);
    };
  }

  /** Whether {@code e} (or a cause) is the cluster lock's time-out: then nothing was written. */
  private static boolean lockTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (String.valueOf(t.getMessage()).contains("not acquired by the operation's deadline")) {
        return true;
      }
    }
    return false;
  }

  private String set(int keys) {
    for (int k = 0; k < keys; k++) {
      counters.put("hot" + k, 0L);
    }
    return "done";
  }

  private String get(int keys) {
    StringBuilder values = new StringBuilder();
    for (int k = 0; k < keys; k++) {
      values.append(k == 0 ? "" : " ").append(counters.get("hot" + k));
    }
    return values.toString();
  }

  private String increments(int threads, int keys, long millis) throws InterruptedException {
    AtomicLongArray acked = new AtomicLongArray(keys);
    AtomicLong timeouts = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong absent = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>(threads);
    long[] window = new long[1];
    for (int t = 0; t < threads; t++) {
      Thread worker =
          new Thread(
              null,
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                java.util.SplittableRandom random = new java.util.SplittableRandom();
                while (System.nanoTime() - window[0] < 0) {
                  int k = random.nextInt(keys);
                  try {
                    Boolean applied =
                        counters.invoke(
                            "hot" + k,
                            (entry, args) -> {
                              if (!entry.exists()) {
                                return false;
                              }
                              entry.setValue(entry.getValue() + 1);
                              return true;
                            });
                    if (Boolean.TRUE.equals(applied)) {
                      acked.incrementAndGet(k);
                    } else {
                      absent.incrementAndGet();
                    }
                  } catch (RuntimeException e) {
                    if (lockTimeout(e)) {
                      timeouts.incrementAndGet();
                    } else if (errors.getAndIncrement() == 0) {
                      System.err.println("hot keys: " + e);
                    }
                  }
                }
              },
              "hot-" + t,
              256 * 1024); // 200 platform threads: small stacks
      worker.setDaemon(true);
      worker.start();
      workers.add(worker);
    }
    long began = System.nanoTime();
    window[0] = began + TimeUnit.MILLISECONDS.toNanos(millis);
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
    long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
    long done = 0;
    StringBuilder perKey = new StringBuilder();
    for (int k = 0; k < keys; k++) {
      done += acked.get(k);
      perKey.append(k == 0 ? "" : ",").append(acked.get(k));
    }
    return "done=%d timeouts=%d errors=%d absent=%d millis=%d acked=%s"
        .formatted(done, timeouts.get(), errors.get(), absent.get(), elapsed, perKey);
  }
}
