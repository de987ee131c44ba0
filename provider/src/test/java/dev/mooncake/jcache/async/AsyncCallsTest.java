package dev.mooncake.jcache.async;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.testing.Latches;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link AsyncCalls} alone: its bound, its order per key, and its end, on a plain pool. */
class AsyncCallsTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(4);
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void close() {
    release.countDown();
    pool.shutdownNow();
  }

  private Object held() {
    Latches.await(release, "the test released the call");
    return "held";
  }

  @Test
  void aProviderThreadIsRefusedAtOnceEvenWithALongWait() {
    AsyncCalls calls = new AsyncCalls(1, Duration.ofHours(1), pool::execute, () -> true, "m");
    AsyncCalls.Scope scope = calls.scope("c");
    CompletableFuture<Object> first = scope.submit("getAsync", List.of("a"), this::held);
    AsyncOverloadException refused =
        assertThrows(
            AsyncOverloadException.class, () -> scope.submit("getAsync", List.of("b"), () -> "b"));
    assertTrue(refused.getMessage().contains("provider thread"), refused.getMessage());
    release.countDown();
    assertEquals("held", first.join());
    assertEquals(0, calls.inFlight());
  }

  @Test
  void overlappingBatchesNeverWaitForEachOther() throws Exception {
    AsyncCalls calls = new AsyncCalls(1000, Duration.ofSeconds(5), pool::execute, () -> false, "m");
    AsyncCalls.Scope scope = calls.scope("c");
    CompletableFuture<?> head = scope.submit("putAsync", List.of("a"), this::held);
    CompletableFuture<?>[] batches = new CompletableFuture<?>[200];
    for (int i = 0; i < batches.length; i++) {
      List<String> keys = i % 2 == 0 ? List.of("a", "b", "c") : List.of("c", "b", "a");
      batches[i] = scope.submit("putAllAsync", keys, () -> "ok");
    }
    release.countDown();
    CompletableFuture.allOf(batches).get(Latches.BOUND_SECONDS, TimeUnit.SECONDS);
    head.join();
    assertEquals(0, scope.pending());
    assertEquals(0, calls.inFlight());
  }

  @Test
  void aClosedPoolFailsTheStageInsteadOfLeavingItHanging() {
    ExecutorService closed = Executors.newSingleThreadExecutor();
    closed.shutdown();
    AsyncCalls calls =
        new AsyncCalls(
            4,
            Duration.ofSeconds(1),
            r -> {
              if (closed.isShutdown()) {
                throw new IllegalStateException("the lanes of m are closed");
              }
            },
            () -> false,
            "m");
    CompletableFuture<Object> stage = calls.scope("c").submit("getAsync", List.of("a"), () -> 1);
    assertTrue(stage.isCompletedExceptionally());
    assertEquals(0, calls.inFlight());
  }
}
