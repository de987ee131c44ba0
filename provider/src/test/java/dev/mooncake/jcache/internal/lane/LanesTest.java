package dev.mooncake.jcache.internal.lane;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.testing.Latches;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class LanesTest {
  @Test
  void theConfigNamesEveryLaneAndNoOther() {
    List<String> keys = new ArrayList<>();
    for (Lane lane : Lane.values()) {
      keys.add(lane.configKey());
    }
    assertEquals(dev.mooncake.jcache.config.MooncakeConfig.LANES, keys);
  }

  private static final Map<Lane, Integer> RETRIEVE_2_STORE_1 =
      Map.of(Lane.RETRIEVE, 2, Lane.STORE, 1);

  private static String threadName() {
    return Thread.currentThread().getName();
  }

  @Test
  void dedicatedLanesRunOnTheirOwnThreadsTheOthersShareOnePool() throws Exception {
    try (Lanes lanes = new Lanes(3, RETRIEVE_2_STORE_1, false, "cm1")) {
      assertTrue(
          lanes
              .submit(Lane.RETRIEVE, LanesTest::threadName)
              .get(5, TimeUnit.SECONDS)
              .startsWith("mooncake-cm1-retrieve-"));
      assertTrue(
          lanes
              .submit(Lane.STORE, LanesTest::threadName)
              .get(5, TimeUnit.SECONDS)
              .startsWith("mooncake-cm1-store-"));
      assertTrue(
          lanes
              .submit(Lane.DELETE, LanesTest::threadName)
              .get(5, TimeUnit.SECONDS)
              .startsWith("mooncake-cm1-shared-"));
      assertTrue(lanes.submit(Lane.RETRIEVE, () -> Thread.currentThread().isDaemon()).get());

      assertEquals("mooncake-cm1-retrieve-", lanes.threadNamePrefix(Lane.RETRIEVE));
      assertEquals("mooncake-cm1-shared-", lanes.threadNamePrefix(Lane.DELETE));
      assertEquals(2, lanes.poolSize(Lane.RETRIEVE));
      assertEquals(1, lanes.poolSize(Lane.STORE));
      assertEquals(3, lanes.poolSize(Lane.DELETE));
      assertFalse(lanes.executor(Lane.RETRIEVE) == lanes.executor(Lane.STORE));
    }
  }

  @Test
  void aLaneOfTwoRunsTwoTasksAtOnceAndQueuesTheThird() throws Exception {
    try (Lanes lanes = new Lanes(4, RETRIEVE_2_STORE_1, false, "p")) {
      CountDownLatch gate = new CountDownLatch(1);
      CountDownLatch twoStarted = new CountDownLatch(2);
      AtomicInteger running = new AtomicInteger();
      AtomicInteger maxRunning = new AtomicInteger();
      List<CompletableFuture<Integer>> tasks = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int id = i;
        tasks.add(
            lanes.submit(
                Lane.RETRIEVE,
                () -> {
                  maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                  twoStarted.countDown();
                  Latches.await(gate, "the gate opened");
                  running.decrementAndGet();
                  return id;
                }));
      }
      assertTrue(twoStarted.await(5, TimeUnit.SECONDS), "two tasks never ran at once");
      ThreadPoolExecutor pool = (ThreadPoolExecutor) lanes.executor(Lane.RETRIEVE);
      assertEquals(1, pool.getQueue().size()); // the third waits for a thread
      assertEquals(2, running.get());
      assertFalse(tasks.get(2).isDone());

      gate.countDown();
      for (int i = 0; i < 3; i++) {
        assertEquals(i, tasks.get(i).get(5, TimeUnit.SECONDS));
      }
      assertEquals(2, maxRunning.get());
      assertEquals(2, pool.getLargestPoolSize());
    }
  }

  @Test
  void singleCallsRunOnTheCallersThreadByDefault() {
    try (Lanes lanes = new Lanes(2, RETRIEVE_2_STORE_1, false, "i")) {
      String caller = threadName();
      for (Lane lane : Lane.values()) {
        assertEquals(caller, lanes.call(lane, LanesTest::threadName));
      }
    }
  }

  @Test
  void singleCallsHopOntoTheLaneWhenConfigured() {
    try (Lanes lanes = new Lanes(2, RETRIEVE_2_STORE_1, true, "h")) {
      assertTrue(
          lanes.call(Lane.RETRIEVE, LanesTest::threadName).startsWith("mooncake-h-retrieve-"));
      assertTrue(lanes.call(Lane.STORE, LanesTest::threadName).startsWith("mooncake-h-store-"));
      assertTrue(lanes.call(Lane.DELETE, LanesTest::threadName).startsWith("mooncake-h-shared-"));
    }
  }

  @Test
  void aCallOnTheLaneRethrowsTheCallsOwnException() {
    try (Lanes lanes = new Lanes(2, Map.of(), true, "x")) {
      IllegalArgumentException thrown = new IllegalArgumentException("boom");
      IllegalArgumentException caught =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  lanes.call(
                      Lane.RETRIEVE,
                      () -> {
                        throw thrown;
                      }));
      assertSame(thrown, caught);
      AssertionError error = new AssertionError("bad");
      assertSame(
          error,
          assertThrows(
              AssertionError.class,
              () ->
                  lanes.call(
                      Lane.RETRIEVE,
                      () -> {
                        throw error;
                      })));
    }
  }

  @Test
  void aCallFromInsideItsOwnLaneRunsInlineInsteadOfDeadlocking() throws Exception {
    try (Lanes lanes = new Lanes(1, Map.of(Lane.STORE, 1), true, "n")) {
      String[] threads =
          lanes
              .submit(
                  Lane.STORE,
                  () -> new String[] {threadName(), lanes.call(Lane.STORE, LanesTest::threadName)})
              .get(5, TimeUnit.SECONDS);
      assertEquals(threads[0], threads[1]);
      int[] seen = new int[4];
      lanes
          .submit(
              Lane.STORE,
              () -> {
                lanes.runChunked(
                    Lane.STORE,
                    4,
                    1,
                    (from, to) -> {
                      for (int i = from; i < to; i++) {
                        seen[i]++;
                      }
                    });
                return null;
              })
          .get(5, TimeUnit.SECONDS);
      assertArrayEquals(new int[] {1, 1, 1, 1}, seen);
    }
  }

  @Test
  void runChunkedCoversEveryItemOnceAcrossTheLanesThreads() {
    try (Lanes lanes = new Lanes(4, Map.of(Lane.RETRIEVE, 4), false, "c")) {
      AtomicIntegerArray seen = new AtomicIntegerArray(103);
      Set<String> threads = ConcurrentHashMap.newKeySet();
      List<int[]> chunks = new java.util.concurrent.CopyOnWriteArrayList<>();
      lanes.runChunked(
          Lane.RETRIEVE,
          103,
          10,
          (from, to) -> {
            threads.add(threadName());
            chunks.add(new int[] {from, to});
            for (int i = from; i < to; i++) {
              seen.incrementAndGet(i);
            }
          });
      for (int i = 0; i < 103; i++) {
        assertEquals(1, seen.get(i), "item " + i);
      }
      assertEquals(4, chunks.size());
      for (String thread : threads) {
        assertTrue(thread.startsWith("mooncake-c-retrieve-"), thread);
      }

      List<int[]> small = new ArrayList<>();
      lanes.runChunked(Lane.RETRIEVE, 15, 10, (from, to) -> small.add(new int[] {from, to}));
      assertEquals(1, small.size());
      assertArrayEquals(new int[] {0, 15}, small.get(0));
      lanes.runChunked(Lane.RETRIEVE, 0, 10, (from, to) -> small.add(null));
      assertEquals(1, small.size());
    }
  }

  @Test
  void batchAnswersPutsEachChunksAnswersAtItsPlace() {
    try (Lanes lanes = new Lanes(4, Map.of(Lane.STORE, 4), false, "c")) {
      List<int[]> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
      long[] answers =
          lanes.batchAnswers(
              Lane.STORE,
              103,
              10,
              long[]::new,
              (from, to) -> {
                calls.add(new int[] {from, to});
                long[] chunk = new long[to - from];
                for (int i = from; i < to; i++) {
                  chunk[i - from] = 1000L + i; // the answer of item i names i
                }
                return chunk;
              });
      assertEquals(4, calls.size(), "split across the lane's threads");
      for (int i = 0; i < 103; i++) {
        assertEquals(1000L + i, answers[i], "item " + i);
      }
      assertEquals(0, lanes.batchAnswers(Lane.STORE, 0, 10, int[]::new, (from, to) -> null).length);
    }
  }

  @Test
  void runChunkedRethrowsAChunksFailureAsIs() {
    try (Lanes lanes = new Lanes(4, Map.of(), false, "f")) {
      IllegalStateException failure = new IllegalStateException("chunk failed");
      assertSame(
          failure,
          assertThrows(
              IllegalStateException.class,
              () ->
                  lanes.runChunked(
                      Lane.DELETE,
                      40,
                      10,
                      (from, to) -> {
                        if (from == 0) {
                          throw failure;
                        }
                      })));
    }
  }

  @Test
  void afterCloseEveryEntryPointThrowsNamingTheLanes() {
    Lanes lanes = new Lanes(2, RETRIEVE_2_STORE_1, false, "z");
    lanes.close();
    lanes.close();
    for (Lane lane : Lane.values()) {
      assertTrue(lanes.executor(lane).isShutdown());
      IllegalStateException call =
          assertThrows(IllegalStateException.class, () -> lanes.call(lane, () -> 1));
      assertTrue(call.getMessage().contains("closed"), call.getMessage());
      assertTrue(call.getMessage().contains("mooncake-z-retrieve-*"), call.getMessage());
      assertTrue(call.getMessage().contains("mooncake-z-shared-*"), call.getMessage());
      assertThrows(IllegalStateException.class, () -> lanes.submit(lane, () -> 1));
      assertThrows(
          IllegalStateException.class, () -> lanes.runChunked(lane, 10, 1, (from, to) -> {}));
    }
  }

  @Test
  void closeLetsRunningWorkFinishAndStopsTheThreads() throws Exception {
    Lanes lanes = new Lanes(1, Map.of(), false, "s");
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<String> running =
        lanes.submit(
            Lane.RETRIEVE,
            () -> {
              started.countDown();
              return "finished";
            });
    assertTrue(started.await(5, TimeUnit.SECONDS));
    lanes.close();
    assertEquals("finished", running.get(5, TimeUnit.SECONDS));
    assertTrue(lanes.executor(Lane.RETRIEVE).isTerminated());
  }

  @Test
  void badSizesAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new Lanes(0, Map.of(), false, "b"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new Lanes(2, Map.of(Lane.DELETE, 0), false, "b"));
    assertTrue(e.getMessage().contains("per_op_workers.delete"), e.getMessage());
  }
}
