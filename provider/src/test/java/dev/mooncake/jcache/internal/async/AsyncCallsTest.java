package dev.mooncake.jcache.internal.async;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.calls.CallTimeoutException;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.FakeTicker;
import dev.mooncake.jcache.testing.Latches;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link AsyncCalls} alone, on a plain pool and a fake ticker: its bound, its order per key, its
 * deadlines, cancel, and its end. Held operations wait on a latch, never on sleeps.
 */
class AsyncCallsTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(4);
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch heldStarted = new CountDownLatch(1);
  private final FakeTicker ticker = new FakeTicker();
  private final List<AsyncCalls> opened = new ArrayList<>();

  /** Every operation handed to a thread, in order. */
  private final List<Runnable> handed = new CopyOnWriteArrayList<>();

  /** Operations whose body ran, by name, in the order they started. */
  private final List<String> ran = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    release.countDown();
    pool.shutdownNow();
    opened.forEach(AsyncCalls::close);
  }

  private AsyncCalls calls(int maxInFlight, Duration timeout, boolean onWorker) {
    return calls(maxInFlight, timeout, onWorker, pool::execute);
  }

  private AsyncCalls calls(
      int maxInFlight, Duration timeout, boolean onWorker, Consumer<Runnable> threads) {
    AsyncCalls calls =
        new AsyncCalls(
            maxInFlight,
            timeout,
            ticker,
            work -> {
              handed.add(work);
              threads.accept(work);
            },
            () -> onWorker,
            "test-async-timer",
            "m",
            () -> false);
    opened.add(calls);
    return calls;
  }

  private Object held(Deadline deadline) {
    heldStarted.countDown();
    Latches.await(release, "the test released the call");
    return "held";
  }

  /** A body that records that it ran. */
  private Object records(String name) {
    ran.add(name);
    return name;
  }

  /**
   * The order map empties: a stage completes just before its keys are let go, so a test that saw
   * the last one complete waits for that (a condition, bounded).
   */
  private static void awaitNoOrderedKeys(AsyncCalls.Scope scope) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Latches.BOUND_SECONDS);
    while (scope.orderedKeys() != 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(scope.orderedKeys() + " keys left in the order map");
      }
      Thread.onSpinWait();
    }
  }

  private static Throwable failure(CompletableFuture<?> stage) throws Exception {
    ExecutionException failed =
        assertThrows(
            ExecutionException.class, () -> stage.get(Latches.BOUND_SECONDS, TimeUnit.SECONDS));
    return failed.getCause();
  }

  @Test
  void aProviderThreadIsRefusedAtOnceEvenWithALongWait() {
    AsyncCalls calls = calls(1, Duration.ofHours(1), true);
    AsyncCalls.Scope scope = calls.scope("c");
    CompletableFuture<Object> first = scope.submit("getAsync", List.of("a"), this::held);
    AsyncOverloadException refused =
        assertThrows(
            AsyncOverloadException.class, () -> scope.submit("getAsync", List.of("b"), d -> "b"));
    assertTrue(refused.getMessage().contains("provider thread"), refused.getMessage());
    release.countDown();
    assertEquals("held", first.join());
    assertEquals(0, calls.inFlight());
  }

  @Test
  void overlappingBatchesNeverWaitForEachOther() throws Exception {
    AsyncCalls calls = calls(1000, Duration.ofSeconds(5), false);
    AsyncCalls.Scope scope = calls.scope("c");
    CompletableFuture<?> head = scope.submit("putAsync", List.of("a"), this::held);
    CompletableFuture<?>[] batches = new CompletableFuture<?>[200];
    for (int i = 0; i < batches.length; i++) {
      List<String> keys = i % 2 == 0 ? List.of("a", "b", "c") : List.of("c", "b", "a");
      batches[i] = scope.submit("putAllAsync", keys, d -> "ok");
    }
    release.countDown();
    CompletableFuture.allOf(batches).get(Latches.BOUND_SECONDS, TimeUnit.SECONDS);
    head.join();
    assertEquals(0, scope.pending());
    assertEquals(0, calls.inFlight());
  }

  @Test
  void aClosedPoolFailsTheStageInsteadOfLeavingItHanging() {
    AsyncCalls calls =
        calls(
            4,
            Duration.ofSeconds(1),
            false,
            r -> {
              throw new IllegalStateException("the lanes of m are closed");
            });
    CompletableFuture<Object> stage = calls.scope("c").submit("getAsync", List.of("a"), d -> 1);
    assertTrue(stage.isCompletedExceptionally());
    assertEquals(0, calls.inFlight());
  }

  // ---------------------------------------------------------------------------------------------
  // Deadlines

  @Test
  void anOperationQueuedBehindItsKeyFailsAtItsDeadlineWithoutRunning() throws Exception {
    AsyncCalls calls = calls(8, Duration.ofMillis(200), false);
    AsyncCalls.Scope scope = calls.scope("c");
    CompletableFuture<Object> running = scope.submit("putAsync", List.of("k"), this::held);
    CompletableFuture<Object> queued =
        scope.submit("putAsync", List.of("k"), d -> records("queued"));
    Latches.await(heldStarted, "the held operation started"); // before its deadline passes
    ticker.advanceMillis(200);

    // The timer fails it while the operation ahead still runs: it does not wait for its turn.
    Throwable timedOut = failure(queued);
    assertInstanceOf(CallTimeoutException.class, timedOut);
    String message = timedOut.getMessage();
    assertTrue(message.startsWith("putAsync on cache 'c': not started"), message);
    assertTrue(message.contains("earlier operations on its keys"), message);
    assertTrue(message.contains("operation_timeout_ms 200, 200 ms spent"), message);
    assertFalse(running.isDone(), "the operation ahead is still running");
    assertEquals(1, calls.inFlight(), "the expired operation gave its room back");
    assertEquals(1, scope.pending());

    release.countDown();
    assertEquals("held", running.get(Latches.BOUND_SECONDS, TimeUnit.SECONDS));
    assertEquals(List.of(), ran, "the expired operation never ran");
    assertEquals(1, handed.size(), "nor was it handed to a thread");
    assertEquals(0, calls.inFlight());
    awaitNoOrderedKeys(scope);
  }

  @Test
  void anOperationWaitingForAThreadFailsAtItsDeadlineWithoutHoldingOne() throws Exception {
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      AsyncCalls calls = calls(8, Duration.ofMillis(200), false, one::execute);
      AsyncCalls.Scope scope = calls.scope("c");
      CompletableFuture<Object> running = scope.submit("putAsync", List.of("a"), this::held);
      CompletableFuture<Object> queued =
          scope.submit("getAsync", List.of("b"), d -> records("queued"));
      Latches.await(heldStarted, "the held operation started"); // before its deadline passes
      ticker.advanceMillis(250);

      Throwable timedOut = failure(queued);
      assertInstanceOf(CallTimeoutException.class, timedOut);
      assertTrue(
          timedOut.getMessage().contains("a thread of the async pool"), timedOut.getMessage());
      assertTrue(
          timedOut.getMessage().contains("operation_timeout_ms 200, 250 ms spent"),
          timedOut.getMessage());
      assertFalse(running.isDone(), "the only thread is still busy");
      assertEquals(1, calls.inFlight());

      release.countDown();
      running.get(Latches.BOUND_SECONDS, TimeUnit.SECONDS);
      // The thread reaches the expired operation after the held one: it is skipped, not run.
      one.submit(() -> {}).get(Latches.BOUND_SECONDS, TimeUnit.SECONDS);
      assertEquals(List.of(), ran);
      assertEquals(0, calls.inFlight());
    } finally {
      one.shutdownNow();
    }
  }

  @Test
  void anOperationWhoseDeadlinePassedIsFailedAsItLeavesItsQueue() throws Exception {
    // An hour: the timer stays out of it; the check at dequeue reads the (fake) ticker.
    AsyncCalls calls = calls(8, Duration.ofHours(1), false);
    AsyncCalls.Scope scope = calls.scope("c");
    CompletableFuture<Object> running = scope.submit("putAsync", List.of("k"), this::held);
    CompletableFuture<Object> queued =
        scope.submit("removeAsync", List.of("k"), d -> records("queued"));
    Latches.await(heldStarted, "the held operation started"); // before its deadline passes
    ticker.advance(Duration.ofHours(1));
    assertFalse(queued.isDone());
    release.countDown();

    Throwable timedOut = failure(queued);
    assertInstanceOf(CallTimeoutException.class, timedOut);
    assertTrue(
        timedOut.getMessage().contains("operation_timeout_ms 3600000, 3600000 ms spent"),
        timedOut.getMessage());
    assertTrue(running.isDone());
    assertEquals(List.of(), ran);
    assertEquals(0, calls.inFlight());
    assertEquals(0, scope.pending());
  }

  @Test
  void aRunningOperationGetsWhatIsLeftOfTheDeadlineFromItsIssue() throws Exception {
    AsyncCalls calls = calls(8, Duration.ofSeconds(1), false);
    AsyncCalls.Scope scope = calls.scope("c");
    CompletableFuture<Object> running = scope.submit("putAsync", List.of("k"), this::held);
    AtomicReference<Deadline> given = new AtomicReference<>();
    CompletableFuture<Object> queued =
        scope.submit(
            "getAsync",
            List.of("k"),
            d -> {
              given.set(d);
              return "ran";
            });
    Latches.await(heldStarted, "the held operation started"); // before its deadline passes
    ticker.advanceMillis(400); // spent waiting behind the running one
    release.countDown();

    assertEquals("ran", queued.get(Latches.BOUND_SECONDS, TimeUnit.SECONDS));
    running.join();
    Deadline deadline = given.get();
    assertNotNull(deadline);
    assertEquals(1000, deadline.budgetMillis());
    assertEquals(400, deadline.spentMillis(), "counted from the issue, not from the start");
    assertEquals(TimeUnit.MILLISECONDS.toNanos(600), deadline.remainingNanos());
  }

  // ---------------------------------------------------------------------------------------------
  // Cancel

  @Test
  void cancellingAnOperationThatHasNotStartedWithdrawsItAndKeepsTheKeysOrder() throws Exception {
    AsyncCalls calls = calls(8, Duration.ofHours(1), false);
    AsyncCalls.Scope scope = calls.scope("c");
    CompletableFuture<Object> running =
        scope.submit(
            "putAsync",
            List.of("k"),
            d -> {
              held(d);
              return records("first");
            });
    CompletableFuture<Object> cancelled =
        scope.submit("putAsync", List.of("k"), d -> records("cancelled"));
    CompletableFuture<Object> third = scope.submit("putAsync", List.of("k"), d -> records("third"));
    assertEquals(3, calls.inFlight());

    // One with an operation queued behind it...
    assertTrue(cancelled.cancel(false));
    assertTrue(cancelled.isCancelled());
    assertThrows(CancellationException.class, cancelled::join);
    assertEquals(2, calls.inFlight(), "its room is back at once");
    assertEquals(2, scope.pending());
    // ...and one that is the key's last when withdrawn.
    CompletableFuture<Object> last = scope.submit("putAsync", List.of("k"), d -> records("x"));
    assertTrue(last.cancel(false));
    CompletableFuture<Object> after = scope.submit("getAsync", List.of("k"), d -> records("after"));

    // Those after them still wait for the running one: a withdrawn operation passes on its
    // predecessors' turn, not its own.
    assertEquals(1, handed.size(), "only the running operation was handed to a thread");
    assertFalse(third.isDone());
    assertFalse(after.isDone());

    release.countDown();
    assertEquals("after", after.get(Latches.BOUND_SECONDS, TimeUnit.SECONDS));
    assertTrue(running.isDone());
    assertTrue(third.isDone());
    assertEquals(List.of("first", "third", "after"), ran, "withdrawn operations never ran");
    assertEquals(0, calls.inFlight());
    assertEquals(0, scope.pending());
    awaitNoOrderedKeys(scope);
  }

  @Test
  void cancellingARunningOperationCancelsItsStageWhileItsWorkFinishes() throws Exception {
    AsyncCalls calls = calls(8, Duration.ofHours(1), false);
    AsyncCalls.Scope scope = calls.scope("c");
    CountDownLatch entered = new CountDownLatch(1);
    AtomicInteger finishedWork = new AtomicInteger();
    CompletableFuture<Object> running =
        scope.submit(
            "putAsync",
            List.of("k"),
            d -> {
              entered.countDown();
              held(d);
              finishedWork.incrementAndGet();
              return records("running");
            });
    Latches.await(entered, "the operation started");
    CompletableFuture<Object> next = scope.submit("getAsync", List.of("k"), d -> records("next"));

    assertTrue(running.cancel(true));
    assertTrue(running.isCancelled());
    assertEquals(2, calls.inFlight(), "a running operation keeps its room until its work ends");
    assertEquals(1, handed.size(), "the next one still waits for the running one's work");

    release.countDown();
    assertEquals("next", next.get(Latches.BOUND_SECONDS, TimeUnit.SECONDS));
    assertEquals(1, finishedWork.get(), "the cancelled operation's work ran to its end");
    assertEquals(List.of("running", "next"), ran);
    assertThrows(CancellationException.class, running::join);
    assertEquals(0, calls.inFlight());
  }

  @Test
  void cancellingADependentWithdrawsNothing() throws Exception {
    AsyncCalls calls = calls(8, Duration.ofHours(1), false);
    AsyncCalls.Scope scope = calls.scope("c");
    CompletableFuture<Object> running = scope.submit("putAsync", List.of("k"), this::held);
    CompletableFuture<Object> queued =
        scope.submit("putAsync", List.of("k"), d -> records("queued"));
    CompletableFuture<Object> dependent = queued.thenApply(v -> v);
    assertTrue(dependent.cancel(false));
    release.countDown();
    assertEquals("queued", queued.get(Latches.BOUND_SECONDS, TimeUnit.SECONDS));
    running.join();
    assertEquals(List.of("queued"), ran);
  }
}
