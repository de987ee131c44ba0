package dev.mooncake.jcache.internal.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.testing.Latches;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CompletionListenerFuture;
import org.junit.jupiter.api.Test;

class PendingLoadsTest {
  private final PendingLoads loads = new PendingLoads("c");

  @Test
  void aQueuedLoadIsCancelledByEndAndNeverRuns() throws Exception {
    List<Runnable> queue = new ArrayList<>();
    AtomicBoolean ran = new AtomicBoolean();
    CompletionListenerFuture listener = new CompletionListenerFuture();
    loads.start(() -> ran.set(true), listener, queue::add);

    loads.end(Duration.ofSeconds(10));
    queue.get(0).run(); // the lane gets to it after the end

    assertFalse(ran.get(), "a load cancelled while queued ran anyway");
    ExecutionException failed =
        assertThrows(ExecutionException.class, () -> listener.get(1, TimeUnit.SECONDS));
    assertInstanceOf(CacheLoaderException.class, failed.getCause());
    assertEquals(0, loads.pending());
  }

  @Test
  void aLoadStartedAfterEndFailsWithoutBeingSubmitted() {
    loads.end(Duration.ofSeconds(10));
    CompletionListenerFuture listener = new CompletionListenerFuture();
    loads.start(
        () -> {},
        listener,
        task -> {
          throw new AssertionError("submitted after end");
        });

    assertTrue(listener.isDone());
    assertThrows(ExecutionException.class, listener::get);
    assertEquals(0, loads.pending());
  }

  @Test
  void endWaitsForARunningLoad() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> order = new CopyOnWriteArrayList<>();
    loads.start(
        () -> {
          entered.countDown();
          Latches.await(release, "the test released the load");
          order.add("load ended");
        },
        new CompletionListenerFuture(),
        task -> new Thread(task, "lane").start());
    assertTrue(entered.await(10, TimeUnit.SECONDS));

    Thread ender =
        new Thread(
            () -> {
              loads.end(Duration.ofSeconds(10));
              order.add("end returned");
            });
    ender.start();
    while (ender.getState() != Thread.State.TIMED_WAITING && ender.isAlive()) {
      Thread.onSpinWait();
    }
    release.countDown();
    ender.join(10_000);

    assertEquals(List.of("load ended", "end returned"), order);
  }

  @Test
  void endGivesUpOnALoadStuckPastTheBound() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    loads.start(
        () -> {
          entered.countDown();
          Latches.await(never, "the test released the load");
        },
        new CompletionListenerFuture(),
        task -> new Thread(task, "stuck-lane").start());
    assertTrue(entered.await(10, TimeUnit.SECONDS));

    loads.end(Duration.ofMillis(1)); // returns: a stuck loader cannot hang close()

    assertEquals(1, loads.pending());
    never.countDown();
  }

  @Test
  void aFailingSubmitIsThrownAndForgotten() {
    IllegalStateException closedLane = new IllegalStateException("lanes closed");
    IllegalStateException thrown =
        assertThrows(
            IllegalStateException.class,
            () ->
                loads.start(
                    () -> {},
                    new CompletionListenerFuture(),
                    task -> {
                      throw closedLane;
                    }));
    assertSame(closedLane, thrown);
    assertEquals(0, loads.pending());
  }
}
