package dev.mooncake.jcache.cluster;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * One app JVM of the rolling-restart test: {@code RollingRestartPeer <config> <id>} opens a cache
 * on the config's cluster, prints {@code READY}, then answers one line per stdin command. Entries
 * {@code e0 … e(n-1)} belong to slot {@code k % 3}; a slot's writes come from one JVM at a time, so
 * the last written value of every entry is known to the test.
 *
 * <ul>
 *   <li>{@code state <slot|-1> <n>}: {@code OK k=v,…} for the slot's entries (-1: all), {@code
 *       null} for an absent one.
 *   <li>{@code churn <slot> <n> <base> <stop file>}: one thread writes the slot's entries round
 *       robin with values {@code base, base+1, …} (an entry whose put failed is written again in
 *       the next round, and before the churn stops, so the last value is certain), one thread reads
 *       random entries of the whole set; prints {@code CHURNING} after the first round of writes;
 *       stops once the stop file exists and answers {@code OK writes=… reads=… absent=…
 *       absentKeys=[k,…] errors={type=count…} last=k=v,…}.
 * </ul>
 */
public final class RollingRestartPeer {
  static final int SLOTS = 3;

  /**
   * How long a stopping churn goes on writing entries whose last put failed: a JVM killed inside a
   * put leaves it in flight in Mooncake until the master discards it (put_start_discard_timeout, 30
   * s at 3b5a594), plus slack; below the test's 90 s reply bound.
   */
  private static final long SETTLE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(60);

  private final Cache<String, Long> entries;

  private RollingRestartPeer(CacheManager manager) {
    Cache<String, Long> cache = manager.getCache("rolling", String.class, Long.class);
    this.entries =
        cache != null
            ? cache
            : manager.createCache(
                "rolling",
                new MutableConfiguration<String, Long>().setTypes(String.class, Long.class));
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(Path.of(args[0]).toUri(), RollingRestartPeer.class.getClassLoader());
    RollingRestartPeer peer = new RollingRestartPeer(manager);
    answer("READY");
    for (String line; (line = in.readLine()) != null && !line.equals("exit"); ) {
      String[] c = line.split(" ");
      String reply;
      try {
        reply =
            switch (c[0]) {
              case "state" -> "OK " + peer.state(Integer.parseInt(c[1]), Integer.parseInt(c[2]));
              case "churn" ->
                  "OK "
                      + peer.churn(
                          Integer.parseInt(c[1]),
                          Integer.parseInt(c[2]),
                          Long.parseLong(c[3]),
                          Path.of(c[4]));
              default -> "ERR unknown command " + c[0];
            };
      } catch (Exception e) {
        reply = "ERR " + e;
      }
      answer(reply.replace('\n', ' '));
    }
    manager.close(); // a graceful restart: the manager and its Mooncake client close
  }

  private static void answer(String line) {
    System.out.println(line);
    System.out.flush();
  }

  static String key(int k) {
    return "e" + k;
  }

  private String state(int slot, int n) {
    StringJoiner out = new StringJoiner(",");
    for (int k = 0; k < n; k++) {
      if (slot < 0 || k % SLOTS == slot) {
        out.add(k + "=" + entries.get(key(k)));
      }
    }
    return out.toString();
  }

  /** Errors by type: the exception's class and, for a CacheException, its cause's class. */
  private static String type(Exception e) {
    Throwable cause = e.getCause();
    return e.getClass().getSimpleName()
        + (cause == null ? "" : "/" + cause.getClass().getSimpleName());
  }

  private String churn(int slot, int n, long base, Path stop) throws Exception {
    AtomicLong writes = new AtomicLong();
    AtomicLong reads = new AtomicLong();
    AtomicLong absent = new AtomicLong();
    Set<Integer> absentKeys = new ConcurrentSkipListSet<>();
    Set<Integer> errorKeys = new ConcurrentSkipListSet<>();
    Map<String, AtomicLong> errors = new ConcurrentHashMap<>();
    Map<Integer, Long> last = new TreeMap<>();
    Thread reader =
        new Thread(
            () -> {
              while (!Files.exists(stop)) {
                int k = ThreadLocalRandom.current().nextInt(n);
                try {
                  if (entries.get(key(k)) == null) {
                    absent.incrementAndGet();
                    absentKeys.add(k);
                  }
                  reads.incrementAndGet();
                } catch (Exception e) {
                  errors.computeIfAbsent("get:" + type(e), t -> new AtomicLong()).incrementAndGet();
                  errorKeys.add(k);
                  System.err.println("rolling peer: get " + key(k) + ": " + e);
                }
              }
            },
            "rolling-reader");
    reader.start();
    Set<Integer> unsettled = new TreeSet<>(); // entries whose last put failed: value uncertain
    long value = base;
    boolean announced = false;
    long settleBy = Long.MAX_VALUE;
    while (!Files.exists(stop) || !announced || !unsettled.isEmpty()) {
      boolean stopping = announced && Files.exists(stop);
      if (stopping && settleBy == Long.MAX_VALUE) {
        settleBy = System.nanoTime() + SETTLE_NANOS;
      } else if (System.nanoTime() > settleBy) {
        throw new IllegalStateException("entries " + unsettled + " could not be written again");
      }
      for (int k = slot; k < n; k += SLOTS) {
        if (stopping && !unsettled.contains(k)) {
          continue; // stopping: only settle what failed
        }
        long v = value++;
        try {
          entries.put(key(k), v);
          last.put(k, v);
          unsettled.remove(k);
          writes.incrementAndGet();
        } catch (Exception e) { // moves on; the entry is written again in the next round
          errors.computeIfAbsent("put:" + type(e), t -> new AtomicLong()).incrementAndGet();
          errorKeys.add(k);
          unsettled.add(k);
          System.err.println("rolling peer: put " + key(k) + ": " + e);
        }
      }
      if (!announced) {
        answer("CHURNING");
        announced = true;
      }
    }
    reader.join();
    StringJoiner lastValues = new StringJoiner(",");
    last.forEach((k, v) -> lastValues.add(k + "=" + v));
    return "writes="
        + writes
        + " reads="
        + reads
        + " absent="
        + absent
        + " absentKeys="
        + (absentKeys.isEmpty() ? "-" : absentKeys.toString().replace(" ", ""))
        + " errors="
        + new TreeMap<>(errors).toString().replace(" ", "")
        + " errorKeys="
        + (errorKeys.isEmpty() ? "-" : errorKeys.toString().replace(" ", ""))
        + " last="
        + lastValues;
  }
}
