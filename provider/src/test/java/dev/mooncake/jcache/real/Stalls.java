package dev.mooncake.jcache.real;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How late this JVM's threads get the CPU: a daemon thread sleeps 10 ms again and again and keeps
 * the longest oversleep. On a loaded machine a call that ends in time can still return late by
 * about that much; {@link RealDeadlinesTest} prints it beside its table to tell the two apart.
 */
final class Stalls {
  private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final AtomicLong longestNanos = new AtomicLong();
  private final Thread thread;
  private volatile boolean stop;

  Stalls() {
    thread = new Thread(this::run, "scheduling-stalls");
    thread.setDaemon(true);
  }

  Stalls start() {
    thread.start();
    return this;
  }

  private void run() {
    while (!stop) {
      long start = System.nanoTime();
      try {
        TimeUnit.NANOSECONDS.sleep(TICK_NANOS);
      } catch (InterruptedException e) {
        return;
      }
      long late = System.nanoTime() - start - TICK_NANOS;
      longestNanos.accumulateAndGet(late, Math::max);
    }
  }

  /** Stops measuring; the longest oversleep seen, in ms. */
  long stop() {
    stop = true;
    return TimeUnit.NANOSECONDS.toMillis(longestNanos.get());
  }

  /** The machine's 1-minute load average (/proc/loadavg), or "?" where there is none. */
  static String loadAverage() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
    } catch (java.io.IOException | RuntimeException e) {
      return "?";
    }
  }
}
