package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ReadCoalescer} with a scripted store: reads ready together are one batch call, each read
 * gets its own key's answer in its own buffer, and a read the batch cannot answer, or one still
 * queued when its bound passes, makes its own call. Callers are platform threads standing in for
 * virtual ones (the build's JDK has none); a latch holds the store's first call so that the others
 * queue behind it.
 */
class ReadCoalescerTest {
  private static final long CALL_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final ExecutorService drainers = Executors.newCachedThreadPool();
  private final ExecutorService callers = Executors.newCachedThreadPool();
  private final AtomicLong now = new AtomicLong();
  private final List<List<String>> batches = new CopyOnWriteArrayList<>();
  private final List<String> alone = new CopyOnWriteArrayList<>();
  private final Map<String, Thread> aloneOn = new ConcurrentHashMap<>();
  private final CountDownLatch firstCallEntered = new CountDownLatch(1);
  private final CountDownLatch releaseFirstCall = new CountDownLatch(1);
  private volatile RuntimeException batchFails;

  @AfterEach
  void stop() {
    releaseFirstCall.countDown();
    drainers.shutdownNow();
    callers.shutdownNow();
  }

  /** The store: a key's answer is its length, and its bytes are written into the buffer. */
  private long answer(String key, ByteBuffer destination) {
    destination.duplicate().put(key.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    return key.length();
  }

  private long single(String key, ByteBuffer destination, Deadline deadline) {
    alone.add(key);
    aloneOn.put(key, Thread.currentThread());
    if (key.equals("first")) {
      firstCallEntered.countDown();
      await(releaseFirstCall);
    }
    return answer(key, destination);
  }

  private long[] batch(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
    batches.add(List.of(keys));
    if (batchFails != null) {
      throw batchFails;
    }
    long[] answers = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      answers[i] = answer(keys[i], destinations[i]);
    }
    return answers;
  }

  private ReadCoalescer coalescer() {
    return new ReadCoalescer(this::single, this::batch, drainers::execute, now::get, CALL_NANOS);
  }

  private Future<Long> read(ReadCoalescer coalescer, String key, ByteBuffer buffer) {
    return callers.submit(() -> coalescer.getInto(key, buffer, Deadline.none()));
  }

  /** Starts "first" (held in the store) and waits until the drainer is in its call. */
  private Future<Long> holdTheDrainer(ReadCoalescer coalescer) throws Exception {
    Future<Long> first = read(coalescer, "first", ByteBuffer.allocate(16));
    assertTrue(firstCallEntered.await(10, TimeUnit.SECONDS));
    return first;
  }

  private static void awaitQueued(ReadCoalescer coalescer, int n) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (coalescer.queued() < n) {
      assertTrue(System.nanoTime() < end, "queued " + coalescer.queued() + " of " + n);
      Thread.onSpinWait();
    }
  }

  @Test
  void readsReadyTogetherAreOneBatchAndEachGetsItsOwnKey() throws Exception {
    ReadCoalescer coalescer = coalescer();
    Future<Long> first = holdTheDrainer(coalescer);
    List<Future<Long>> reads = new ArrayList<>();
    List<ByteBuffer> buffers = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ByteBuffer buffer = ByteBuffer.allocate(16);
      buffers.add(buffer);
      reads.add(read(coalescer, "key-" + i, buffer));
    }
    awaitQueued(coalescer, 5);
    releaseFirstCall.countDown();
    assertEquals(5, first.get(10, TimeUnit.SECONDS));
    for (int i = 0; i < 5; i++) {
      assertEquals(5, reads.get(i).get(10, TimeUnit.SECONDS));
      byte[] got = new byte[5];
      buffers.get(i).get(0, got);
      assertEquals("key-" + i, new String(got, java.nio.charset.StandardCharsets.US_ASCII));
    }
    assertEquals(List.of("first"), alone, "the lone first read went alone");
    assertEquals(1, batches.size(), "the five queued reads went as one call: " + batches);
    assertEquals(5, batches.get(0).size());
  }

  @Test
  void aBatchTakesAtMost64ReadsOfDistinctKeys() throws Exception {
    ReadCoalescer coalescer = coalescer();
    Future<Long> first = holdTheDrainer(coalescer);
    List<Future<Long>> reads = new ArrayList<>();
    reads.add(read(coalescer, "key-0", ByteBuffer.allocate(16)));
    awaitQueued(coalescer, 1);
    reads.add(read(coalescer, "key-0", ByteBuffer.allocate(16))); // the same key again: next batch
    for (int i = 1; i < 70; i++) {
      reads.add(read(coalescer, "key-" + i, ByteBuffer.allocate(16)));
    }
    awaitQueued(coalescer, 71);
    releaseFirstCall.countDown();
    first.get(10, TimeUnit.SECONDS);
    for (Future<Long> read : reads) {
      read.get(10, TimeUnit.SECONDS);
    }
    int batched = 0;
    for (List<String> batch : batches) {
      assertTrue(batch.size() <= ReadCoalescer.MAX_BATCH, "a batch of " + batch.size());
      assertEquals(batch.size(), batch.stream().distinct().count(), "a key twice: " + batch);
      batched += batch.size();
    }
    assertEquals(71, batched + alone.size() - 1, "every read answered once: " + batches);
    assertTrue(batches.size() >= 2, "71 reads need two batches: " + batches);
  }

  @Test
  void whenTheBatchCallThrowsEachReadMakesItsOwnCallOnItsOwnThread() throws Exception {
    batchFails = new IllegalStateException("batch refused");
    ReadCoalescer coalescer = coalescer();
    Future<Long> first = holdTheDrainer(coalescer);
    List<Future<Long>> reads = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      reads.add(read(coalescer, "key-" + i, ByteBuffer.allocate(16)));
    }
    awaitQueued(coalescer, 3);
    releaseFirstCall.countDown();
    first.get(10, TimeUnit.SECONDS);
    for (Future<Long> read : reads) {
      assertEquals(5, read.get(10, TimeUnit.SECONDS));
    }
    assertEquals(1, batches.size());
    for (int i = 0; i < 3; i++) {
      assertTrue(alone.contains("key-" + i), "key-" + i + " went alone: " + alone);
      assertTrue(aloneOn.get("key-" + i).getName().startsWith("pool-"), "on a caller's thread");
    }
  }

  @Test
  void aReadWhoseBoundPassedWhileQueuedLeavesTheQueueAndGoesAlone() throws Exception {
    ReadCoalescer coalescer = coalescer();
    Future<Long> first = holdTheDrainer(coalescer);
    AtomicLong clock = new AtomicLong();
    Deadline spent = Deadline.after(Duration.ofMillis(1), Ticker.ofNanos(clock::get));
    clock.set(TimeUnit.MILLISECONDS.toNanos(2)); // its bound passed
    Future<Long> late =
        callers.submit(() -> coalescer.getInto("late", ByteBuffer.allocate(16), spent));
    assertEquals(4, late.get(10, TimeUnit.SECONDS), "answered alone while the drainer is held");
    assertEquals(0, coalescer.queued());
    assertTrue(alone.contains("late"));
    releaseFirstCall.countDown();
    first.get(10, TimeUnit.SECONDS);
    assertTrue(batches.isEmpty(), "nothing left to batch: " + batches);
  }

  @Test
  void aDrainerStuckPastTheBoundNoLongerHoldsTheQueue() throws Exception {
    ReadCoalescer coalescer = coalescer();
    Future<Long> first = holdTheDrainer(coalescer);
    Future<Long> queued = read(coalescer, "queued", ByteBuffer.allocate(16));
    awaitQueued(coalescer, 1);
    assertEquals(1, coalescer.queued(), "a drainer runs and is not stuck: the read waits");
    now.addAndGet(ReadCoalescer.STUCK_NANOS + 1);
    Future<Long> next = read(coalescer, "next", ByteBuffer.allocate(16));
    assertEquals(6, queued.get(10, TimeUnit.SECONDS), "a second drainer served the queue");
    assertEquals(4, next.get(10, TimeUnit.SECONDS));
    assertTrue(!first.isDone(), "the first drainer is still held");
    releaseFirstCall.countDown();
    first.get(10, TimeUnit.SECONDS);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(10, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
