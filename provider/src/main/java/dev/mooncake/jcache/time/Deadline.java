package dev.mooncake.jcache.time;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * When one JCache operation must have ended, passed explicitly to every lock, entry and store call
 * it makes (as RocksJava's {@code ReadOptions.setDeadline}), so that a lock acquisition, its store
 * calls and the retries after it share one budget instead of each taking a fresh {@code
 * operation_timeout_ms}. Immutable; read on the {@link Ticker} it was made from, so a test with a
 * fake ticker moves it by advancing the ticker.
 */
public final class Deadline {
  private static final Deadline NONE = new Deadline(null, 0, Long.MAX_VALUE);

  private final Ticker ticker;
  private final long startNanos;
  private final long budgetNanos;

  private Deadline(Ticker ticker, long startNanos, long budgetNanos) {
    this.ticker = ticker;
    this.startNanos = startNanos;
    this.budgetNanos = budgetNanos;
  }

  /** A deadline {@code budget} from now on {@code ticker} (at least 1 ns). */
  public static Deadline after(Duration budget, Ticker ticker) {
    return afterNanos(budget.toNanos(), ticker);
  }

  /** A deadline {@code budgetNanos} from now on {@code ticker} (at least 1 ns). */
  public static Deadline afterNanos(long budgetNanos, Ticker ticker) {
    return new Deadline(ticker, ticker.nanos(), Math.max(1, budgetNanos));
  }

  /**
   * No operation's deadline: a caller outside any JCache operation (tests, tools). A store then
   * bounds each call by its own {@code operation_timeout_ms}, as before there was one deadline.
   */
  public static Deadline none() {
    return NONE;
  }

  /** Whether this is {@link #none()}. */
  public boolean isNone() {
    return ticker == null;
  }

  /** Nanoseconds left, 0 once expired; {@link Long#MAX_VALUE} for {@link #none()}. */
  public long remainingNanos() {
    if (ticker == null) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, budgetNanos - (ticker.nanos() - startNanos));
  }

  /** {@code nanos}, or less when this deadline comes first. */
  public long cap(long nanos) {
    return Math.min(nanos, remainingNanos());
  }

  /** Whether no time is left. */
  public boolean expired() {
    return remainingNanos() == 0;
  }

  /** The whole budget in ms ({@code operation_timeout_ms}); {@link Long#MAX_VALUE} for none. */
  public long budgetMillis() {
    return ticker == null ? Long.MAX_VALUE : TimeUnit.NANOSECONDS.toMillis(budgetNanos);
  }

  /** How long the operation has run, in ms (0 for none). */
  public long spentMillis() {
    return ticker == null ? 0 : TimeUnit.NANOSECONDS.toMillis(ticker.nanos() - startNanos);
  }

  /** For messages: {@code operation_timeout_ms 3000, 3012 ms spent}. */
  public String describe() {
    return ticker == null
        ? "no operation deadline"
        : "operation_timeout_ms " + budgetMillis() + ", " + spentMillis() + " ms spent";
  }

  @Override
  public String toString() {
    return describe();
  }
}
