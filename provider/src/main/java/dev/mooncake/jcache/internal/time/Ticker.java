package dev.mooncake.jcache.internal.time;

import java.util.Properties;
import java.util.function.LongSupplier;

/**
 * The provider's one source of time, in the spirit of Caffeine's {@code Ticker}: expiry times, the
 * expiry sweeper, the in-process store's read leases and the entry layer's retry deadlines all read
 * it, so a test can inject a fake one and advance time instead of sleeping.
 *
 * <p>Inject one through the provider properties of {@code getCacheManager(uri, loader,
 * properties)}: {@code properties.put(Ticker.PROPERTY, ticker)}.
 */
public interface Ticker {
  /** The provider property (an object, not a string) that carries a ticker. */
  String PROPERTY = "mooncake.jcache.ticker";

  /**
   * Wall-clock time in epoch milliseconds: what expiry times stored in values are measured in (they
   * are shared with other JVMs, so they cannot be monotonic nanos).
   */
  long epochMillis();

  /** Monotonic time in nanoseconds, for durations (leases, timeouts, back-off). */
  long nanos();

  /** The system clock. */
  static Ticker system() {
    return NanoClock.SYSTEM;
  }

  /** Wall-clock millis from the system, monotonic nanos from {@code nanos} (a test's clock). */
  static Ticker ofNanos(LongSupplier nanos) {
    return new NanoClock(nanos);
  }

  /** The ticker in {@code properties} under {@link #PROPERTY}, else the system clock. */
  static Ticker from(Properties properties) {
    Object given = properties == null ? null : properties.get(PROPERTY);
    if (given == null) {
      return system();
    }
    if (given instanceof Ticker ticker) {
      return ticker;
    }
    throw new IllegalArgumentException(
        "provider property "
            + PROPERTY
            + " must be a "
            + Ticker.class.getName()
            + ", not "
            + given.getClass().getName());
  }

  /** {@link System#currentTimeMillis()} and a monotonic clock of the caller's choosing. */
  record NanoClock(LongSupplier clock) implements Ticker {
    /** {@link System#currentTimeMillis()} and {@link System#nanoTime()}. */
    static final Ticker SYSTEM = new NanoClock(System::nanoTime);

    @Override
    public long epochMillis() {
      return System.currentTimeMillis();
    }

    @Override
    public long nanos() {
      return clock.getAsLong();
    }
  }
}
