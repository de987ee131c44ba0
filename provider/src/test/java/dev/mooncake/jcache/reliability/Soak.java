package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;

/**
 * A soak: 8 threads of mixed get / put / invoke / remove / getAll / putAll over values from 10 B to
 * 1 MiB, with expiry and listeners on, while another thread opens and closes cache managers every
 * few seconds. Every result is checked against an exact model: each worker owns its keys, so it
 * knows what each key holds; a miss is accepted only where the entry may have expired
 * (modified-expiry, {@link #EXPIRY_MILLIS} after its last write), a hit only where it may still
 * live. Resources are sampled throughout and must end within stated margins.
 *
 * <p>Runs in a JVM of its own with a fixed, pre-touched heap (see {@link SoakTest}), so that
 * resident memory measures what lives outside the heap.
 */
public final class Soak {
  static final long EXPIRY_MILLIS = 2_000;
  private static final long SLACK_MILLIS = 50; // clock reads around a call vs. the provider's
  private static final int THREADS = 8;
  private static final int KEYS_PER_THREAD = 256;
  private static final int HOT_KEYS = 16;
  private static final int[] SIZES = {10, 100, 1_000, 10_000, 100_000, 1 << 20};
  private static final int[] SIZE_WEIGHTS = {30, 30, 20, 12, 6, 2};

  private final Path dir;

  private Soak(Path dir) {
    this.dir = dir;
  }

  /** {@code Soak <in-process|fake> <seconds> <folder for config files>}; exit 0 when it held. */
  public static void main(String[] args) {
    try {
      new Soak(Path.of(args[2])).soak(args[0], Long.parseLong(args[1]));
      System.out.println("SOAK HELD");
      System.exit(0);
    } catch (Throwable t) {
      System.out.println("SOAK FAILED: " + t);
      t.printStackTrace(System.out);
      System.exit(1);
    }
  }

  /** What the model knows of one key. */
  private static final class Slot {
    long version = -1; // -1: certainly absent
    long writeStart; // wall-clock millis around the last write
    long writeEnd;

    /** May the entry have expired by {@code now}? */
    boolean mayBeExpired(long now) {
      return version >= 0 && now + SLACK_MILLIS >= writeStart + EXPIRY_MILLIS;
    }

    /** Has it certainly expired by {@code now}? */
    boolean certainlyExpired(long now) {
      return version >= 0 && now - SLACK_MILLIS > writeEnd + EXPIRY_MILLIS;
    }
  }

  static byte[] value(String key, long version) {
    Random r = new Random(key.hashCode() * 31L + version);
    int bucket = 0;
    for (int pick = r.nextInt(100), sum = 0; ; bucket++) {
      sum += SIZE_WEIGHTS[bucket];
      if (pick < sum) {
        break;
      }
    }
    int size = Math.max(10, SIZES[bucket] - r.nextInt(SIZES[bucket] / 10 + 1));
    byte[] bytes = new byte[size];
    ByteBuffer.wrap(bytes).putLong(0, version);
    byte fill = (byte) (version * 31 + key.hashCode());
    for (int i = 8; i < size; i++) {
      bytes[i] = (byte) (fill + i);
    }
    return bytes;
  }

  static long versionOf(byte[] value) {
    return value == null ? -1 : ByteBuffer.wrap(value).getLong(0);
  }

