package dev.mooncake.jcache.internal.async;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Writes ready together run as one batch on the cache's write runner ({@link
 * AsyncCalls.Scope#submitWrite}), apart from the reads' runner; a second read runner starts where
 * the CPU has room ({@link CpuRoom}). The provider's threads are a list the test runs by hand.
 */
class AsyncBatchRunnersTest {
  private final FakeTicker ticker = new FakeTicker();
  private final List<Runnable> queued = new CopyOnWriteArrayList<>();
  private final AtomicBoolean room = new AtomicBoolean();

  private final AsyncCalls calls =
      new AsyncCalls(
          100,
          Duration.ofSeconds(5),
          ticker,
          queued::add,
          () -> false,
          "test-async-timer",
          "m",
          room::get);
  private final AsyncCalls.Scope scope = calls.scope("c");

  /** Every write batch, as "key=value" items. */
  private final List<List<String>> writeBatches = new CopyOnWriteArrayList<>();

  private final List<String> alone = new CopyOnWriteArrayList<>();

  private final AsyncCalls.BatchWrite<String> writes =
      (keys, values, deadline) -> {
        List<String> items = new ArrayList<>();
        List<AsyncCalls.Answer<String>> answers = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
          items.add(keys.get(i) + "=" + values.get(i));
          answers.add(
              keys.get(i).equals("bad")
                  ? AsyncCalls.Answer.failed(new IllegalStateException("bad's own failure"))
                  : AsyncCalls.Answer.of("put-" + keys.get(i)));
        }
        writeBatches.add(items);
        return answers;
      };

  private final AsyncCalls.BatchRead<String> reads =
      (keys, deadline) -> {
        List<AsyncCalls.Answer<String>> answers = new ArrayList<>();
        for (Object key : keys) {
          answers.add(AsyncCalls.Answer.of("v-" + key));
        }
        return answers;
      };

  @AfterEach
  void close() {
    calls.close();
  }

  private CompletableFuture<String> write(String key, String value) {
    return scope.submitWrite(
        "putAsync",
        key,
        value,
        d -> {
          alone.add(key + "=" + value);
          return "alone-" + key;
        },
        writes);
  }

  private CompletableFuture<String> read(String key, AsyncCalls.BatchRead<String> batch) {
    return scope.submitRead(
        "getAsync",
        key,
        d -> {
          alone.add(key);
          return "alone-" + key;
        },
        batch);
  }

  private void runQueued() {
    while (!queued.isEmpty()) {
      queued.remove(0).run();
    }
  }

  @Test
  void writesQueuedTogetherRunAsOneBatchWithTheirValuesAndEachGetsItsOwnAnswer() throws Exception {
    CompletableFuture<String> a = write("a", "1");
    CompletableFuture<String> bad = write("bad", "2");
    CompletableFuture<String> c = write("c", "3");
    assertEquals(1, queued.size(), "three writes ready at once wake one thread");
    runQueued();
    assertEquals(List.of(List.of("a=1", "bad=2", "c=3")), writeBatches);
    assertEquals(List.of(), alone);
    assertEquals("put-a", a.get());
    ExecutionException failure =
        org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, bad::get);
    assertInstanceOf(IllegalStateException.class, failure.getCause());
    assertEquals("put-c", c.get());
    assertEquals(0, calls.inFlight());
  }

  @Test
  void readsAndWritesReadyTogetherGetARunnerEachAndNeverShareABatch() throws Exception {
    CompletableFuture<String> r = read("r", reads);
    CompletableFuture<String> w = write("w", "1");
    CompletableFuture<String> r2 = read("r2", reads);
    CompletableFuture<String> w2 = write("w2", "2");
    assertEquals(2, queued.size(), "one runner for the reads, one for the writes");
    runQueued();
    assertEquals(List.of(List.of("w=1", "w2=2")), writeBatches);
    assertEquals("v-r", r.get());
    assertEquals("v-r2", r2.get());
    assertEquals("put-w", w.get());
    assertEquals("put-w2", w2.get());
  }

  @Test
  void writesOfOneKeyRunInIssueOrderNeverInOneBatch() throws Exception {
    List<CompletableFuture<String>> issued = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      issued.add(write("k", String.valueOf(i)));
    }
    issued.add(write("other", "x"));
    runQueued();
    List<String> ofK = new ArrayList<>();
    for (List<String> batch : writeBatches) {
      for (String item : batch) {
        if (item.startsWith("k=")) {
          ofK.add(item);
        }
      }
      assertTrue(batch.stream().filter(i -> i.startsWith("k=")).count() <= 1, batch.toString());
    }
    alone.stream().filter(i -> i.startsWith("k=")).forEach(ofK::add);
    assertEquals(List.of("k=1", "k=2", "k=3"), ofK, "batches " + writeBatches + ", alone " + alone);
    for (CompletableFuture<String> f : issued) {
      f.get();
    }
  }

  @Test
  void aSecondReadRunnerStartsBesideABusyOneOnlyWhereTheCpuHasRoomAndNeverAThird()
      throws Exception {
    CountDownLatch inRoundTrip = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AsyncCalls.BatchRead<String> slow =
        (keys, deadline) -> {
          inRoundTrip.countDown();
          Latches.await(release, "the test released the first round trip");
          return reads.read(keys, deadline);
        };
    CompletableFuture<String> a = read("a", slow);
    read("a2", slow); // two, so that they run as a batch (one alone runs without it)
    Thread first = new Thread(queued.remove(0), "first-runner");
    first.start();
    Latches.await(inRoundTrip, "the first runner is in its round trip");
    read("b", reads);
    assertEquals(List.of(), queued, "no room: b waits for the busy runner");
    room.set(true);
    read("c", reads);
    assertEquals(1, queued.size(), "room: a second runner for the reads waiting");
    read("d", reads);
    assertEquals(1, queued.size(), "one on its way: no other");
    Runnable second = queued.remove(0);
    second.run(); // b, c and d, while the first runner is still in its round trip
    assertFalse(a.isDone(), "the first round trip is still held");
    assertEquals(List.of(), alone);
    release.countDown();
    first.join(TimeUnit.SECONDS.toMillis(Latches.BOUND_SECONDS));
    assertEquals("v-a", a.get());
    assertEquals(0, calls.inFlight(), "b, c and d answered by the second runner");
    assertEquals(List.of(), queued);
  }

  @Test
  void aThirdReadRunnerNeverStartsWhileTwoWork() throws Exception {
    room.set(true);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch firstInTrip = new CountDownLatch(1);
    CountDownLatch secondInTrip = new CountDownLatch(1);
    AsyncCalls.BatchRead<String> firstBatch = held(firstInTrip, release);
    read("a", firstBatch);
    read("a2", firstBatch);
    Thread first = new Thread(queued.remove(0), "first-runner");
    first.start();
    Latches.await(firstInTrip, "the first runner in its round trip");
    AsyncCalls.BatchRead<String> secondBatch = held(secondInTrip, release);
    read("b", secondBatch);
    read("b2", secondBatch);
    Thread second = new Thread(queued.remove(0), "second-runner");
    second.start();
    Latches.await(secondInTrip, "the second runner in its round trip");
    read("c", reads);
    assertEquals(List.of(), queued, "two at work: c waits for one of them");
    release.countDown();
    first.join(TimeUnit.SECONDS.toMillis(Latches.BOUND_SECONDS));
    second.join(TimeUnit.SECONDS.toMillis(Latches.BOUND_SECONDS));
    assertEquals(0, calls.inFlight(), "c was taken by a runner as it left");
  }

  /** A batch read that says it is in its round trip, then waits for {@code release}. */
  private AsyncCalls.BatchRead<String> held(CountDownLatch inTrip, CountDownLatch release) {
    return (keys, deadline) -> {
      inTrip.countDown();
      Latches.await(release, "the test released the round trips");
      return reads.read(keys, deadline);
    };
  }

  @Test
  void cpuRoomIsAWholeIdleCoreOverTheLastWindow() {
    AtomicLong cpu = new AtomicLong();
    CpuRoom twoCores = new CpuRoom(ticker, cpu::get, 2);
    assertFalse(twoCores.getAsBoolean(), "nothing measured yet");
    ticker.advance(Duration.ofMillis(20));
    cpu.addAndGet(TimeUnit.MILLISECONDS.toNanos(19)); // 0.95 of a core: one core idle
    assertTrue(twoCores.getAsBoolean());
    ticker.advance(Duration.ofMillis(10));
    cpu.addAndGet(TimeUnit.MILLISECONDS.toNanos(20));
    assertTrue(twoCores.getAsBoolean(), "within the window: the last answer");
    ticker.advance(Duration.ofMillis(10));
    cpu.addAndGet(TimeUnit.MILLISECONDS.toNanos(5)); // 25 ms of CPU in 20 ms: 1.25 cores
    assertFalse(twoCores.getAsBoolean());
    CpuRoom oneCore = new CpuRoom(ticker, cpu::get, 1);
    ticker.advance(Duration.ofMillis(20)); // an idle process
    assertFalse(oneCore.getAsBoolean(), "one core: never room for a second runner");
  }
}
