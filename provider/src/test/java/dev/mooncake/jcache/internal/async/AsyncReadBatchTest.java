package dev.mooncake.jcache.internal.async;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.FakeTicker;
import dev.mooncake.jcache.testing.Latches;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Plain reads that are ready at the same time run as one batch ({@link
 * AsyncCalls.Scope#submitRead}). The provider's threads are a list the test runs by hand, so what
 * is queued when a thread starts is exact.
 */
class AsyncReadBatchTest {
  private final FakeTicker ticker = new FakeTicker();
  private final List<Runnable> queued = new CopyOnWriteArrayList<>();

  /** Counts down each time work is handed to a thread (the timer's check hands one over). */
  private volatile CountDownLatch handedOver = new CountDownLatch(1);

  private final AsyncCalls calls =
      new AsyncCalls(
          100,
          Duration.ofSeconds(5),
          ticker,
          work -> {
            queued.add(work);
            handedOver.countDown();
          },
          () -> false,
          "test-async-timer",
          "m",
          () -> false);
  private final AsyncCalls.Scope scope = calls.scope("c");

  /** Every batch the batch read was asked for, as its keys. */
  private final List<List<Object>> batches = new ArrayList<>();

  /** Keys read alone. */
  private final List<Object> alone = new ArrayList<>();

  private final AsyncCalls.BatchRead<String> values =
      (keys, deadline) -> {
        batches.add(List.copyOf(keys));
        List<AsyncCalls.Answer<String>> answers = new ArrayList<>();
        for (Object key : keys) {
          answers.add(
              key.equals("bad")
                  ? AsyncCalls.Answer.failed(new IllegalStateException("bad's own failure"))
                  : AsyncCalls.Answer.of("v-" + key));
        }
        return answers;
      };

  @AfterEach
  void close() {
    calls.close();
  }

  private CompletableFuture<String> read(String key) {
    return read(key, values);
  }

  private CompletableFuture<String> read(String key, AsyncCalls.BatchRead<String> batch) {
    return scope.submitRead("getAsync", key, aloneRead(key), batch);
  }

  private Function<Deadline, String> aloneRead(String key) {
    return deadline -> {
      alone.add(key);
      return "alone-" + key;
    };
  }

  private void runQueued() {
    while (!queued.isEmpty()) {
      queued.remove(0).run();
    }
  }

  @Test
  void readsQueuedTogetherRunAsOneBatchAndEachGetsItsOwnAnswer() throws Exception {
    CompletableFuture<String> a = read("a");
    CompletableFuture<String> b = read("b");
    CompletableFuture<String> c = read("c");
    assertEquals(1, queued.size(), "three reads ready at once wake one thread");
    runQueued();
    assertEquals(List.of(List.of("a", "b", "c")), batches);
    assertEquals(List.of(), alone, "nothing read alone");
    assertEquals("v-a", a.get());
    assertEquals("v-b", b.get());
    assertEquals("v-c", c.get());
    assertEquals(0, calls.inFlight(), "every read gave its room back");
    assertEquals(0, scope.pending());
  }

  @Test
  void aReadWithNothingQueuedBesideItRunsAlone() throws Exception {
    CompletableFuture<String> a = read("a");
    runQueued();
    CompletableFuture<String> b = read("b");
    runQueued();
    assertEquals(List.of(), batches);
    assertEquals(List.of("a", "b"), alone);
    assertEquals("alone-a", a.get());
    assertEquals("alone-b", b.get());
    assertEquals(0, scope.readyReads(), "a read that ran alone leaves no entry behind");
  }

  @Test
  void aReadBehindAnEarlierOperationOnItsKeyIsNotTakenAlong() throws Exception {
    CompletableFuture<Object> put = scope.submit("putAsync", List.of("a"), d -> "put");
    CompletableFuture<String> readA = read("a"); // waits for the put
    CompletableFuture<String> b = read("b");
    CompletableFuture<String> c = read("c");
    // the put's thread first: then a is free, and is queued after b and c
    queued.remove(0).run();
    assertEquals("put", put.get());
    runQueued();
    assertEquals(List.of(List.of("b", "c", "a")), batches, "a joined once its key was free");
    assertEquals("v-a", readA.get());
    assertEquals("v-b", b.get());
    assertEquals("v-c", c.get());
  }

  @Test
  void twoReadsOfOneKeyNeverShareABatch() throws Exception {
    CompletableFuture<String> first = read("a");
    CompletableFuture<String> second = read("a"); // ordered behind the first
    CompletableFuture<String> b = read("b");
    runQueued();
    assertEquals(List.of(List.of("a", "b")), batches);
    assertEquals(List.of("a"), alone, "the second read of a, once the first had completed");
    assertEquals("v-a", first.get());
    assertEquals("alone-a", second.get());
    assertEquals("v-b", b.get());
  }

  @Test
  void onlyReadsOfTheSameBatchReadAreBatched() throws Exception {
    AsyncCalls.BatchRead<String> other =
        (keys, deadline) -> {
          throw new AssertionError("the other batch read was asked for " + keys);
        };
    read("a");
    CompletableFuture<String> b = read("b", other);
    read("c");
    runQueued();
    assertEquals(List.of(List.of("a", "c")), batches);
    assertEquals("alone-b", b.get());
  }

  @Test
  void oneReadsOwnFailureFailsOnlyThatRead() throws Exception {
    CompletableFuture<String> a = read("a");
    CompletableFuture<String> bad = read("bad");
    runQueued();
    assertEquals("v-a", a.get());
    ExecutionException failure = assertThrows(ExecutionException.class, bad::get);
    assertInstanceOf(IllegalStateException.class, failure.getCause());
  }

  @Test
  void whenTheBatchReadFailsEachReadRunsAloneOnItsOwnDeadline() throws Exception {
    AsyncCalls.BatchRead<String> failing =
        (keys, deadline) -> {
          batches.add(List.copyOf(keys));
          throw new IllegalStateException("the store's batch read failed");
        };
    CompletableFuture<String> a = read("a", failing);
    CompletableFuture<String> b = read("b", failing);
    runQueued();
    assertEquals(1, batches.size());
    assertEquals(List.of("a", "b"), alone);
    assertEquals("alone-a", a.get());
    assertEquals("alone-b", b.get());
  }

  @Test
  void readsReadyDuringARoundTripGoTogetherInTheNextWithoutWakingAnotherThread() throws Exception {
    List<CompletableFuture<String>> later = new ArrayList<>();
    AsyncCalls.BatchRead<String> arriving =
        (keys, deadline) -> {
          if (later.isEmpty()) { // the first round trip: two more reads arrive meanwhile
            later.add(read("d", values));
            later.add(read("e", values));
            assertEquals(List.of(), queued, "the running runner will take them");
          }
          return values.read(keys, deadline);
        };
    CompletableFuture<String> a = read("a", arriving);
    CompletableFuture<String> b = read("b", arriving);
    assertEquals(1, queued.size());
    queued.remove(0).run();
    assertEquals(List.of(List.of("a", "b"), List.of("d", "e")), batches);
    assertEquals(List.of(), queued);
    assertEquals("v-a", a.get());
    assertEquals("v-b", b.get());
    assertEquals("v-d", later.get(0).get());
    assertEquals("v-e", later.get(1).get());
  }

  @Test
  void aRunnerStuckInItsRoundTripNoLongerHoldsTheNextReadsBack() throws Exception {
    bReadsWhileARunnerIsStuck(true, "a runner of its own for b");
  }

  @Test
  void aQueueLeftToARunnerThatThenStallsGetsARunnerFromTheTimer() throws Exception {
    bReadsWhileARunnerIsStuck(false, "the timer's check handing b a runner");
  }

  /**
   * a and a2 run as a batch on a thread of their own whose round trip stops until released; b is
   * issued from inside it, after the runner already counts as stuck ({@code stuckBeforeB}: the next
   * read starts a runner) or before (left to the runner, which then stalls: the timer's check
   * starts one). Either way b gets a runner ({@code how}) and reads while a's is still stuck.
   */
  private void bReadsWhileARunnerIsStuck(boolean stuckBeforeB, String how) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch bIssued = new CountDownLatch(1);
    List<CompletableFuture<String>> later = new CopyOnWriteArrayList<>();
    AsyncCalls.BatchRead<String> stuck =
        (keys, deadline) -> {
          if (stuckBeforeB) {
            ticker.advance(Duration.ofMillis(6)); // past READ_RUNNER_STALL_NANOS
          }
          later.add(read("b", values));
          bIssued.countDown();
          if (!stuckBeforeB) {
            assertEquals(List.of(), queued, "left to this runner: it is making progress");
            ticker.advance(Duration.ofMillis(6)); // then it stalls, and nothing else arrives
          }
          Latches.await(release, "the test released the stuck read");
          return values.read(keys, deadline);
        };
    CompletableFuture<String> a = read("a", stuck);
    read("a2", stuck); // two, so that they run as a batch
    handedOver = new CountDownLatch(1);
    Thread runner = new Thread(queued.remove(0), "stuck-runner");
    runner.start();
    Latches.await(handedOver, how);
    Latches.await(bIssued, "b issued");
    queued.remove(0).run(); // b's runner, while a's is still stuck
    assertEquals("alone-b", later.get(0).get());
    release.countDown();
    runner.join(TimeUnit.SECONDS.toMillis(Latches.BOUND_SECONDS));
    assertEquals("v-a", a.get());
  }

  @Test
  void readsBeyondOneBatchRunInTheNext() throws Exception {
    List<CompletableFuture<String>> reads = new ArrayList<>();
    for (int i = 0; i < AsyncCalls.MAX_BATCHED_READS + 3; i++) {
      reads.add(read("k" + i));
    }
    runQueued();
    assertEquals(2, batches.size());
    assertEquals(AsyncCalls.MAX_BATCHED_READS, batches.get(0).size());
    assertEquals(List.of("k64", "k65", "k66"), batches.get(1));
    for (int i = 0; i < reads.size(); i++) {
      assertEquals("v-k" + i, reads.get(i).get());
    }
  }

  @Test
  void whenTheThreadsAreClosedEveryReadyReadFailsInsteadOfHanging() {
    List<Runnable> refused = new ArrayList<>();
    AsyncCalls closed =
        new AsyncCalls(
            100,
            Duration.ofSeconds(5),
            ticker,
            work -> {
              refused.add(work);
              throw new IllegalStateException("the provider's threads are closed");
            },
            () -> false,
            "test-async-timer-2",
            "m",
            () -> false);
    try {
      CompletableFuture<String> a =
          closed.scope("c").submitRead("getAsync", "a", aloneRead("a"), values);
      ExecutionException failure = assertThrows(ExecutionException.class, a::get);
      assertInstanceOf(IllegalStateException.class, failure.getCause());
      assertEquals(0, closed.inFlight());
    } finally {
      closed.close();
    }
  }

  @Test
  void aBatchReadThatAnswersTooFewRunsEachReadAloneInsteadOfLeavingOneHanging() throws Exception {
    AsyncCalls.BatchRead<String> tooFew =
        (keys, deadline) -> List.of(AsyncCalls.Answer.of("only one"));
    CompletableFuture<String> a = read("a", tooFew);
    CompletableFuture<String> b = read("b", tooFew);
    runQueued();
    assertEquals("alone-a", a.get());
    assertEquals("alone-b", b.get());
  }

  @Test
  void theBatchRunsUnderTheEarliestDeadlineOfItsReads() throws Exception {
    List<Long> remaining = new ArrayList<>();
    AsyncCalls.BatchRead<String> timed =
        (keys, deadline) -> {
          remaining.add(deadline.remainingNanos());
          return keys.stream().map(k -> AsyncCalls.Answer.of("v")).toList();
        };
    read("a", timed);
    ticker.advance(Duration.ofSeconds(2));
    read("b", timed);
    runQueued();
    assertEquals(List.of(Duration.ofSeconds(3).toNanos()), remaining, "a's, issued first");
  }

  @Test
  void aReadWhoseDeadlinePassedIsNotTakenAlongAndFailsUnstarted() throws Exception {
    CompletableFuture<String> a = read("a");
    ticker.advance(Duration.ofSeconds(4));
    CompletableFuture<String> b = read("b");
    CompletableFuture<String> c = read("c");
    ticker.advance(Duration.ofSeconds(2)); // a's deadline has passed, b's and c's not
    runQueued();
    assertEquals(List.of(List.of("b", "c")), batches);
    ExecutionException failure = assertThrows(ExecutionException.class, a::get);
    assertInstanceOf(
        dev.mooncake.jcache.internal.calls.CallTimeoutException.class, failure.getCause());
    assertEquals("v-b", b.get());
    assertEquals("v-c", c.get());
  }
}
