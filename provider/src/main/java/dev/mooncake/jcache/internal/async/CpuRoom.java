package dev.mooncake.jcache.internal.async;

import dev.mooncake.jcache.internal.time.Ticker;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Whether this process has CPU to spare for one more busy thread: over the last window of at least
 * {@link #WINDOW_NANOS}, the process used at most {@code cores - 1} cores' worth of CPU time, so a
 * whole core stood idle for it. With one core there is never room.
 *
 * <p>Why this rule: a second async read runner only pays when it can run while the first one's
 * thread is busy; docs/performance.md's profile of the async view on one core shows that core 100 %
 * busy, where a second runner only adds context switches. The answer is re-measured once per window
 * (a CPU-time read per window, not per call), read on the injected {@link Ticker}.
 */
public final class CpuRoom implements BooleanSupplier {
  /** The shortest window measured: long enough for the CPU-time counters' granularity. */
  static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final Ticker ticker;
  private final LongSupplier processCpuNanos;
  private final int cores;

  private long windowStart;
  private long cpuAtStart;
  private volatile boolean room;

  /**
   * @param processCpuNanos the CPU time this process used so far, in nanoseconds
   * @param cores the cores this process may run on
   */
  public CpuRoom(Ticker ticker, LongSupplier processCpuNanos, int cores) {
    if (cores <= 0) {
      throw new IllegalArgumentException("cores must be > 0, got " + cores);
    }
    this.ticker = ticker;
    this.processCpuNanos = processCpuNanos;
    this.cores = cores;
    this.windowStart = ticker.nanos();
    this.cpuAtStart = processCpuNanos.getAsLong();
  }

  /** On this JVM: its process CPU time, and the processors it may use. */
  public static CpuRoom ofThisProcess(Ticker ticker) {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    LongSupplier cpu =
        os instanceof com.sun.management.OperatingSystemMXBean hotspot
            ? hotspot::getProcessCpuTime
            : () -> Long.MAX_VALUE / 2; // unknown: as if busy, so never room
    return new CpuRoom(ticker, cpu, Runtime.getRuntime().availableProcessors());
  }

  @Override
  public boolean getAsBoolean() {
    long now = ticker.nanos();
    if (now - windowStart >= WINDOW_NANOS) {
      measure(now);
    }
    return room;
  }

  private synchronized void measure(long now) {
    long wall = now - windowStart;
    if (wall < WINDOW_NANOS) {
      return; // another thread measured meanwhile
    }
    long cpu = processCpuNanos.getAsLong();
    long used = cpu - cpuAtStart;
    // room when at least one whole core went unused: used <= (cores - 1) * wall
    room = cores > 1 && used >= 0 && used <= (cores - 1) * wall;
    windowStart = now;
    cpuAtStart = cpu;
  }
}
