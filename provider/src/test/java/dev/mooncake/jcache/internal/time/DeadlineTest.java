package dev.mooncake.jcache.internal.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import org.junit.jupiter.api.Test;

/** The operation deadline: read on its ticker, immutable, shared by every call of an operation. */
class DeadlineTest {
  private final FakeTicker ticker = new FakeTicker();

  @Test
  void itShrinksAsItsTickerMovesAndExpiresAtItsBudget() {
    Deadline deadline = Deadline.after(Duration.ofMillis(3_000), ticker);
    assertEquals(3_000_000_000L, deadline.remainingNanos());
    ticker.advanceMillis(2_000);
    assertEquals(1_000_000_000L, deadline.remainingNanos());
    assertEquals(1_000_000_000L, deadline.cap(Long.MAX_VALUE), "the rest, not a fresh timeout");
    assertEquals(5, deadline.cap(5), "a shorter bound stays");
    assertFalse(deadline.expired());
    ticker.advanceMillis(1_500);
    assertEquals(0, deadline.remainingNanos(), "never negative");
    assertTrue(deadline.expired());
    assertEquals(
        "operation_timeout_ms 3000, 3500 ms spent",
        deadline.describe(),
        "messages name the operation's bound and what was spent");
  }

  @Test
  void noneNeverExpiresAndLeavesTheCallersOwnBound() {
    Deadline none = Deadline.none();
    ticker.advanceMillis(1_000_000);
    assertTrue(none.isNone());
    assertFalse(none.expired());
    assertEquals(1234, none.cap(1234));
  }

  @Test
  void aZeroBudgetStillGivesOneNanosecond() {
    Deadline deadline = Deadline.afterNanos(0, ticker);
    assertEquals(1, deadline.remainingNanos());
  }

  @Test
  void earlierIsTheNearerOfTwoBoundsReadAgainAtEveryUse() {
    FakeTicker other = new FakeTicker();
    Deadline operation = Deadline.after(Duration.ofSeconds(3), ticker);
    Deadline poolWait = Deadline.after(Duration.ofSeconds(2), other);
    Deadline both = operation.earlier(poolWait);
    assertEquals(2_000_000_000L, both.remainingNanos(), "the pool's wait is nearer");
    ticker.advanceMillis(2_500); // only the operation's ticker moves
    assertEquals(500_000_000L, both.remainingNanos(), "now the operation's deadline is nearer");
    assertEquals("operation_timeout_ms 3000, 2500 ms spent", both.describe());
    other.advanceMillis(2_000);
    assertEquals(0, both.remainingNanos());
    assertTrue(both.expired());
    assertFalse(operation.expired(), "combining leaves the two bounds as they were");
  }

  @Test
  void earlierOfNoneIsTheOtherBound() {
    Deadline bound = Deadline.after(Duration.ofSeconds(1), ticker);
    assertSame(bound, Deadline.none().earlier(bound));
    assertSame(bound, bound.earlier(Deadline.none()));
    assertTrue(Deadline.none().earlier(Deadline.none()).isNone());
    Deadline three =
        Deadline.after(Duration.ofSeconds(5), ticker)
            .earlier(bound)
            .earlier(Deadline.after(Duration.ofSeconds(4), ticker));
    assertEquals(1_000_000_000L, three.remainingNanos(), "the nearest of three");
  }

  @Test
  void remainingInAUnitRoundsDown() {
    Deadline deadline = Deadline.after(Duration.ofMillis(1_500), ticker);
    assertEquals(1, deadline.remaining(TimeUnit.SECONDS));
    assertEquals(1_500, deadline.remaining(TimeUnit.MILLISECONDS));
    ticker.advance(Duration.ofNanos(1));
    assertEquals(1_499, deadline.remaining(TimeUnit.MILLISECONDS));
    assertEquals(Long.MAX_VALUE, Deadline.none().remaining(TimeUnit.MILLISECONDS));
  }

  @Test
  void awaitingAConditionWaitsTheRestAndNotOncePassed() throws InterruptedException {
    RecordingCondition condition = new RecordingCondition();
    Deadline deadline = Deadline.after(Duration.ofSeconds(3), ticker);
    ticker.advanceMillis(1_000);
    assertTrue(deadline.await(condition));
    assertEquals(List.of(2_000_000_000L), condition.waits, "only what is left");
    Deadline nearer = deadline.earlier(Deadline.after(Duration.ofMillis(500), ticker));
    assertTrue(nearer.await(condition));
    assertEquals(500_000_000L, condition.waits.get(1), "the nearer bound");
    ticker.advanceMillis(2_000);
    assertFalse(deadline.await(condition), "passed: false");
    assertEquals(2, condition.waits.size(), "and no wait");
  }

