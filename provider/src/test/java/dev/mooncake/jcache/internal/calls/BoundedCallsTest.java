package dev.mooncake.jcache.internal.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.testing.Latches;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Bounded store calls: slow calls are fakes blocked on latches, so every give-up is certain (the
 * call cannot return before its latch opens) and nothing waits on wall time but the short bounds.
 */
class BoundedCallsTest {
  private static final long SHORT = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long LONG = TimeUnit.SECONDS.toNanos(30);

  /** A pool of one buffer, as a registered region's pool hands buffers out and back. */
  private static final class OneBufferPool {
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>(List.of(ByteBuffer.allocate(8)));
    final List<String> events = new CopyOnWriteArrayList<>();

    synchronized ByteBuffer acquire() {
      return free.poll();
    }

    synchronized void release(ByteBuffer buffer) {
      events.add("released");
      free.push(buffer);
    }
  }

  @Test
  void aCallThatAnswersInTimeRunsOnThePoolAndKeepsItsBuffersWithTheCaller() {
    BoundedCalls calls = new BoundedCalls("test-reads", 4);
    AtomicBoolean asked = new AtomicBoolean();
    String thread =
        calls.call(
            "get_into of 'k'",
            LONG,
            () -> Thread.currentThread().getName(),
            () -> {
              asked.set(true);
              return () -> {};
            });
    assertTrue(thread.startsWith("mooncake-test-reads-"), thread);
    assertFalse(asked.get(), "a call that answered handed its buffers over");
    assertEquals(0, calls.abandoned());
  }

  @Test
  void whatTheCallThrowsIsThrownAsIs() {
    BoundedCalls calls = new BoundedCalls("test-reads", 4);
    IllegalStateException failure = new IllegalStateException("closed");
    IllegalStateException thrown =
        assertThrows(
            IllegalStateException.class,
            () ->
                calls.call(
                    "get_into of 'k'",
                    LONG,
                    () -> {
                      throw failure;
                    },
                    () -> () -> {}));
    assertSame(failure, thrown);
  }

  @Test
  void aSlowCallIsGivenUpOnAndItsBufferIsReleasedOnlyWhenTheCallReturns() throws Exception {
    BoundedCalls calls = new BoundedCalls("test-reads", 4);
    OneBufferPool pool = new OneBufferPool();
    ByteBuffer buffer = pool.acquire();
    CountDownLatch mooncakeReturns = new CountDownLatch(1);
    CountDownLatch givenBack = new CountDownLatch(1);
    CallTimeoutException e =
        assertThrows(
            CallTimeoutException.class,
            () ->
                calls.call(
                    "get_into of 'mcjlock/k'",
                    SHORT,
                    () -> {
                      Latches.await(mooncakeReturns, "the test let the call return");
                      buffer.put(0, (byte) 7); // the late transfer still writes into it
                      pool.events.add("call wrote");
                      return 8L;
                    },
                    () ->
                        () -> {
                          pool.release(buffer);
                          givenBack.countDown();
                        }));
    assertTrue(e.getMessage().contains("get_into of 'mcjlock/k'"), e.getMessage());
    assertTrue(e.getMessage().contains("no answer within 5 ms"), e.getMessage());
    assertTrue(e.getMessage().contains("mooncake-test-reads-"), e.getMessage());
    assertEquals(1, calls.abandoned());
    assertNull(pool.acquire(), "the buffer was handed out again while the call could write to it");
    mooncakeReturns.countDown();
    assertTrue(givenBack.await(30, TimeUnit.SECONDS));
    assertEquals(List.of("call wrote", "released"), pool.events);
    assertSame(buffer, pool.acquire());
    assertEquals(7, buffer.get(0));
    awaitNoneAbandoned(calls);
  }

  @Test
  void beyondTheBoundOfStuckCallsNewCallsAreRefusedBeforeTheyStart() throws Exception {
    BoundedCalls calls = new BoundedCalls("test-reads", 1);
    CountDownLatch mooncakeReturns = new CountDownLatch(1);
    assertThrows(
        CallTimeoutException.class,
        () ->
            calls.call(
                "get_into of 'a'",
                SHORT,
                () -> {
                  Latches.await(mooncakeReturns, "the test let the call return");
                  return 1L;
                },
                () -> () -> {}));
    assertTrue(calls.full());
    AtomicBoolean ran = new AtomicBoolean();
    AtomicBoolean asked = new AtomicBoolean();
    CallTimeoutException refused =
        assertThrows(
            CallTimeoutException.class,
            () ->
                calls.call(
                    "get_into of 'b'",
                    LONG,
                    () -> {
                      ran.set(true);
                      return 1L;
                    },
                    () -> {
                      asked.set(true);
                      return () -> {};
                    }));
    assertTrue(refused.getMessage().contains("get_into of 'b': not started"), refused.getMessage());
    assertTrue(refused.getMessage().contains("(at most 1)"), refused.getMessage());
    assertFalse(ran.get());
    assertFalse(asked.get(), "a call refused before it started took the caller's buffers");
    mooncakeReturns.countDown();
    awaitNoneAbandoned(calls);
    assertEquals(2L, calls.call("get_into of 'b'", LONG, () -> 2L, () -> () -> {}));
  }

  @Test
  void anInterruptedCallerGivesUpAtOnceAndKeepsItsInterrupt() throws Exception {
    BoundedCalls calls = new BoundedCalls("test-reads", 4);
    CountDownLatch mooncakeReturns = new CountDownLatch(1);
    CountDownLatch givenBack = new CountDownLatch(1);
    Thread.currentThread().interrupt();
    try {
      CallTimeoutException e =
          assertThrows(
              CallTimeoutException.class,
              () ->
                  calls.call(
                      "get_into of 'k'",
                      LONG,
                      () -> {
                        Latches.await(mooncakeReturns, "the test let the call return");
                        return 1L;
                      },
                      () -> givenBack::countDown));
      assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
      assertTrue(Thread.currentThread().isInterrupted());
    } finally {
      Thread.interrupted();
    }
    mooncakeReturns.countDown();
    assertTrue(givenBack.await(30, TimeUnit.SECONDS));
  }

  /** The count drops right after the give-back action ran, on the call's thread. */
  private static void awaitNoneAbandoned(BoundedCalls calls) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (calls.abandoned() > 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals(0, calls.abandoned());
  }
}
