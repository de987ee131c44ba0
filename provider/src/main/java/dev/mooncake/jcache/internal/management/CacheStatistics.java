package dev.mooncake.jcache.internal.management;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The cache's statistics, as the spec defines them. Counting is cheap (striped adders) and
 * switchable at run time; while disabled nothing is recorded.
 */
public final class CacheStatistics implements MooncakeCacheStatisticsMXBean {
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder puts = new LongAdder();
  private final LongAdder removals = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder getTimeNanos = new LongAdder();
  private final LongAdder putTimeNanos = new LongAdder();
  private final LongAdder removeTimeNanos = new LongAdder();
  private volatile boolean enabled;
  private volatile LongSupplier integrityMismatches = () -> 0;
  private volatile LongSupplier unreachableReads = () -> 0;
  private volatile long integrityMismatchesCleared;
  private volatile long unreachableReadsCleared;

  /** Where the store-side counters come from (the cache's entry storage counts them). */
  public void observeReads(LongSupplier integrityMismatches, LongSupplier unreachableReads) {
    this.integrityMismatches = integrityMismatches;
    this.unreachableReads = unreachableReads;
  }

  @Override
  public long getIntegrityMismatches() {
    return integrityMismatches.getAsLong() - integrityMismatchesCleared;
  }

  @Override
  public long getUnreachableReads() {
    return unreachableReads.getAsLong() - unreachableReadsCleared;
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /** A start time for the timings, or 0 when statistics are off (saves the clock read). */
  public long start() {
    return enabled ? System.nanoTime() : 0L;
  }

  /** One lookup: a hit or a miss. */
  public void lookup(boolean hit) {
    if (hit) {
      hits(1);
    } else {
      misses(1);
    }
  }

  /** One put that started at {@code start}. */
  public void put(long start) {
    puts(1);
    putTime(start);
  }

  /** One removal that started at {@code start}. */
  public void removal(long start) {
    removals(1);
    removeTime(start);
  }

  public void hits(long n) {
    count(hits, n);
  }

  public void misses(long n) {
    count(misses, n);
  }

  public void puts(long n) {
    count(puts, n);
  }

  public void removals(long n) {
    count(removals, n);
  }

  public void evictions(long n) {
    count(evictions, n);
  }

  public void getTime(long start) {
    time(getTimeNanos, start);
  }

  public void putTime(long start) {
    time(putTimeNanos, start);
  }

  public void removeTime(long start) {
    time(removeTimeNanos, start);
  }

  /** Adds {@code n} (when positive) while statistics are on. */
  private void count(LongAdder counter, long n) {
    if (enabled && n > 0) {
      counter.add(n);
    }
  }

  /** Adds the time since {@code start} while statistics are on (and were at the start). */
  private void time(LongAdder total, long start) {
    if (enabled && start != 0L) {
      total.add(System.nanoTime() - start);
    }
  }

  @Override
  public void clear() {
    for (LongAdder adder :
        new LongAdder[] {
          hits, misses, puts, removals, evictions, getTimeNanos, putTimeNanos, removeTimeNanos
        }) {
      adder.reset();
    }
    integrityMismatchesCleared = integrityMismatches.getAsLong();
    unreachableReadsCleared = unreachableReads.getAsLong();
  }

  @Override
  public long getCacheHits() {
    return hits.sum();
  }

  @Override
  public float getCacheHitPercentage() {
    long h = getCacheHits();
    long total = h + getCacheMisses();
    return total == 0 ? 0f : 100f * h / total;
  }

  @Override
  public long getCacheMisses() {
    return misses.sum();
  }

  @Override
  public float getCacheMissPercentage() {
    long m = getCacheMisses();
    long total = m + getCacheHits();
    return total == 0 ? 0f : 100f * m / total;
  }

  @Override
  public long getCacheGets() {
    return getCacheHits() + getCacheMisses();
  }

  @Override
  public long getCachePuts() {
    return puts.sum();
  }

  @Override
  public long getCacheRemovals() {
    return removals.sum();
  }

  @Override
  public long getCacheEvictions() {
    return evictions.sum();
  }

  @Override
  public float getAverageGetTime() {
    return averageMicros(getTimeNanos.sum(), getCacheGets());
  }

  @Override
  public float getAveragePutTime() {
    return averageMicros(putTimeNanos.sum(), getCachePuts());
  }

  @Override
  public float getAverageRemoveTime() {
    return averageMicros(removeTimeNanos.sum(), getCacheRemovals());
  }

  private static float averageMicros(long nanos, long count) {
    return count == 0 ? 0f : (nanos / 1000f) / count;
  }
}