  @Test
  void waitingOnAMonitorNeedsItHeldAndNotOncePassed() throws InterruptedException {
    Object monitor = new Object();
    Deadline deadline = Deadline.afterNanos(1, ticker); // the fake ticker keeps 1 ns left
    assertThrows(IllegalMonitorStateException.class, () -> deadline.waitOn(monitor));
    synchronized (monitor) {
      assertTrue(deadline.waitOn(monitor), "waited (1 ns)");
      ticker.advance(Duration.ofNanos(1));
      assertFalse(deadline.waitOn(monitor), "passed: false without waiting");
    }
  }

  @Test
  void aLatchAQueueAFutureAndAnExecutorAreAwaitedUntilTheDeadline() throws Exception {
    Deadline passed = Deadline.afterNanos(1, ticker);
    ticker.advance(Duration.ofNanos(1));
    CountDownLatch latch = new CountDownLatch(1);
    assertFalse(passed.await(latch));
    latch.countDown();
    assertTrue(passed.await(latch), "looked at once more although passed");

    BlockingQueue<String> queue = new ArrayBlockingQueue<>(1);
    assertNull(passed.poll(queue));
    queue.add("head");
    assertEquals("head", Deadline.none().poll(queue));

    CompletableFuture<String> future = new CompletableFuture<>();
    assertThrows(TimeoutException.class, () -> passed.get(future));
    future.complete("value");
    assertEquals("value", passed.get(future));

    ExecutorService executor = Executors.newSingleThreadExecutor();
    CountDownLatch release = new CountDownLatch(1);
    executor.execute(
        () -> {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    executor.shutdown();
    assertFalse(passed.awaitTermination(executor), "still running, deadline passed");
    release.countDown();
    assertTrue(Deadline.none().awaitTermination(executor));
  }

  @Test
  void retryOnAsksAgainAfterEachWakeUpUntilAnAnswerOrTheDeadline() throws InterruptedException {
    RecordingCondition condition = new RecordingCondition();
    Deadline deadline = Deadline.after(Duration.ofSeconds(1), ticker);
    int[] asked = new int[1];
    String answer = deadline.retryOn(condition, () -> ++asked[0] == 3 ? "third" : null);
    assertEquals("third", answer);
    assertEquals(2, condition.waits.size(), "a wait between two tries");

    asked[0] = 0;
    condition.waits.clear();
    condition.onWait = () -> ticker.advanceMillis(400); // each wake-up comes 400 ms later
    assertNull(deadline.retryOn(condition, () -> ++asked[0] > 100 ? "never" : null));
    assertEquals(4, asked[0], "asked at 0, 400, 800 and 1200 ms: then the deadline had passed");
    assertEquals(List.of(1_000_000_000L, 600_000_000L, 200_000_000L), condition.waits);
  }

  @Test
  void awaitEachNamesTheFirstLateItemAndStopsWhenInterrupted() {
    Deadline deadline = Deadline.afterNanos(1, ticker);
    CountDownLatch done = new CountDownLatch(0);
    CountDownLatch stuck = new CountDownLatch(1);
    CountDownLatch later = new CountDownLatch(1);
    assertNull(deadline.awaitEach(List.of(done, done), latch -> latch), "all finished");
    ticker.advance(Duration.ofNanos(1));
    assertSame(stuck, deadline.awaitEach(List.of(done, stuck, later), latch -> latch));
    Thread.currentThread().interrupt();
    try {
      assertNull(Deadline.none().awaitEach(List.of(stuck), latch -> latch), "stopped: null");
      assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept");
    } finally {
      Thread.interrupted();
    }
  }

  /** Records each wait instead of waiting. */
  private static final class RecordingCondition implements Condition {
    final List<Long> waits = new ArrayList<>();
    Runnable onWait = () -> {};

    @Override
    public long awaitNanos(long nanos) {
      waits.add(nanos);
      onWait.run();
      return 0;
    }

    @Override
    public void await() {
      throw new AssertionError("unbounded wait");
    }

    @Override
    public void awaitUninterruptibly() {
      throw new AssertionError("unbounded wait");
    }

    @Override
    public boolean await(long time, TimeUnit unit) {
      throw new AssertionError("use awaitNanos");
    }

    @Override
    public boolean awaitUntil(Date deadline) {
      throw new AssertionError("use awaitNanos");
    }

    @Override
    public void signal() {}

    @Override
    public void signalAll() {}
  }
}
