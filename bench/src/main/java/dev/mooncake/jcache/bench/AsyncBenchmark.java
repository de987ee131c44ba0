package dev.mooncake.jcache.bench;

import dev.mooncake.jcache.MooncakeCacheAsync;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 33: one platform thread keeping {@code inFlight} operations outstanding through an
 * asynchronous API, against the same thread calling synchronously, on a real Mooncake over loopback
 * and on Redisson's JCache over a local redis-server ({@code bench/run-async.sh}).
 *
 * <ul>
 *   <li>{@code mooncake-async}: {@code cache.unwrap(MooncakeCacheAsync.class)} of {@code
 *       mooncake-store} (the provider's defaults: {@code cluster} consistency, {@code
 *       async_workers} 8);
 *   <li>{@code mooncake-sync}: the same cache's {@code get} / {@code put} on the benchmark thread;
 *       it has no window, so it runs only with {@code inFlight} 1 (the baseline);
 *   <li>{@code redisson-async}: {@code cache.unwrap(org.redisson.api.CacheAsync.class)} of
 *       Redisson's JCache.
 * </ul>
 *
 * <p>The window: before each measured iteration {@code inFlight} operations are issued (outside the
 * clock); then each invocation waits for one of them to complete and issues the next. So one
 * invocation is one completed operation, and the window is full from the iteration's first instant
 * to its last. At the iteration's end the thread waits for the outstanding ones (outside the clock)
 * so nothing is in flight across JMH's pause.
 *
 * <p>Every key is filled before measuring, so every get should hit ({@code misses} counts the ones
 * that did not); failed operations are counted ({@code errors}), not fatal. Keys (uniform) and coin
 * flips are drawn before the trial from a seeded generator, the same for every peer.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 3,
    jvmArgsAppend = {
      "--enable-native-access=ALL-UNNAMED",
      "-Xms2g",
      "-Xmx2g",
      "-XX:MaxDirectMemorySize=2g"
    })
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
@State(Scope.Benchmark)
public class AsyncBenchmark {
  static final String ASYNC = "mooncake-async";
  static final String SYNC = "mooncake-sync";
  static final String REDISSON = "redisson-async";

  /** Keys filled: 64 MiB of 64 KiB values, enough that 64 operations rarely share a key. */
  static final int KEYS = 1024;

  private static final int VALUE_POOL = 8;
  private static final int DRAWS = 1 << 16;

  /** An operation that does not complete within this fails the trial instead of hanging it. */
  private static final long STUCK_SECONDS = 60;

  @Param({ASYNC, SYNC, REDISSON})
  public String peer;

  @Param({"1", "8", "64"})
  public int inFlight;

  @Param({"1k", "64k"})
  public String value;

  /** {@code get}: gets only; {@code 90-10}: 90 % gets, 10 % puts. */
  @Param({"get", "90-10"})
  public String mix;

  private Peer cache;
  private AsyncOps async;
  private final String[] keys = new String[KEYS];
  private Object[] values;
  private final int[] keyIndex = new int[DRAWS];
  private final boolean[] isPut = new boolean[DRAWS];
  private int next;

  /** Room in the window: operations outstanding + permits = inFlight at every instant. */
  private Semaphore room;

  private Tally tally;

  /** The two operations through one peer's asynchronous API. */
  private record AsyncOps(
      Function<String, CompletionStage<?>> get,
      BiFunction<String, Object, CompletionStage<?>> put) {}

  @Setup(Level.Trial)
  public void open(Tally tally) {
    this.tally = tally;
    if (peer.equals(SYNC) && inFlight != 1) {
      throw new IllegalArgumentException(
          SYNC + " calls on the benchmark thread: it has no window, run it with -p inFlight=1");
    }
    ValueKind kind = ValueKind.of(value);
    int putPercent =
        switch (mix) {
          case "get" -> 0;
          case "90-10" -> 10;
          default -> throw new IllegalArgumentException("mix is get or 90-10, not '" + mix + "'");
        };
    SplittableRandom random = new SplittableRandom(42);
    values = new Object[VALUE_POOL];
    for (int i = 0; i < VALUE_POOL; i++) {
      values[i] = kind.newValue(random);
    }
    for (int i = 0; i < DRAWS; i++) {
      keyIndex[i] = random.nextInt(KEYS);
      isPut[i] = random.nextInt(100) < putPercent;
    }
    cache = Peers.open(peer.equals(REDISSON) ? "redisson" : "mooncake-store", kind, KEYS);
    fill(cache, "async-", keys, values, kind);
    async = asyncOps();
    room = new Semaphore(inFlight);
  }

