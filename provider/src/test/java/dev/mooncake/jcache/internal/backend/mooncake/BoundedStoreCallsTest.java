package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.calls.CallTimeoutException;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import dev.mooncake.jcache.nativebridge.NativeRegion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A store call that Mooncake does not answer in time (held on a latch over the fake library): the
 * caller gets a {@link CallTimeoutException} naming the status within the operation timeout, what
 * the call reads or writes is not reused before it returns (a region buffer held by the pool, any
 * other buffer copied), and the store works after it returns. And a healthy store with a long
 * timeout makes its calls on the caller's thread (no hop).
 */
@Timeout(60)
class BoundedStoreCallsTest {
  private static final long TIMEOUT_MS = 300;

  /**
   * The caller's wait past the timeout that the assertion allows: scheduling on a loaded 2-core
   * machine (6 agents), not work of ours; the wait itself is bounded by the timeout.
   */
  private static final long SCHEDULING_MARGIN_MS = 2_000;

  private MooncakeStore store;
  private final CountDownLatch held = new CountDownLatch(1);
  private final CountDownLatch mayAnswer = new CountDownLatch(1);
  private final CountDownLatch returned = new CountDownLatch(1);

  @AfterEach
  void close() {
    mayAnswer.countDown();
    if (store != null) {
      store.close();
    }
    Fake.control("reset=1");
  }

  private MooncakeStore open(long timeoutMs) {
    TestConfig config = new TestConfig();
    config.operationTimeout = Duration.ofMillis(timeoutMs);
    store = config.open();
    return store;
  }

  /** Holds the next ABI call on {@link #mayAnswer}; the ones after it go straight through. */
  private void holdNextCall() {
    AtomicBoolean first = new AtomicBoolean(true);
    store.interceptCalls(
        call ->
            () -> {
              if (!first.getAndSet(false)) {
                return call.call();
              }
              held.countDown();
              try {
                mayAnswer.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              long answer = call.call();
              returned.countDown();
              return answer;
            });
  }

  /** Records the thread each ABI call made after this runs on (the last one). */
  private AtomicReference<Thread> recordCallThreads() {
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    store.interceptCalls(
        call ->
            () -> {
              ranOn.set(Thread.currentThread());
              return call.call();
            });
    return ranOn;
  }

  private static ByteBuffer bytes(String text) {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    ByteBuffer buffer = ByteBuffer.allocateDirect(b.length);
    buffer.put(b).flip();
    return buffer;
  }

  /** Waits (bounded) until {@code left} buffers are out: a given-up call gives its copy back. */
  private void awaitBuffersBack(int left) throws InterruptedException {
    assertTrue(returned.await(10, TimeUnit.SECONDS), "the held call never returned");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (store.pool().outstanding() != left) {
      assertTrue(System.nanoTime() < deadline, "the staged buffer was never given back");
      Thread.onSpinWait(); // the release runs right after the call returns, on its thread
    }
    // Giving up sent a probe (the breaker stays closed unless it fails); the fake answers it.
    while (store.failingFast()) {
      assertTrue(System.nanoTime() < deadline, "the probe never closed the breaker");
      Thread.onSpinWait();
    }
  }

  private void awaitInUse(long bytes) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (store.pool().inUse() != bytes) {
      assertTrue(System.nanoTime() < deadline, "in use " + store.pool().inUse() + ", not " + bytes);
      Thread.onSpinWait();
    }
  }

