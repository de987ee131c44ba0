package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.nativebridge.ClosedHandleException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The routing of {@link VirtualThreadCalls} on the build's JDK (17: no virtual threads), with the
 * detector injected. What it saves on real virtual threads: {@code VirtualThreadPinningTest}.
 */
class VirtualThreadCallsTest {
  @Test
  void platformThreadsAreNotVirtual() throws Exception {
    assertFalse(VirtualThreadCalls.currentIsVirtual());
    CompletableFuture<Boolean> other = new CompletableFuture<>();
    Thread thread = new Thread(() -> other.complete(VirtualThreadCalls.currentIsVirtual()));
    thread.start();
    assertFalse(other.get(10, TimeUnit.SECONDS));
    assertFalse(VirtualThreadCalls.shared().handsOff());
  }

  @Test
  void aPlatformThreadCallsInline() {
    VirtualThreadCalls calls = new VirtualThreadCalls(() -> false);
    try {
      Thread caller = Thread.currentThread();
      AtomicReference<Thread> ran = new AtomicReference<>();
      assertEquals(
          7,
          calls.call(
              () -> {
                ran.set(Thread.currentThread());
                return 7;
              }));
      assertSame(caller, ran.get());
    } finally {
      calls.close();
    }
  }

  @Test
  void aVirtualThreadsCallRunsOnANamedPlatformThread() {
    VirtualThreadCalls calls = new VirtualThreadCalls(() -> true);
    try {
      AtomicReference<Thread> ran = new AtomicReference<>();
      assertEquals(
          -704,
          calls.call(
              () -> {
                ran.set(Thread.currentThread());
                return -704;
              }));
      assertTrue(ran.get().getName().startsWith("mooncake-vthread-calls-"), ran.get().getName());
      assertTrue(ran.get().isDaemon());
    } finally {
      calls.close();
    }
  }

  @Test
  void whatTheCallThrowsIsThrownAsIs() {
    VirtualThreadCalls calls = new VirtualThreadCalls(() -> true);
    try {
      ClosedHandleException closed = new ClosedHandleException("closed");
      assertSame(
          closed,
          assertThrows(
              ClosedHandleException.class,
              () ->
                  calls.call(
                      () -> {
                        throw closed;
                      })));
    } finally {
      calls.close();
    }
  }

  /** The caller waits for the end of its call even when interrupted, and keeps the interrupt. */
  @Test
  void anInterruptedCallerStillWaitsForItsCall() throws Exception {
    VirtualThreadCalls calls = new VirtualThreadCalls(() -> true);
    try {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CompletableFuture<String> outcome = new CompletableFuture<>();
      Thread caller =
          new Thread(
              () -> {
                long answer =
                    calls.call(
                        () -> {
                          started.countDown();
                          try {
                            release.await();
                          } catch (InterruptedException e) {
                            return -1;
                          }
                          return 42;
                        });
                outcome.complete(answer + " " + Thread.currentThread().isInterrupted());
              });
      caller.start();
      assertTrue(started.await(10, TimeUnit.SECONDS));
      caller.interrupt();
      assertFalse(outcome.isDone());
      release.countDown();
      assertEquals("42 true", outcome.get(10, TimeUnit.SECONDS));
    } finally {
      calls.close();
    }
  }

  @Test
  void afterCloseAVirtualThreadCallsInline() {
    VirtualThreadCalls calls = new VirtualThreadCalls(() -> true);
    calls.close();
    Thread caller = Thread.currentThread();
    AtomicReference<Thread> ran = new AtomicReference<>();
    calls.call(
        () -> {
          ran.set(Thread.currentThread());
          return 0;
        });
    assertSame(caller, ran.get());
  }
}
