package dev.mooncake.jcache.bench;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 33: {@value #WORKERS} threads each making synchronous {@code get}s and {@code put}s (90/10,
 * 1 KiB, uniform over {@value #KEYS} filled keys) on the provider on a real Mooncake, as
 *
 * <ul>
 *   <li>{@code virtual}: virtual threads, whose store calls the provider hands to platform threads
 *       ({@code VirtualThreadCalls}, the default);
 *   <li>{@code virtual-unbatched}: as {@code virtual}, but each read its own store call ({@code
 *       -Dmooncake.jcache.virtualThreadReadBatches=false}, set here likewise): what the provider's
 *       batching of virtual threads' reads ({@code ReadCoalescer}) adds to the hand-off;
 *   <li>{@code virtual-pinned}: virtual threads calling inline, each JNI call pinning its carrier
 *       ({@code -Dmooncake.jcache.virtualThreadHandOff=false}, the provider's test-only switch, set
 *       here before the provider's first call);
 *   <li>{@code platform}: {@value #WORKERS} platform threads.
 * </ul>
 *
 * <p>JMH with forks and iterations, but the work is not JMH's benchmark thread's: the workers run
 * from the trial's set-up to its tear-down, and the benchmark method samples their count of
 * completed operations every {@value #SAMPLE_MS} ms into {@link Window#operations}, an {@code
 * OPERATIONS} aux counter that JMH divides by the iteration's time. So the figure is the secondary
 * result {@code operations} (ops/s); the primary one counts samples and means nothing.
 *
 * <p>Needs virtual threads (Java 21+) in the forks while the bench compiles at release 17: they are
 * made through {@code Thread.ofVirtual()} looked up by {@link MethodHandles}; on an older JVM the
 * set-up fails saying so. {@code bench/run-async.sh} runs the forks on Java 25.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 3,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
@State(Scope.Benchmark)
public class VirtualThreadBenchmark {
  static final String VIRTUAL = "virtual";
  static final String UNBATCHED = "virtual-unbatched";
  static final String PINNED = "virtual-pinned";
  static final String PLATFORM = "platform";

  static final int WORKERS = 1000;
  static final int KEYS = 4096;
  static final int SAMPLE_MS = 10;

  /** The provider's switch (read once, when its hand-off pool is first used). */
  static final String HAND_OFF_SWITCH = "mooncake.jcache.virtualThreadHandOff";

  /** The provider's switch for batching virtual threads' reads (read when a client opens). */
  static final String READ_BATCHES_SWITCH = "mooncake.jcache.virtualThreadReadBatches";

  /** The hand-off pool's threads are named so (docs/lanes.md, "Virtual threads"). */
  static final String HAND_OFF_THREAD = "mooncake-vthread-calls-";

  /** The platform peer's threads ({@link CpuShareProfiler} counts them as callers). */
  static final String LOAD_THREAD = "bench-load-";

  private static final int VALUE_POOL = 8;
  private static final long STOP_SECONDS = 60;

  @Param({VIRTUAL, UNBATCHED, PINNED, PLATFORM})
  public String threads;

  private Peer cache;
  private final String[] keys = new String[KEYS];
  private final Object[] values = new Object[VALUE_POOL];
  private Thread[] workers;
  private volatile boolean stop;
  private final LongAdder completed = new LongAdder();
  private Tally tally;

  @Setup(Level.Trial)
  public void open(Tally tally) throws InterruptedException {
    this.tally = tally;
    AtomicInteger loadThreads = new AtomicInteger();
    ThreadFactory factory =
        threads.equals(PLATFORM)
            ? work -> new Thread(work, LOAD_THREAD + loadThreads.incrementAndGet())
            : virtualThreads();
    if (threads.equals(PINNED)) {
      System.setProperty(HAND_OFF_SWITCH, "false");
    } else if (threads.equals(UNBATCHED)) {
      System.setProperty(READ_BATCHES_SWITCH, "false");
    } else if (!threads.equals(VIRTUAL) && !threads.equals(PLATFORM)) {
      throw new IllegalArgumentException("unknown threads '" + threads + "'");
    }
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < VALUE_POOL; i++) {
      values[i] = ValueKind.KIB1.newValue(random);
    }
    cache = Peers.open("mooncake-store", ValueKind.KIB1, KEYS);
    AsyncBenchmark.fill(cache, "vthread-", keys, values, ValueKind.KIB1);
    CountDownLatch running = new CountDownLatch(WORKERS);
    workers = new Thread[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
      workers[i] = factory.newThread(worker(i, running));
      workers[i].start();
    }
    if (!running.await(STOP_SECONDS, TimeUnit.SECONDS)) {
      throw new IllegalStateException(WORKERS + " " + threads + " threads did not all start");
    }
  }

  /** One worker: 90 % gets, 10 % puts of uniform keys until the trial ends. */
  private Runnable worker(int id, CountDownLatch running) {
    return () -> {
      SplittableRandom random = new SplittableRandom(id);
      running.countDown();
      while (!stop) {
        String key = keys[random.nextInt(KEYS)];
        try {
          if (random.nextInt(10) == 0) {
            cache.put(key, values[random.nextInt(VALUE_POOL)]);
          } else if (cache.get(key) == null) {
            tally.misses.increment();
          }
          completed.increment();
        } catch (RuntimeException e) {
          tally.failed(e);
        }
      }
    };
  }

  /**
   * Checks that the peer is what it says: the provider's hand-off threads exist while virtual
   * threads call with the hand-off on, and never otherwise.
   */
  @TearDown(Level.Iteration)
  public void checkHandOff() {
    boolean handingOff =
        Thread.getAllStackTraces().keySet().stream()
            .anyMatch(t -> t.getName().startsWith(HAND_OFF_THREAD));
    if (handingOff != (threads.equals(VIRTUAL) || threads.equals(UNBATCHED))) {
      throw new IllegalStateException(
          threads
              + ": the provider's hand-off threads ("
              + HAND_OFF_THREAD
              + "…) are "
              + (handingOff ? "running" : "absent")
              + "; the "
              + HAND_OFF_SWITCH
              + " switch did not take effect");
    }
  }

  @TearDown(Level.Trial)
  public void close() throws InterruptedException {
    stop = true;
    try {
      for (Thread worker : workers == null ? new Thread[0] : workers) {
        worker.join(TimeUnit.SECONDS.toMillis(STOP_SECONDS));
        if (worker.isAlive()) {
          throw new IllegalStateException(threads + ": a worker did not stop within 60 s");
        }
      }
    } finally {
      if (cache != null) {
        cache.close();
      }
    }
  }

  /** Samples the workers' completed operations into this iteration's count. */
  @Benchmark
  public void window(Window window, Tally.Counts counts) throws InterruptedException {
    Thread.sleep(SAMPLE_MS);
    long now = completed.sum();
    window.operations += now - window.last;
    window.last = now;
  }

  /** Operations the workers completed during the iteration: JMH reports them per second. */
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  @State(Scope.Thread)
  public static class Window {
    public long operations;
    private long last;

    @Setup(Level.Iteration)
    public void start(VirtualThreadBenchmark b) {
      operations = 0;
      last = b.completed.sum();
    }
  }

  /** {@code Thread.ofVirtual().factory()}, looked up at run time: the bench compiles at 17. */
  static ThreadFactory virtualThreads() {
    try {
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      Class<?> builder = Class.forName("java.lang.Thread$Builder");
      Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
      MethodHandle make =
          lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual));
      MethodHandle factory =
          lookup.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class));
      return (ThreadFactory) factory.invoke(make.invoke());
    } catch (ReflectiveOperationException | UnsupportedOperationException e) {
      throw new IllegalStateException(
          "virtual threads need Java 21 or later, and this fork runs Java "
              + Runtime.version()
              + " ("
              + System.getProperty("java.home")
              + "): give JMH -jvm /usr/lib/jvm/temurin-25-jdk-amd64/bin/java (bench/run-async.sh"
              + " does)",
          e);
    } catch (Throwable e) {
      throw new IllegalStateException("Thread.ofVirtual().factory() failed", e);
    }
  }
}
