package dev.mooncake.jcache.bench;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Gets that found nothing and operations that failed, counted on whatever thread sees them (a
 * completion's, a worker's) and reported per iteration by {@link Counts}, as {@link
 * CacheBenchmark}'s are: not fatal, shown next to the throughput.
 */
@State(Scope.Benchmark)
public class Tally {
  final LongAdder misses = new LongAdder();
  final LongAdder errors = new LongAdder();
  private final AtomicBoolean told = new AtomicBoolean();

  /** Counts a failed operation; the trial's first failure is printed, so the count has a cause. */
  void failed(Throwable e) {
    errors.increment();
    if (told.compareAndSet(false, true)) {
      System.err.println("# first failed operation of this trial (later ones only counted): " + e);
    }
  }

  /** JMH's per-iteration view of the tally (aux counters of the benchmark thread). */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Counts {
    public long misses;
    public long errors;
    private long missesBefore;
    private long errorsBefore;

    @Setup(Level.Iteration)
    public void start(Tally tally) {
      missesBefore = tally.misses.sum();
      errorsBefore = tally.errors.sum();
    }

    // JMH reads the counters after the iteration's tear-down (AsyncBenchmark's drain included)
    @TearDown(Level.Iteration)
    public void stop(Tally tally) {
      misses = tally.misses.sum() - missesBefore;
      errors = tally.errors.sum() - errorsBefore;
    }
  }
}