  @Test
  void aPutWithoutAnswerFailsWithinTheTimeoutAndItsValueIsACopy() throws Exception {
    open(TIMEOUT_MS);
    holdNextCall();
    ByteBuffer value = bytes("first");
    long start = System.nanoTime();
    CallTimeoutException e = assertThrows(CallTimeoutException.class, () -> store.put("k", value));
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(waited <= TIMEOUT_MS + SCHEDULING_MARGIN_MS, "waited " + waited + " ms");
    assertTrue(e.getMessage().contains("put of 'k': no answer within"), e.getMessage());
    assertTrue(e.getMessage().contains("-901 RPC_TIMEOUT"), e.getMessage());
    assertTrue(e.getMessage().contains("the outcome of this put is unknown"), e.getMessage());
    assertTrue(held.await(10, TimeUnit.SECONDS));
    assertEquals(1, store.pool().outstanding(), "the staged copy stays with the held call");

    // The caller may reuse its buffer at once: the held call writes the copy it was given.
    value.clear();
    value.put("xxxxx".getBytes(StandardCharsets.UTF_8)).flip();
    mayAnswer.countDown();
    awaitBuffersBack(0);

    ByteBuffer read = ByteBuffer.allocateDirect(16);
    long length = store.getInto("k", read);
    assertEquals(5, length, "the put went on in the background; later calls work");
    byte[] got = new byte[5];
    read.get(0, got);
    assertArrayEquals("first".getBytes(StandardCharsets.UTF_8), got);
  }

  @Test
  void aGetIntoARegionBufferHoldsItUntilTheCallReturnsInsteadOfCopyingIt() throws Exception {
    open(TIMEOUT_MS);
    assertEquals(0, store.put("k", bytes("value")));
    holdNextCall();
    ByteBuffer destination = store.buffers().acquire(16);
    long block = store.pool().inUse();
    CallTimeoutException e =
        assertThrows(CallTimeoutException.class, () -> store.getInto("k", destination));
    assertTrue(e.getMessage().contains("get of 'k': no answer within"), e.getMessage());
    assertTrue(e.getMessage().contains("-901 RPC_TIMEOUT"), e.getMessage());
    assertTrue(held.await(10, TimeUnit.SECONDS));
    assertEquals(block, store.pool().inUse(), "a bounded get copied a region buffer");
    // The caller gives its region buffer back, as a cache does when its call fails. The held
    // get may still write into it, so nobody else may get that memory before it returns.
    long given = NativeRegion.addressOf(destination);
    store.buffers().release(destination);
    ByteBuffer other = store.buffers().acquire(16);
    assertNotEquals(given, NativeRegion.addressOf(other), "memory a given-up get writes reused");
    assertEquals(2 * block, store.pool().inUse(), "the held block is not free");
    mayAnswer.countDown();
    awaitBuffersBack(1);
    awaitInUse(block); // the hold ends right after the call returns, on its thread
    store.buffers().release(other);
    ByteBuffer again = store.buffers().acquire(16);
    assertEquals(given, NativeRegion.addressOf(again), "first fit hands the freed block out again");
    store.buffers().release(again);
    ByteBuffer read = ByteBuffer.allocateDirect(16);
    assertEquals(5, store.getInto("k", read), "later calls work");
  }

  @Test
  void aKeptBufferIsCopiedForABoundedCall() throws Exception {
    open(TIMEOUT_MS);
    holdNextCall();
    // The zero-copy API's buffers: their owner reuses them after a failed call, so a given-up
    // call must not write into them, or read them while they are being refilled.
    ByteBuffer value = store.buffers().acquireKept(16);
    value.put("first".getBytes(StandardCharsets.UTF_8)).flip();
    long block = store.pool().inUse();
    assertThrows(CallTimeoutException.class, () -> store.put("k", value));
    assertTrue(held.await(10, TimeUnit.SECONDS));
    assertEquals(2 * block, store.pool().inUse(), "the held put works on a copy");
    value.clear();
    value.put("xxxxx".getBytes(StandardCharsets.UTF_8)).flip();
    mayAnswer.countDown();
    awaitBuffersBack(1);
    awaitInUse(block); // the copy is given back right after the call returns, on its thread
    store.buffers().release(value);
    ByteBuffer read = ByteBuffer.allocateDirect(16);
    assertEquals(5, store.getInto("k", read));
    byte[] got = new byte[5];
    read.get(0, got);
    assertArrayEquals("first".getBytes(StandardCharsets.UTF_8), got);
  }

