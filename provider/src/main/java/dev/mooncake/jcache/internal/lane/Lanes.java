package dev.mooncake.jcache.internal.lane;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.calls.Causes;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Worker lanes for store calls, as LMCache runs Mooncake: a lane named in {@code per_op_workers}
 * gets its own fixed pool of that many threads; the other lanes share one pool of {@code
 * num_workers} threads. A slow kind of call (say, large retrieves) then cannot starve another
 * (small puts).
 *
 * <p>Single synchronous calls run on the caller's thread unless {@code single_calls_on_lanes} is
 * set: the caller waits anyway, so a hop would only add a context switch. Batches and asynchronous
 * work go to the lanes ({@link #submit}, {@link #runChunked}). See {@code docs/lanes.md}.
 *
 * <p>Work already running on a lane's pool that calls back into the same lane runs inline, so a
 * pool can never deadlock waiting for itself.
 *
 * <p>Beside the store lanes, an {@code async} pool of {@code async_workers} threads runs the
 * operations of the asynchronous API ({@link #executeAsync}; docs/async.md). It is no store lane:
 * one such operation is a whole cache call (it may read and write, call a writer, wait for a key's
 * lock), and its batches still split across the store lanes, which it would block if it ran on
 * them.
 */
public final class Lanes implements AutoCloseable {
  private static final long CLOSE_WAIT_MILLIS = 2_000;

  private final String name;
  private final boolean singleCallsOnLanes;
  private final boolean batchesOnLanes;
  private final Map<Lane, Pool> pools = new EnumMap<>(Lane.class);
  private final List<Pool> distinctPools = new ArrayList<>();
  private final Pool async;
  private volatile boolean closed;

  /**
   * @param numWorkers threads of the shared pool, for every lane without its own
   * @param perOpWorkers lanes with a dedicated pool, and its size
   * @param singleCallsOnLanes whether {@link #call} hops onto the lane too
   * @param name names the threads, e.g. the cache manager's, for thread dumps
   */
  public Lanes(
      int numWorkers, Map<Lane, Integer> perOpWorkers, boolean singleCallsOnLanes, String name) {
    this(numWorkers, perOpWorkers, singleCallsOnLanes, true, name);
  }

  /** Lanes with as many asynchronous-API threads as shared workers. */
  public Lanes(
      int numWorkers,
      Map<Lane, Integer> perOpWorkers,
      boolean singleCallsOnLanes,
      boolean batchesOnLanes,
      String name) {
    this(numWorkers, perOpWorkers, singleCallsOnLanes, batchesOnLanes, numWorkers, name);
  }

  /**
   * @param batchesOnLanes whether {@link #runChunked} splits batches across the lane's threads (for
   *     a store with round trips to overlap) or runs them on the caller's thread
   * @param asyncWorkers threads of the pool that runs asynchronous-API operations
   */
  public Lanes(
      int numWorkers,
      Map<Lane, Integer> perOpWorkers,
      boolean singleCallsOnLanes,
      boolean batchesOnLanes,
      int asyncWorkers,
      String name) {
    if (numWorkers <= 0) {
      throw new IllegalArgumentException("num_workers must be > 0, got " + numWorkers);
    }
    if (asyncWorkers <= 0) {
      throw new IllegalArgumentException("async_workers must be > 0, got " + asyncWorkers);
    }
    this.name = name;
    this.singleCallsOnLanes = singleCallsOnLanes;
    this.batchesOnLanes = batchesOnLanes;
    Pool shared = null;
    for (Lane lane : Lane.values()) {
      Integer size = perOpWorkers.get(lane);
      Pool pool;
      if (size != null) {
        if (size <= 0) {
          throw new IllegalArgumentException(
              "per_op_workers." + lane.configKey() + " must be > 0, got " + size);
        }
        pool = new Pool("mooncake-" + name + "-" + lane.configKey() + "-", size);
        distinctPools.add(pool);
      } else {
        if (shared == null) {
          shared = new Pool("mooncake-" + name + "-shared-", numWorkers);
          distinctPools.add(shared);
        }
        pool = shared;
      }
      pools.put(lane, pool);
    }
    this.async = new Pool("mooncake-" + name + "-async-", asyncWorkers);
    distinctPools.add(async);
  }

  /**
   * The lanes a config's {@code per_op_workers} names ({@link MooncakeConfig#perOpWorkers()}),
   * keyed by lane.
   */
  public static Map<Lane, Integer> perOpWorkers(MooncakeConfig config) {
    Map<Lane, Integer> workers = new EnumMap<>(Lane.class);
    for (Map.Entry<String, Integer> e : config.perOpWorkers().entrySet()) {
      Lane lane = Lane.fromConfigKey(e.getKey());
      if (lane == null) {
        throw new IllegalArgumentException("per_op_workers." + e.getKey() + ": no such lane");
      }
      workers.put(lane, e.getValue());
    }
    return workers;
  }

  /** The executor that runs a lane's work (tests; {@link #submit} for work). */
  ExecutorService executor(Lane lane) {
    return pools.get(lane).executor;
  }

  /** The prefix of the names of the lane's threads, e.g. {@code mooncake-cm1-retrieve-} (tests). */
  String threadNamePrefix(Lane lane) {
    return pools.get(lane).prefix;
  }

  /** How many threads run the lane's work (shared with other lanes when it has no own pool). */
  int poolSize(Lane lane) {
    return pools.get(lane).size;
  }

  /**
   * Runs one synchronous store call: on the caller's thread, or on the lane when {@code
   * single_calls_on_lanes} is set. Whatever the call throws is thrown as is.
   */
  public <T> T call(Lane lane, Supplier<T> call) {
    if (runsHere(lane)) {
      return call.get();
    }
    return await(submit(lane, call));
  }

  /**
   * {@link #call} for calls answering a status code or a length: no boxing on the caller's thread
   * (a boxed {@code Long} per get showed in allocation profiles).
   */
  public long callLong(Lane lane, LongSupplier call) {
    if (runsHere(lane)) {
      return call.getAsLong();
    }
    return await(submit(lane, call::getAsLong));
  }

  /**
   * Whether a single call on {@code lane} runs on the caller's thread (no {@code
   * single_calls_on_lanes}, or already on the lane): then a hot path may make the call itself
   * instead of through {@link #callLong}, two frames less. Throws once the lanes are closed, as
   * every call does.
   */
  public boolean runsHere(Lane lane) {
    ensureOpen();
    return !singleCallsOnLanes || pools.get(lane).ownsCurrentThread();
  }

  /** Runs a store call on its lane. */
  public <T> CompletableFuture<T> submit(Lane lane, Supplier<T> call) {
    ensureOpen();
    try {
      return CompletableFuture.supplyAsync(call, executor(lane));
    } catch (RejectedExecutionException e) {
      throw closedException(); // closed between the check and the submit
    }
  }

  /**
   * Queues one asynchronous-API operation on the {@code async} pool. Throws an {@link
   * IllegalStateException} naming the lanes once they are closed.
   */
  public void executeAsync(Runnable operation) {
    ensureOpen();
    try {
      async.executor.execute(operation);
    } catch (RejectedExecutionException e) {
      throw closedException(); // closed between the check and the execute
    }
  }

  /** Whether the current thread is one of the {@code async} pool's. */
  public boolean onAsyncThread() {
    return async.ownsCurrentThread();
  }

  /** The prefix of the {@code async} pool's thread names, e.g. {@code mooncake-m1-async-}. */
  public String asyncThreadNamePrefix() {
    return async.prefix;
  }

  /**
   * Runs {@code task} over {@code [0, count)} split into contiguous chunks of at least {@code
   * minChunk} items, at most one per thread of the lane's pool, on that pool, and waits for all of
   * them. For batch calls: each chunk is one store batch call filling its part of the results. The
   * first failure is thrown as is, after every chunk has ended. Without {@code batchesOnLanes}, the
   * whole task runs on the caller's thread instead.
   */
  public void runChunked(Lane lane, int count, int minChunk, ChunkTask task) {
    ensureOpen();
    if (count <= 0) {
      return;
    }
    Pool pool = pools.get(lane);
    int chunks = Math.max(1, Math.min(pool.size, count / Math.max(1, minChunk)));
    if (!batchesOnLanes || pool.ownsCurrentThread()) {
      task.run(0, count); // nested in the same pool, waiting on it could deadlock
      return;
    }
    List<CompletableFuture<Void>> parts = new ArrayList<>(chunks);
    for (int c = 0; c < chunks; c++) {
      int from = (int) ((long) count * c / chunks);
      int to = (int) ((long) count * (c + 1) / chunks);
      parts.add(
          submit(
              lane,
              () -> {
                task.run(from, to);
                return null;
              }));
    }
    RuntimeException first = null;
    for (CompletableFuture<Void> part : parts) {
      try {
        await(part);
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** A slice of a batch: items {@code [from, to)}. */
  @FunctionalInterface
  public interface ChunkTask {
    void run(int from, int to);
  }

  /**
   * One store batch call's answers for {@code [0, count)} (an {@code int[]} or a {@code long[]},
   * made by {@code newArray}), the batch split as {@link #runChunked} splits it: {@code call}
   * answers items {@code [from, to)}, one answer each in order, and lands at its place.
   */
  public <A> A batchAnswers(
      Lane lane, int count, int minChunk, IntFunction<A> newArray, BatchCall<A> call) {
    A answers = newArray.apply(count);
    runChunked(
        lane,
        count,
        minChunk,
        (from, to) -> System.arraycopy(call.answer(from, to), 0, answers, from, to - from));
    return answers;
  }

  /** A batch call over items {@code [from, to)}: an array of one answer per item, in order. */
  @FunctionalInterface
  public interface BatchCall<A> {
    A answer(int from, int to);
  }

  /** Stops the pools (idempotent): running work gets a moment to finish, queued work is dropped. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Pool pool : distinctPools) {
      pool.executor.shutdown();
    }
    Deadline deadline = Deadline.after(Duration.ofMillis(CLOSE_WAIT_MILLIS), Ticker.system());
    for (Pool pool : distinctPools) {
      if (pool.ownsCurrentThread()) {
        continue; // closing from a lane thread: it cannot wait for itself
      }
      try {
        if (!deadline.awaitTermination(pool.executor)) {
          pool.executor.shutdownNow();
        }
      } catch (InterruptedException e) {
        pool.executor.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw closedException();
    }
  }

  private IllegalStateException closedException() {
    Set<String> names = new LinkedHashSet<>();
    for (Pool pool : distinctPools) {
      names.add(pool.prefix + "*");
    }
    return new IllegalStateException(
        "the lanes of " + name + " are closed (" + String.join(", ", names) + ")");
  }

  /** Waits for a lane's result; the call's own exception comes out unwrapped. */
  private static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (ExecutionException e) {
      throw Causes.unwrapped(e.getCause(), RuntimeException.class, CompletionException::new);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(false);
      throw new CompletionException("interrupted while waiting for a lane", e);
    }
  }

  /** One fixed pool of daemon threads, named {@code prefix + n}. */
  private static final class Pool {
    /** The pool whose worker the current thread is, so nested calls can run inline. */
    private static final ThreadLocal<Pool> CURRENT = new ThreadLocal<>();

    final String prefix;
    final int size;
    final ExecutorService executor;

    Pool(String prefix, int size) {
      this.prefix = prefix;
      this.size = size;
      AtomicInteger counter = new AtomicInteger();
      ThreadFactory factory =
          work -> {
            Runnable marked =
                () -> {
                  CURRENT.set(this);
                  work.run();
                };
            Thread thread = new Thread(marked, prefix + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          };
      this.executor = Executors.newFixedThreadPool(size, factory);
    }

    boolean ownsCurrentThread() {
      return CURRENT.get() == this;
    }
  }
}
