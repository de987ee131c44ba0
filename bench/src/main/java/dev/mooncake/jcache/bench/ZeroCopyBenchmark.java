package dev.mooncake.jcache.bench;

import dev.mooncake.jcache.ZeroCopyCache;
import java.nio.ByteBuffer;
import java.util.List;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The provider's zero-copy API ({@code cache.unwrap(ZeroCopyCache.class)}) on the data set, keys
 * and pre-drawn operations of {@link CacheBenchmark} (its state, so both fill and draw the same
 * way), for this provider's peers only:
 *
 * <ul>
 *   <li>{@link #zeroCopyGet}: a get into one buffer from {@code allocate}, reused by every op;
 *   <li>{@link #zeroCopyPut}: a put from {@code allocate}d buffers holding the values;
 *   <li>{@link #normalGet}: the JCache {@code get} of the same keys, for comparison.
 * </ul>
 *
 * <p>Besides JMH's allocation per op, {@link Copies} reports the cache's own count of bytes copied
 * in Java ({@code javaCopiedBytes()}) per iteration, with the calls made, so the report can give
 * copied bytes per op: 0 for the zero-copy calls, the value's size for a normal get.
 */
public class ZeroCopyBenchmark {
  /** The benchmark methods of this class (BenchMain picks the class by method name). */
  static final List<String> BENCHMARKS = List.of("zeroCopyGet", "normalGet", "zeroCopyPut");

  /** One thread's zero-copy view of the cache and its buffers, allocated before measuring. */
  @State(Scope.Thread)
  public static class Buffers {
    ZeroCopyCache<String> api;
    ByteBuffer destination;
    ByteBuffer[] values;

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void allocate(CacheBenchmark b) {
      api = b.cache.unwrap(ZeroCopyCache.class);
      int size = b.kind.bytes();
      destination = api.allocate(size);
      values = new ByteBuffer[CacheBenchmark.VALUE_POOL];
      for (int i = 0; i < values.length; i++) {
        values[i] = api.allocate(size);
        values[i].put(values[i].position(), (byte[]) b.values[i]);
      }
    }

    // JMH closes the cache first; both stores take buffers back after closing (and free them)
    @TearDown(Level.Trial)
    public void release() {
      api.release(destination);
      for (ByteBuffer value : values) {
        api.release(value);
      }
    }
  }

  /**
   * Bytes the cache copied in Java during the iteration, and the calls made. The counter is the
   * cache's, shared by all threads: each thread reports its share, so the sum is the cache's.
   */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Copies {
    public double javaCopiedBytes;
    public long calls;
    private long before;
    private ZeroCopyCache<?> api;
    private int threads;

    // not from Buffers: JMH would give this state its own instance of it
    @Setup(Level.Iteration)
    public void start(CacheBenchmark b, ThreadParams thread) {
      api = b.cache.unwrap(ZeroCopyCache.class);
      threads = thread.getThreadCount();
      calls = 0;
      javaCopiedBytes = 0;
      before = api.javaCopiedBytes();
    }

    // JMH reads the counters after the iteration's tear-down
    @TearDown(Level.Iteration)
    public void stop() {
      javaCopiedBytes = (api.javaCopiedBytes() - before) / (double) threads;
    }
  }

  @Benchmark
  public int zeroCopyGet(
      CacheBenchmark b,
      CacheBenchmark.Ops ops,
      CacheBenchmark.Misses misses,
      Buffers buffers,
      Copies copies) {
    copies.calls++;
    // get_into writes header and value from the buffer's start; the get frames the value
    int length =
        buffers.api.get(b.keyNames[ops.keyIndex[ops.nextOp()]], buffers.destination.clear());
    if (length < 0) {
      misses.misses++;
    }
    return length;
  }

  @Benchmark
  public Object normalGet(
      CacheBenchmark b, CacheBenchmark.Ops ops, CacheBenchmark.Misses misses, Copies copies) {
    copies.calls++;
    return b.getOnly(ops, misses);
  }

  @Benchmark
  public String zeroCopyPut(
      CacheBenchmark b, CacheBenchmark.Ops ops, Buffers buffers, Copies copies) {
    copies.calls++;
    int i = ops.nextOp();
    String key = b.keyNames[ops.keyIndex[i]];
    buffers.api.put(key, buffers.values[i & (CacheBenchmark.VALUE_POOL - 1)]);
    return key;
  }
}