  /** Sets the value passed as the argument; returns the version it replaced (-1: none). */
  static final class Replace implements EntryProcessor<String, byte[], Long>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public Long process(MutableEntry<String, byte[]> entry, Object... arguments) {
      long old = entry.exists() ? versionOf(entry.getValue()) : -1;
      entry.setValue((byte[]) arguments[0]);
      return old;
    }
  }

  /** Counts events; listeners must see the load without failing it. */
  static final class Events
      implements CacheEntryCreatedListener<String, byte[]>,
          CacheEntryUpdatedListener<String, byte[]>,
          CacheEntryRemovedListener<String, byte[]>,
          CacheEntryExpiredListener<String, byte[]>,
          Serializable {
    private static final long serialVersionUID = 1L;
    static final Map<String, LongAdder> COUNTS = new ConcurrentHashMap<>();

    private static void add(String kind, Iterable<?> events) {
      long n = 0;
      for (Object ignored : events) {
        n++;
      }
      COUNTS.computeIfAbsent(kind, k -> new LongAdder()).add(n);
    }

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends byte[]>> e) {
      add("created", e);
    }

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends byte[]>> e) {
      add("updated", e);
    }

    @Override
    public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends byte[]>> e) {
      add("removed", e);
    }

    @Override
    public void onExpired(Iterable<CacheEntryEvent<? extends String, ? extends byte[]>> e) {
      add("expired", e);
    }
  }

  private static MutableConfiguration<String, byte[]> configuration() {
    return new MutableConfiguration<String, byte[]>()
        .setTypes(String.class, byte[].class)
        .setExpiryPolicyFactory(
            ModifiedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, EXPIRY_MILLIS)))
        .setStatisticsEnabled(true)
        .addCacheEntryListenerConfiguration(
            new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(new Events()), null, false, false));
  }

  /** One worker: its keys, its model, its counts. */
  private static final class Worker implements Runnable {
    final int id;
    final Cache<String, byte[]> cache;
    final long deadline;
    final Random random;
    final Slot[] slots = new Slot[KEYS_PER_THREAD];
    final Map<String, Long> counts = new HashMap<>();
    long version;
    volatile Throwable failure;

    Worker(int id, Cache<String, byte[]> cache, long deadline) {
      this.id = id;
      this.cache = cache;
      this.deadline = deadline;
      this.random = new Random(id * 7919L);
      for (int i = 0; i < slots.length; i++) {
        slots[i] = new Slot();
      }
    }

    String key(int i) {
      return "w" + id + "-k" + i;
    }

    int pickKey() {
      return random.nextInt(100) < 95
          ? random.nextInt(HOT_KEYS)
          : HOT_KEYS + random.nextInt(KEYS_PER_THREAD - HOT_KEYS);
    }

    void count(String what) {
      counts.merge(what, 1L, Long::sum);
    }

    /** Checks a read of key i that ran between start and end against the model. */
    void check(int i, byte[] got, long start, long end) {
      Slot slot = slots[i];
      long seen = versionOf(got);
      if (seen == slot.version) {
        if (seen >= 0 && slot.certainlyExpired(start)) {
          throw new AssertionError(key(i) + ": read v" + seen + " after it had expired");
        }
        if (got != null && !Arrays.equals(value(key(i), seen), got)) {
          throw new AssertionError(key(i) + ": v" + seen + " has the wrong bytes");
        }
        count(seen >= 0 ? "hit" : "miss (absent)");
        return;
      }
      if (got == null && slot.mayBeExpired(end)) {
        slot.version = -1; // an expired read removes it: it stays gone
        count("miss (expired)");
        return;
      }
      throw new AssertionError(
          key(i)
              + ": read "
              + (got == null ? "nothing" : "v" + seen)
              + ", the model holds v"
              + slot.version
              + (got == null ? " (lost)" : " (phantom)"));
    }

    void wrote(int i, long newVersion, long start, long end) {
      Slot slot = slots[i];
      slot.version = newVersion;
      slot.writeStart = start;
      slot.writeEnd = end;
    }

    @Override
    public void run() {
      try {
        while (System.currentTimeMillis() < deadline) {
          int op = random.nextInt(100);
          if (op < 35) {
            int i = pickKey();
            long start = System.currentTimeMillis();
            byte[] got = cache.get(key(i));
            check(i, got, start, System.currentTimeMillis());
            count("get");
          } else if (op < 55) {
            int i = pickKey();
            long v = ++version;
            long start = System.currentTimeMillis();
            cache.put(key(i), value(key(i), v));
            wrote(i, v, start, System.currentTimeMillis());
            count("put");
          } else if (op < 65) {
            int i = pickKey();
            long v = ++version;
            long start = System.currentTimeMillis();
            Long old = cache.invoke(key(i), new Replace(), (Object) value(key(i), v));
            long end = System.currentTimeMillis();
            Slot slot = slots[i];
            if (old != slot.version && !(old == -1 && slot.mayBeExpired(end))) {
              throw new AssertionError(
                  key(i) + ": invoke saw v" + old + ", model v" + slot.version);
            }
            wrote(i, v, start, end);
            count("invoke");
          } else if (op < 75) {
            int i = pickKey();
            long start = System.currentTimeMillis();
            boolean removed = cache.remove(key(i));
            long end = System.currentTimeMillis();
            Slot slot = slots[i];
            boolean mayExist = slot.version >= 0 && !slot.certainlyExpired(start);
            boolean mustExist = slot.version >= 0 && !slot.mayBeExpired(end);
            if ((removed && !mayExist) || (!removed && mustExist)) {
              throw new AssertionError(
                  key(i) + ": remove answered " + removed + ", model v" + slot.version);
            }
            slot.version = -1;
            count("remove");
          } else if (op < 90) {
            Set<String> keys = new LinkedHashSet<>();
            List<Integer> indexes = new ArrayList<>();
            for (int n = 0; n < 4; n++) {
              int i = pickKey();
              if (keys.add(key(i))) {
                indexes.add(i);
              }
            }
            long start = System.currentTimeMillis();
            Map<String, byte[]> got = cache.getAll(keys);
            long end = System.currentTimeMillis();
            for (int i : indexes) {
              check(i, got.get(key(i)), start, end);
            }
            count("getAll");
          } else {
            Map<String, byte[]> values = new HashMap<>();
            Map<Integer, Long> versions = new HashMap<>();
            for (int n = 0; n < 3; n++) {
              int i = pickKey();
              long v = ++version;
              values.put(key(i), value(key(i), v));
              versions.put(i, v);
            }
            long start = System.currentTimeMillis();
            cache.putAll(values);
            long end = System.currentTimeMillis();
            versions.forEach((i, v) -> wrote(i, v, start, end));
            count("putAll");
          }
        }
      } catch (Throwable t) {
        failure = t;
      }
    }
  }

  void soak(String backend, long seconds) throws Exception {
    URI uri = config(backend, "soak", "\"global_segment_size\": \"512MB\"");
    warmUp(backend);
    Events.COUNTS.clear();
    System.gc();
    Resources before = Resources.sample(); // classes, libraries and jar files already loaded
    CacheManager manager =
        Caching.getCachingProvider().getCacheManager(uri, getClass().getClassLoader());
    Cache<String, byte[]> cache = manager.createCache("soak", configuration());
    long deadline = System.currentTimeMillis() + seconds * 1000;
    List<Worker> workers = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Worker worker = new Worker(t, cache, deadline);
      workers.add(worker);
      Thread thread = new Thread(worker, "soak-" + t);
      threads.add(thread);
      thread.start();
    }
    // Managers opened and closed every few seconds next to the load, each with a cache in use.
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong churned = new AtomicLong();
    List<Throwable> churnFailures = new ArrayList<>();
    CountDownLatch churnDone = new CountDownLatch(1);
    Thread churn =
        new Thread(
            () -> {
              try {
                int round = 0;
                while (!stop.get()) {
                  URI other = config(backend, "churn", "");
                  CacheManager m =
                      Caching.getCachingProvider()
                          .getCacheManager(other, getClass().getClassLoader());
                  Cache<String, byte[]> c = m.createCache("churn-" + round, configuration());
                  for (int i = 0; i < 100; i++) {
                    c.put("c" + i, value("c" + i, i));
                    assertEquals(i, versionOf(c.get("c" + i)));
                  }
                  m.close();
                  churned.incrementAndGet();
                  round++;
                  for (int w = 0; w < 30 && !stop.get(); w++) {
                    Thread.sleep(100); // the churn's pace, not a synchronisation
                  }
                }
              } catch (Throwable t) {
                churnFailures.add(t);
              } finally {
                churnDone.countDown();
              }
            },
            "soak-churn");
    churn.start();

    List<Resources> samples = new ArrayList<>();
    long sampleEvery = Math.max(1, seconds / 20) * 1000;
    Resources warm = null;
    while (threads.stream().anyMatch(Thread::isAlive)) {
      threads.get(0).join(sampleEvery);
      Resources now = Resources.sample();
      samples.add(now);
      if (warm == null && System.currentTimeMillis() > deadline - seconds * 750) {
        warm = now; // a quarter in: the working set is allocated
      }
    }
    for (Thread thread : threads) {
      thread.join();
    }
    stop.set(true);
    churnDone.await();
    Resources loaded = Resources.sample();
    Map<String, Long> totals = new java.util.TreeMap<>();
    for (Worker worker : workers) {
      if (worker.failure != null) {
        throw new AssertionError("worker " + worker.id + " failed", worker.failure);
      }
      worker.counts.forEach((k, v) -> totals.merge(k, v, Long::sum));
    }
    assertEquals(List.of(), churnFailures);
    manager.close();
    Resources after = settle(before);
    long operations =
        totals.entrySet().stream()
            .filter(e -> !e.getKey().startsWith("hit") && !e.getKey().startsWith("miss"))
            .mapToLong(Map.Entry::getValue)
            .sum();
    System.out.printf(
        "soak %s: %d s, %d operations (%d/s) %s, %d managers churned, events %s%n",
        backend, seconds, operations, operations / seconds, totals, churned.get(), Events.COUNTS);
    System.out.printf(
        "soak %s resources: before %s | warm %s | loaded %s | after close %s%n",
        backend, before, warm, loaded, after);
    System.out.printf("soak %s samples: %s%n", backend, samples);
    assertTrue(churned.get() >= seconds / 4, "managers were not churned");
    assertTrue(totals.getOrDefault("miss (expired)", 0L) > 0, "expiry never took part");
    // Margins: growth from a quarter in to the end is a leak; after closing, back near the start.
    if (warm != null) {
      // Event delivery uses cached thread pools (idle threads linger 60 s): some spread is normal.
      assertTrue(
          loaded.threads() <= warm.threads() + 32, "threads grew: " + warm + " -> " + loaded);
      assertTrue(loaded.fds() <= warm.fds() + 16, "fds grew: " + warm + " -> " + loaded);
      // The heap is fixed and pre-touched: resident growth is memory outside it.
      assertTrue(
          loaded.rssBytes() <= warm.rssBytes() + (128L << 20),
          "resident memory grew: " + warm + " -> " + loaded);
      assertTrue(
          loaded.directBytes() <= warm.directBytes() + (64L << 20),
          "direct memory grew: " + warm + " -> " + loaded);
    }
    assertTrue(after.threads() <= before.threads() + 4, "threads left: " + before + " -> " + after);
    assertTrue(after.fds() <= before.fds() + 8, "fds left: " + before + " -> " + after);
    assertTrue(
        after.directBytes() <= before.directBytes() + (16L << 20),
        "direct memory left: " + before + " -> " + after);
  }

  /**
   * The config of a backend: {@code fake} (the test-only library), {@code real} (a real Mooncake,
   * inside test-support/netns), else the in-process store with {@code inProcessExtra}.
   */
  private URI config(String backend, String tenant, String inProcessExtra) {
    switch (backend) {
      case "fake":
        return Configs.fake(dir, tenant, "512MB", "");
      case "real":
        return Configs.real(dir, tenant, "512MB");
      default:
        return Configs.inProcess(dir, tenant, inProcessExtra);
    }
  }

  /** One short cycle first, so that "before" counts loaded classes' jars and libraries. */
  private void warmUp(String backend) {
    URI uri = config(backend, "warm-up", "");
    CacheManager m = Caching.getCachingProvider().getCacheManager(uri, getClass().getClassLoader());
    Cache<String, byte[]> c = m.createCache("warm-up", configuration());
    c.put("a", value("a", 1));
    c.putAll(Map.of("b", value("b", 2), "c", value("c", 3)));
    c.getAll(Set.of("a", "b", "x"));
    c.invoke("a", new Replace(), (Object) value("a", 4));
    c.remove("b");
    c.get("c");
    m.close();
  }

  /** Samples after the closed store's threads ended and its direct buffers were collected. */
  private static Resources settle(Resources before) throws InterruptedException {
    Resources now = Resources.sample();
    for (int i = 0; i < 100; i++) {
      System.gc();
      now = Resources.sample();
      if (now.threads() <= before.threads() + 4
          && now.directBytes() <= before.directBytes() + (16L << 20)) {
        break;
      }
      // polling for threads to end (idle lock-read threads after BoundedCalls.IDLE_THREAD_SECONDS)
      // and cleaners to run, bounded at 10 s
      Thread.sleep(100);
    }
    return now;
  }
}