  /**
   * Batches of region buffers on bounded calls need no second region buffer each: values filling
   * most of the region go and come back whole. With a copy per value (the first version of bounded
   * calls) the batch put waited for space that never came and failed "the transfer region is
   * exhausted" (the soak test's 1 MiB batches found it).
   */
  @Test
  void boundedBatchesOfRegionBuffersFitTheRegionOnce() {
    open(TIMEOUT_MS);
    int count = 5;
    int size = (int) (store.pool().maxBufferSize() * 3 / 4 / count); // 3/4 of the region in all
    String[] keys = new String[count];
    ByteBuffer[] values = new ByteBuffer[count];
    for (int i = 0; i < count; i++) {
      keys[i] = "batch-" + i;
      values[i] = store.buffers().acquire(size);
      for (int b = 0; b < size; b += 4096) {
        values[i].put(b, (byte) (i + 1));
      }
    }
    AtomicReference<Thread> ranOn = recordCallThreads();
    int[] put = store.batchPut(keys, values);
    assertNotSame(Thread.currentThread(), ranOn.get(), "the batch was not bounded");
    for (int i = 0; i < count; i++) {
      assertEquals(0, put[i], "put of " + keys[i]);
      values[i].clear();
      for (int b = 0; b < size; b += 4096) {
        values[i].put(b, (byte) 0);
      }
    }
    long[] got = store.batchGetInto(keys, values);
    for (int i = 0; i < count; i++) {
      assertEquals(size, got[i], "get of " + keys[i]);
      for (int b = 0; b < size; b += 4096) {
        assertEquals(i + 1, values[i].get(b), keys[i] + " byte " + b);
      }
      store.buffers().release(values[i]);
    }
    assertEquals(0, store.pool().inUse());
  }

  @Test
  void aCallOfAnOperationEndsByTheOperationsDeadlineNotByItsOwnTimeout() throws Exception {
    long timeoutMs = 6_000; // bounded (below DIRECT_CALLS_FROM_MS), and far above the scope's
    open(timeoutMs);
    holdNextCall();
    long start = System.nanoTime();
    CallTimeoutException e =
        assertThrows(
            CallTimeoutException.class,
            () ->
                store.put(
                    "k",
                    bytes("v"),
                    Deadline.afterNanos(
                        TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS), Ticker.system())));
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(waited < timeoutMs - SCHEDULING_MARGIN_MS, "waited " + waited + " ms");
    assertTrue(e.getMessage().contains("put of 'k'"), e.getMessage());
    assertTrue(
        e.getMessage().contains("the operation's deadline: operation_timeout_ms " + TIMEOUT_MS),
        "the message names the operation's bound and what was spent: " + e.getMessage());
    mayAnswer.countDown();
    awaitBuffersBack(0);
  }

  @Test
  void aHealthyStoreWithALongTimeoutCallsOnTheCallersThread() {
    open(StoreCallRunner.DIRECT_CALLS_FROM_MS);
    AtomicReference<Thread> ranOn = recordCallThreads();
    assertEquals(0, store.put("k", bytes("v")));
    assertSame(Thread.currentThread(), ranOn.get(), "a hop on the fast path");
    assertEquals(1, store.isExist("k"));
    assertSame(Thread.currentThread(), ranOn.get());
  }

  @Test
  void aShortTimeoutBoundsEveryCallOnAThreadOfItsOwn() {
    open(TIMEOUT_MS);
    AtomicReference<Thread> ranOn = recordCallThreads();
    assertEquals(0, store.put("k", bytes("v")));
    assertNotSame(Thread.currentThread(), ranOn.get());
    assertTrue(ranOn.get().getName().startsWith("mooncake-store-calls-"), ranOn.get().getName());
  }
}
