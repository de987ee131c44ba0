package dev.mooncake.jcache.internal.time;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * When one JCache operation must have ended, passed explicitly to every lock, entry and store call
 * it makes (as RocksJava's {@code ReadOptions.setDeadline}), so that a lock acquisition, its store
 * calls and the retries after it share one budget instead of each taking a fresh {@code
 * operation_timeout_ms}. Immutable; read on the {@link Ticker} it was made from, so a test with a
 * fake ticker moves it by advancing the ticker.
 *
 * <p>It is also the one place where the provider does arithmetic on monotonic time against a bound:
 * a wait bounded both by its own timeout and by the operation's deadline is {@link #earlier} of the
 * two, and waits on a {@link Condition}, a monitor, a latch, a queue, a future or an executor's
 * termination go through it (DeadlineOnlyInTimeTest keeps it so).
 */
public final class Deadline {
  private static final Deadline NONE = new Deadline(null, 0, Long.MAX_VALUE, null);

  private final Ticker ticker;
  private final long startNanos;
  private final long budgetNanos;
  // A second bound this one also keeps (see earlier()), or null. The two may be read on different
  // tickers (an operation's on the injected one, a pool's wait on the system's), so which of them
  // comes first is decided at every read, not once.
  private final Deadline also;

  private Deadline(Ticker ticker, long startNanos, long budgetNanos, Deadline also) {
    this.ticker = ticker;
    this.startNanos = startNanos;
    this.budgetNanos = budgetNanos;
    this.also = also;
  }

  /** A deadline {@code budget} from now on {@code ticker} (at least 1 ns). */
  public static Deadline after(Duration budget, Ticker ticker) {
    return afterNanos(budget.toNanos(), ticker);
  }

  /** A deadline {@code budgetNanos} from now on {@code ticker} (at least 1 ns). */
  public static Deadline afterNanos(long budgetNanos, Ticker ticker) {
    return new Deadline(ticker, ticker.nanos(), Math.max(1, budgetNanos), null);
  }

  /**
   * Whichever of this deadline and {@code other} comes first, read again at every use: the bound of
   * a wait that must end by both (a pool's own timeout and the operation's deadline). {@link
   * #none()} is no bound, so {@code none().earlier(d)} is {@code d}. Messages ({@link #describe()})
   * name the bound that is the nearer one when they are made.
   */
  public Deadline earlier(Deadline other) {
    if (other.isNone() || other == this) {
      return this;
    }
    if (isNone()) {
      return other;
    }
    return new Deadline(
        ticker, startNanos, budgetNanos, also == null ? other : also.earlier(other));
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
    long own = ownRemainingNanos();
    return also == null ? own : Math.min(own, also.remainingNanos());
  }

  /** Time left in {@code unit}, rounded down; {@link Long#MAX_VALUE} for {@link #none()}. */
  public long remaining(TimeUnit unit) {
    long nanos = remainingNanos();
    return nanos == Long.MAX_VALUE ? Long.MAX_VALUE : unit.convert(nanos, TimeUnit.NANOSECONDS);
  }

  private long ownRemainingNanos() {
    if (ticker == null) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, budgetNanos - (ticker.nanos() - startNanos));
  }

  /** The single deadline (this one's own, or one in {@link #also}) that comes first now. */
  private Deadline nearest() {
    if (also == null) {
      return this;
    }
    Deadline other = also.nearest();
    return other.ownRemainingNanos() < ownRemainingNanos() ? other : this;
  }

  /** {@code nanos}, or less when this deadline comes first. */
  public long cap(long nanos) {
    return Math.min(nanos, remainingNanos());
  }

  /** Whether no time is left. */
  public boolean expired() {
    return remainingNanos() == 0;
  }

  /**
   * Waits on {@code condition} (whose lock the caller holds) until it is signalled or this deadline
   * passes; false, without waiting, once it has passed. As with {@link Condition#awaitNanos}, a
   * wake-up says nothing: the caller looks at its state again and calls this again.
   */
  public boolean await(Condition condition) throws InterruptedException {
    long left = remainingNanos();
    if (left == 0) {
      return false;
    }
    condition.awaitNanos(left);
    return true;
  }

  /**
   * The first non-null answer of {@code attempt}, asked now and again after each wake-up of {@code
   * condition} (whose lock the caller holds), or null once this deadline has passed without one:
   * the bounded wait of a pool for a released buffer.
   */
  public <T> T retryOn(Condition condition, Supplier<T> attempt) throws InterruptedException {
    while (true) {
      T answer = attempt.get();
      if (answer != null || !await(condition)) {
        return answer;
      }
    }
  }

  /** {@link #await(Condition)} for a monitor the caller holds ({@link Object#wait}). */
  public boolean waitOn(Object monitor) throws InterruptedException {
    long left = remainingNanos();
    if (left == 0) {
      return false;
    }
    TimeUnit.NANOSECONDS.timedWait(monitor, left);
    return true;
  }

  /** Whether {@code latch} reached zero by this deadline (looked at once more if it has passed). */
  public boolean await(CountDownLatch latch) throws InterruptedException {
    return latch.await(remainingNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Awaits each item's latch in turn, all within this deadline: null once every one reached zero,
   * else the first still waiting when the deadline passed. Interrupted, it stops waiting, keeps the
   * thread's interrupt status and answers null (nothing to report: the caller is being stopped).
   */
  public <T> T awaitEach(Iterable<T> items, Function<T, CountDownLatch> latch) {
    try {
      for (T item : items) {
        if (!await(latch.apply(item))) {
          return item;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return null;
  }

  /** Whether {@code executor} (shut down by the caller) terminated by this deadline. */
  public boolean awaitTermination(ExecutorService executor) throws InterruptedException {
    long left = remainingNanos();
    return left > 0 && executor.awaitTermination(left, TimeUnit.NANOSECONDS);
  }

  /** The head of {@code queue}, waiting for one until this deadline; null if none came. */
  public <T> T poll(BlockingQueue<T> queue) throws InterruptedException {
    return queue.poll(remainingNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * {@code future}'s value, waiting for it until this deadline ({@link Future#get(long,
   * TimeUnit)}).
   */
  public <T> T get(Future<T> future)
      throws InterruptedException, ExecutionException, TimeoutException {
    return future.get(remainingNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * The whole budget in ms ({@code operation_timeout_ms}) of the nearest bound; {@link
   * Long#MAX_VALUE} for none.
   */
  public long budgetMillis() {
    Deadline nearest = nearest();
    return nearest.ticker == null
        ? Long.MAX_VALUE
        : TimeUnit.NANOSECONDS.toMillis(nearest.budgetNanos);
  }

  /** How long the nearest bound has run, in ms (0 for none). */
  public long spentMillis() {
    Deadline nearest = nearest();
    return nearest.ticker == null
        ? 0
        : TimeUnit.NANOSECONDS.toMillis(nearest.ticker.nanos() - nearest.startNanos);
  }

  /** For messages: {@code operation_timeout_ms 3000, 3012 ms spent}. */
  public String describe() {
    return isNone()
        ? "no operation deadline"
        : "operation_timeout_ms " + budgetMillis() + ", " + spentMillis() + " ms spent";
  }

  @Override
  public String toString() {
    return describe();
  }
}