  /**
   * Names {@code keys.length} keys {@code prefix + i} into {@code keys} and puts each (values
   * cycled), in putAll chunks of 64 keys and at most 4 MiB, then checks the last one reads back.
   * Under {@code cluster} a putAll holds its keys' locks until its last write: 256 keys at a time
   * outlived the 5 s lease on a loaded machine (load average 19).
   */
  static void fill(Peer cache, String prefix, String[] keys, Object[] values, ValueKind kind) {
    int chunk = (int) Math.max(1, Math.min(64, 4 * Peers.MIB / kind.bytes()));
    Map<String, Object> batch = new HashMap<>();
    for (int i = 0; i < keys.length; i++) {
      keys[i] = prefix + i;
      batch.put(keys[i], values[i % values.length]);
      if (batch.size() == chunk || i == keys.length - 1) {
        cache.putAll(batch);
        batch.clear();
      }
    }
    if (cache.get(keys[keys.length - 1]) == null) {
      throw new IllegalStateException(cache.describe() + ": a filled key reads absent");
    }
  }

  @SuppressWarnings("unchecked")
  private AsyncOps asyncOps() {
    switch (peer) {
      case ASYNC:
        MooncakeCacheAsync<String, Object> mooncake = cache.unwrap(MooncakeCacheAsync.class);
        return new AsyncOps(mooncake::getAsync, mooncake::putAsync);
      case REDISSON:
        org.redisson.api.CacheAsync<String, Object> redisson =
            cache.unwrap(org.redisson.api.CacheAsync.class);
        return new AsyncOps(redisson::getAsync, redisson::putAsync);
      case SYNC:
        return null;
      default:
        throw new IllegalArgumentException("unknown peer '" + peer + "'");
    }
  }

  /** Fills the window before the clock starts. */
  @Setup(Level.Iteration)
  public void prime() throws InterruptedException {
    if (async != null) {
      awaitRoom(inFlight); // nothing outstanding: the last iteration drained it
      for (int i = 0; i < inFlight; i++) {
        issue();
      }
    }
  }

  /** Waits for the outstanding operations after the clock stopped. */
  @TearDown(Level.Iteration)
  public void drain() throws InterruptedException {
    if (async != null) {
      awaitRoom(inFlight);
      room.release(inFlight);
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    if (cache != null) {
      cache.close();
    }
  }

  /** What a completed operation found, into the {@link Tally}; gives its room back. */
  private void completed(Object found, Throwable failure, boolean get) {
    if (failure != null) {
      tally.failed(failure);
    } else if (get && found == null) {
      tally.misses.increment();
    }
    room.release();
  }

  private void awaitRoom(int permits) throws InterruptedException {
    if (!room.tryAcquire(permits, STUCK_SECONDS, TimeUnit.SECONDS)) {
      throw new IllegalStateException(
          peer + ": an operation did not complete within " + STUCK_SECONDS + " s");
    }
  }

  /** Issues the next drawn operation; its completion gives its room back. */
  private void issue() {
    int i = next++ & (DRAWS - 1);
    String key = keys[keyIndex[i]];
    boolean get = !isPut[i];
    CompletionStage<?> stage;
    try {
      stage = get ? async.get().apply(key) : async.put().apply(key, values[i & (VALUE_POOL - 1)]);
    } catch (RuntimeException e) { // refused when issued (an overloaded or closed cache)
      completed(null, e, get);
      return;
    }
    stage.whenComplete((found, failure) -> completed(found, failure, get));
  }

  /** One completed operation: asynchronous peers wait for room and issue, the sync one calls. */
  @Benchmark
  public void operation(Tally.Counts counts) throws InterruptedException {
    if (async == null) {
      callSync();
      return;
    }
    awaitRoom(1);
    issue();
  }

  private void callSync() {
    int i = next++ & (DRAWS - 1);
    String key = keys[keyIndex[i]];
    try {
      if (isPut[i]) {
        cache.put(key, values[i & (VALUE_POOL - 1)]);
      } else if (cache.get(key) == null) {
        tally.misses.increment();
      }
    } catch (RuntimeException e) {
      tally.failed(e);
    }
  }
}
