package dev.mooncake.jcache.internal.backend;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A {@link BufferPool}'s wait for space ends at the operation's {@link Deadline}, not at the pool's
 * own bound: the deadline runs on an injected {@link FakeTicker}, the pool's bound (a minute) on
 * the real clock, so only the deadline can end the wait within the checks' 5 s.
 */
public final class PoolDeadlineChecks {
  private static final Duration BUDGET = Duration.ofMillis(3_000);

  private PoolDeadlineChecks() {}

  /**
   * With the pool full for {@code wanted} bytes: an acquire waits while its deadline has time left;
   * once the ticker passes the deadline, a release that makes no room for it ({@code
   * wakeWithoutRoom}) wakes it and it fails, naming the operation's deadline.
   */
  public static void aWaitEndsAtTheOperationsDeadline(
      BufferPool pool, BooleanSupplier waiting, int wanted, Runnable wakeWithoutRoom)
      throws Exception {
    FakeTicker ticker = new FakeTicker();
    Deadline operation = Deadline.after(BUDGET, ticker);
    CompletableFuture<StoreException> waiter =
        CompletableFuture.supplyAsync(
            () -> assertThrows(StoreException.class, () -> pool.acquire(wanted, operation)));
    long guard = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!waiting.getAsBoolean()) {
      assertTrue(System.nanoTime() < guard, "the acquire never waited");
      Thread.onSpinWait();
    }
    assertFalse(waiter.isDone(), "gave up with time left");
    ticker.advance(BUDGET);
    wakeWithoutRoom.run();
    StoreException e = waiter.get(5, TimeUnit.SECONDS); // the pool's own bound is a minute
    assertTrue(e.getMessage().contains("operation_timeout_ms 3000, 3000 ms spent"), e.getMessage());
  }

  /** With the pool full for {@code wanted} bytes, an operation with no time left does not wait. */
  public static void noTimeLeftNoWait(BufferPool pool, int wanted) {
    FakeTicker ticker = new FakeTicker();
    Deadline operation = Deadline.after(BUDGET, ticker);
    ticker.advance(BUDGET);
    long start = System.nanoTime();
    StoreException e = assertThrows(StoreException.class, () -> pool.acquire(wanted, operation));
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(waited < 5_000, "waited " + waited + " ms with no time left");
    assertTrue(e.getMessage().contains("operation_timeout_ms 3000"), e.getMessage());
  }
}
