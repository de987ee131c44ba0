package dev.mooncake.jcache.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The workloads. One peer, one value kind and one key distribution per trial (so per forked JVM);
 * the key space is filled before measuring, so every get should hit ({@code misses} counts the ones
 * that did not: a peer that evicts shows up there).
 *
 * <ul>
 *   <li>{@link #readHeavy} / {@link #writeHeavy}: 90/10 and 50/50 get/put, one key per call;
 *   <li>{@link #readHeavyBatch} / {@link #writeHeavyBatch}: the same mixes with getAll/putAll of 64
 *       keys per call (one op = one call);
 *   <li>{@link #getOnly} / {@link #putOnly}: one operation alone, for allocation per get and per
 *       put.
 * </ul>
 *
 * <p>Keys, coin flips and batches are drawn before the trial from a seeded generator (per thread
 * index), so every peer sees the same sequence and the generator costs nothing while measuring.
 * Thread count is chosen by the runner ({@code -t}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "--enable-native-access=ALL-UNNAMED",
      "-Xms3g",
      "-Xmx3g",
      "-XX:MaxDirectMemorySize=4g"
    })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@State(Scope.Benchmark)
public class CacheBenchmark {
  /** Values per kind that puts cycle through (power of two). */
  static final int VALUE_POOL = 8;

  static final int BATCH = 64;

  /** Pre-drawn operations per thread (power of two). */
  static final int OPS = 1 << 20;

  /** Pre-drawn batches per thread (power of two). */
  static final int BATCHES = 1 << 10;

  @Param({"mooncake"})
  public String peer;

  @Param({"1k"})
  public String value;

  @Param({"uniform"})
  public String keys;

  Peer cache;
  ValueKind kind;
  int keyCount;
  String[] keyNames;
  Object[] values;

  @Setup(Level.Trial)
  public void open() {
    kind = ValueKind.of(value);
    keyCount = Budget.keyCount(kind);
    keyNames = new String[keyCount];
    for (int i = 0; i < keyCount; i++) {
      keyNames[i] = "key-" + i;
    }
    SplittableRandom random = new SplittableRandom(42);
    values = new Object[VALUE_POOL];
    for (int i = 0; i < VALUE_POOL; i++) {
      values[i] = kind.newValue(random);
    }
    long start = System.nanoTime();
    cache = Peers.open(peer, kind, keyCount);
    long opened = System.nanoTime();
    fill();
    System.out.printf(
        java.util.Locale.ROOT,
        "%n# %s: opened in %.1f s, filled %,d keys of %s in %.1f s%n",
        cache.describe(),
        (opened - start) / 1e9,
        keyCount,
        kind.id(),
        (System.nanoTime() - opened) / 1e9);
  }

  /**
   * Fill threads for a peer across a network: its putAll chunks are round trips (under the cluster
   * lock also a remove per key to release), which overlap when several threads send them; 100,000
   * keys on one thread took 75-90 s for {@code mooncake-store} while putAll still locked one key at
   * a time. In-process peers fill on this thread: nothing to overlap, and their memory laid out as
   * in every earlier run.
   */
  static final int REMOTE_FILL_THREADS = 8;

  /**
   * Bytes of putAll chunks in flight at once across the fill threads: eight 64 MiB chunks of 1 MiB
   * values at once made Redisson's responses time out (3,000 ms) on a one-core Redis.
   */
  static final long FILL_BYTES_IN_FLIGHT = 32 * Peers.MIB;

  /** Threads for a fill in {@code chunk}-entry putAlls of {@code valueBytes} values. */
  static int fillThreads(boolean remote, int chunk, long valueBytes) {
    if (!remote) {
      return 1;
    }
    long perChunk = Math.max(1, (long) chunk * valueBytes);
    return (int) Math.max(1, Math.min(REMOTE_FILL_THREADS, FILL_BYTES_IN_FLIGHT / perChunk));
  }

  /** Puts every key, in putAll chunks (on several threads for remote peers), then checks a few. */
  private void fill() {
    int chunk = Math.max(1, Math.min(256, (int) (64 * Peers.MIB / kind.bytes())));
    List<Map<String, Object>> chunks = new ArrayList<>();
    Map<String, Object> batch = new HashMap<>();
    for (int i = 0; i < keyCount; i++) {
      batch.put(keyNames[i], values[i & (VALUE_POOL - 1)]);
      if (batch.size() == chunk || i == keyCount - 1) {
        chunks.add(batch);
        batch = new HashMap<>();
      }
    }
    int threads = fillThreads(Peers.isRemote(peer), chunk, kind.bytes());
    if (threads == 1) {
      chunks.forEach(cache::putAll);
    } else {
      putAllOn(threads, chunks);
    }
    for (int i : new int[] {0, keyCount / 2, keyCount - 1}) {
      if (cache.get(keyNames[i]) == null) {
        throw new IllegalStateException(
            peer
                + " lost "
                + keyNames[i]
                + " right after filling "
                + keyCount
                + " keys of "
                + kind.id()
                + ": it is too small for the data set");
      }
    }
  }

  /** Every chunk's putAll, {@code threads} at a time; the first failure ends the fill. */
  private void putAllOn(int threads, List<Map<String, Object>> chunks) {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (Map<String, Object> c : chunks) {
        done.add(pool.submit(() -> cache.putAll(c)));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException(peer + ": filling failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(peer + ": interrupted while filling", e);
    } finally {
      pool.shutdownNow();
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    if (cache != null) {
      cache.close();
      cache = null;
    }
  }

  /** Per-thread pre-drawn keys, coins (0..99) and batches. */
  @State(Scope.Thread)
  public static class Ops {
    int[] keyIndex;
    byte[] coin;
    int next;
    List<Set<String>> getBatches;
    List<Map<String, Object>> putBatches;
    int nextBatch;

    @Setup(Level.Trial)
    public void draw(CacheBenchmark b, ThreadParams thread) {
      SplittableRandom random = new SplittableRandom(1000L + thread.getThreadIndex());
      KeyChooser chooser = KeyChooser.of(b.keys, b.keyCount);
      keyIndex = new int[OPS];
      coin = new byte[OPS];
      for (int i = 0; i < OPS; i++) {
        keyIndex[i] = chooser.next(random);
        coin[i] = (byte) random.nextInt(100);
      }
      getBatches = new ArrayList<>(BATCHES);
      putBatches = new ArrayList<>(BATCHES);
      for (int i = 0; i < BATCHES; i++) {
        Set<String> set = new LinkedHashSet<>();
        Map<String, Object> map = new HashMap<>();
        // BATCH distinct keys, drawn until there are that many, as the C driver's draw_batch
        // does: a Zipfian draw repeats hot keys, and a batch that dropped them did less work
        int target = Math.min(BATCH, b.keyCount);
        for (int j = 0; set.size() < target; j++) {
          String key = b.keyNames[chooser.next(random)];
          if (set.add(key)) {
            map.put(key, b.values[(i + j) & (VALUE_POOL - 1)]);
          }
        }
        getBatches.add(set);
        putBatches.add(map);
      }
      // threads start at different places in their own sequence
      next = 0;
      nextBatch = 0;
    }

    int nextOp() {
      return next++ & (OPS - 1);
    }

    int nextBatchIndex() {
      return nextBatch++ & (BATCHES - 1);
    }
  }

  /**
   * Gets that found nothing (should stay 0: every key is filled and no peer should evict) and calls
   * that failed with an exception: counted and reported next to throughput, as the C driver's
   * failed calls are, instead of ending the run.
   */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Misses {
    public long misses;
    public long errors;

    @Setup(Level.Iteration)
    public void reset() {
      misses = 0;
      errors = 0;
    }
  }

  private Object mixed(Ops ops, Misses misses, int putPercent) {
    int i = ops.nextOp();
    String key = keyNames[ops.keyIndex[i]];
    try {
      if (ops.coin[i] < putPercent) {
        cache.put(key, values[i & (VALUE_POOL - 1)]);
        return key;
      }
      Object found = cache.get(key);
      if (found == null) {
        misses.misses++;
      }
      return found;
    } catch (RuntimeException e) {
      misses.errors++;
      return e;
    }
  }

  private Object mixedBatch(Ops ops, Misses misses, int putPercent) {
    int b = ops.nextBatchIndex();
    try {
      if (ops.coin[b] < putPercent) {
        cache.putAll(ops.putBatches.get(b));
        return ops;
      }
      Set<String> wanted = ops.getBatches.get(b);
      Map<String, Object> found = cache.getAll(wanted);
      misses.misses += wanted.size() - found.size();
      return found;
    } catch (RuntimeException e) {
      misses.errors++;
      return e;
    }
  }

  @Benchmark
  public Object readHeavy(Ops ops, Misses misses) {
    return mixed(ops, misses, 10);
  }

  @Benchmark
  public Object writeHeavy(Ops ops, Misses misses) {
    return mixed(ops, misses, 50);
  }

  @Benchmark
  public Object readHeavyBatch(Ops ops, Misses misses) {
    return mixedBatch(ops, misses, 10);
  }

  @Benchmark
  public Object writeHeavyBatch(Ops ops, Misses misses) {
    return mixedBatch(ops, misses, 50);
  }

  @Benchmark
  public Object getOnly(Ops ops, Misses misses) {
    return mixed(ops, misses, 0);
  }

  @Benchmark
  public Object putOnly(Ops ops, Misses misses) {
    return mixed(ops, misses, 100);
  }
}
