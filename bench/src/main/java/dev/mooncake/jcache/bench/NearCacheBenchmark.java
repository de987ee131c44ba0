package dev.mooncake.jcache.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The near cache (issue 11) on {@link CacheBenchmark}'s data set, keys and pre-drawn operations
 * (its state, so every peer fills and draws the same way):
 *
 * <ul>
 *   <li>{@link #nearReadHeavy}: {@link CacheBenchmark#readHeavy} (90 % get, 10 % put of one key),
 *       after a peer with a near cache has read every key once ({@link Warm}): the steady state of
 *       a near cache that has seen the key set, not its first seconds (at 100,000 keys of 1 KiB the
 *       Zipfian tail would still be arriving after the warm-up iterations);
 *   <li>{@link #nearHitGet}: a get of one of {@link #HOT} keys that were all read once before
 *       measuring: with a near cache every call is a hit, without one every call is a get through
 *       the store. The pair decides the target "a near-cache hit at 1 KiB at least 20× a get
 *       through Mooncake".
 * </ul>
 */
public class NearCacheBenchmark {
  /** The benchmark methods of this class (BenchMain picks the class by method name). */
  static final List<String> BENCHMARKS = List.of("nearReadHeavy", "nearHitGet");

  /** Keys the hit benchmark reads (power of two); well below every key count measured. */
  static final int HOT = 1024;

  /**
   * How long the warm-up waits after the fill before reading: the fill's own events (one per put,
   * 100,000 at 1 KiB) reach the near cache after the puts returned, and each drops the key's copy.
   */
  static final long SETTLE_MILLIS = 2000;

  static final int WARM_THREADS = 4;

  /** A near cache that has read every key once (peers without one are left as they are). */
  @State(Scope.Benchmark)
  public static class Warm {
    @Setup(Level.Trial)
    public void readAll(CacheBenchmark b) throws InterruptedException {
      if (!NearPeers.isNear(b.peer)) {
        return;
      }
      Thread.sleep(SETTLE_MILLIS);
      long start = System.nanoTime();
      // a few threads, so that round trips overlap: 100,000 gets one after another took most of
      // a minute on this loaded machine
      ExecutorService pool = Executors.newFixedThreadPool(WARM_THREADS);
      AtomicInteger missing = new AtomicInteger();
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < WARM_THREADS; t++) {
          int first = t;
          done.add(
              pool.submit(
                  () -> {
                    for (int i = first; i < b.keyNames.length; i += WARM_THREADS) {
                      if (b.cache.get(b.keyNames[i]) == null) {
                        missing.incrementAndGet();
                      }
                    }
                  }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } catch (ExecutionException e) {
        throw new IllegalStateException("warming the near cache failed", e.getCause());
      } finally {
        pool.shutdownNow();
      }
      System.out.printf(
          java.util.Locale.ROOT,
          "%n# near cache warmed: read %,d keys in %.1f s (%d missing)%n",
          b.keyNames.length,
          (System.nanoTime() - start) / 1e9,
          missing.get());
    }
  }

  /** One thread's pre-drawn indices into the hot keys, which it has read once. */
  @State(Scope.Thread)
  public static class Hot {
    int[] keyIndex;
    int next;

    @Setup(Level.Trial)
    public void draw(CacheBenchmark b) throws InterruptedException {
      Thread.sleep(SETTLE_MILLIS); // as Warm: let the fill's events arrive first
      int hot = Math.min(HOT, b.keyCount);
      SplittableRandom random = new SplittableRandom(7);
      keyIndex = new int[CacheBenchmark.OPS];
      for (int i = 0; i < keyIndex.length; i++) {
        keyIndex[i] = random.nextInt(hot);
      }
      for (int i = 0; i < hot; i++) {
        b.cache.get(b.keyNames[i]);
      }
    }
  }

  /**
   * Prints the near cache's own counters after each iteration (hits, misses and the hit rate;
   * invalidations by events per second and by this JVM's own writes; store reads kept and refused;
   * flushes, entries held, live), so a run shows whether the near cache served what it should and
   * what took its copies away. They are read by reflection: the provider keeps its near cache
   * package-private, and a benchmark must not need an API the provider does not otherwise have.
   */
  @State(Scope.Benchmark)
  public static class NearStats {
    private static final String[] COUNTERS = {
      "hits",
      "misses",
      "invalidations",
      "ownInvalidations",
      "installs",
      "refusedInstalls",
      "flushes",
      "size"
    };

    private Object near;
    private long[] before;
    private long startNanos;

    @Setup(Level.Iteration)
    public void start(CacheBenchmark b) {
      if (near == null && NearPeers.isNear(b.peer)) {
        near = nearCacheOf(b.cache.unwrap(javax.cache.Cache.class));
      }
      before = near == null ? null : counters(near);
      startNanos = System.nanoTime();
    }

    @TearDown(Level.Iteration)
    public void stop() {
      if (near == null) {
        return;
      }
      double seconds = (System.nanoTime() - startNanos) / 1e9;
      long[] after = counters(near);
      long[] d = new long[after.length];
      for (int i = 0; i < d.length; i++) {
        d[i] = after[i] - before[i];
      }
      System.out.printf(
          java.util.Locale.ROOT,
          "%n# near cache this iteration: %,d hits, %,d misses (hit rate %.1f %%);"
              + " invalidations: %,d by events (%,.0f/s), %,d by own writes; store reads kept"
              + " %,d, refused %,d; %,d flushes; %,d entries held, live %s%n",
          d[0],
          d[1],
          d[0] + d[1] == 0 ? 0.0 : 100.0 * d[0] / (d[0] + d[1]),
          d[2],
          d[2] / seconds,
          d[3],
          d[4],
          d[5],
          d[6],
          after[7],
          call(near, "isLive"));
    }

    private static Object nearCacheOf(Object cache) {
      try {
        java.lang.reflect.Method m = cache.getClass().getDeclaredMethod("nearCache");
        m.setAccessible(true);
        return m.invoke(cache);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot read the near cache of " + cache, e);
      }
    }

    private static long[] counters(Object near) {
      long[] values = new long[COUNTERS.length];
      for (int i = 0; i < values.length; i++) {
        values[i] = (Long) call(near, COUNTERS[i]);
      }
      return values;
    }

    private static Object call(Object target, String method) {
      try {
        return target.getClass().getMethod(method).invoke(target);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("near cache has no " + method + "()", e);
      }
    }
  }

  @Benchmark
  public Object nearReadHeavy(
      CacheBenchmark b,
      CacheBenchmark.Ops ops,
      CacheBenchmark.Misses misses,
      Warm warm,
      NearStats stats) {
    return b.readHeavy(ops, misses);
  }

  @Benchmark
  public Object nearHitGet(
      CacheBenchmark b, Hot hot, CacheBenchmark.Misses misses, NearStats stats) {
    String key = b.keyNames[hot.keyIndex[hot.next++ & (CacheBenchmark.OPS - 1)]];
    try {
      Object found = b.cache.get(key);
      if (found == null) {
        misses.misses++;
      }
      return found;
    } catch (RuntimeException e) {
      misses.errors++;
      return e;
    }
  }
}
