package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.PoolDeadlineChecks;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.nativebridge.NativeRegion;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RegionBufferPoolTest {
  private NativeRegion region;

  private RegionBufferPool pool(long size, long chunk, Duration timeout) {
    region = NativeRegion.allocate(size);
    return new RegionBufferPool(region, timeout, chunk);
  }

  @AfterEach
  void close() {
    if (region != null) {
      region.close();
    }
  }

  @Test
  void buffersAreDisjointAlignedSlicesOfTheRegion() {
    RegionBufferPool pool = pool(1 << 20, 1 << 20, Duration.ofMillis(100));
    TreeMap<Long, Integer> taken = new TreeMap<>();
    for (int size : new int[] {1, 63, 64, 65, 1000, 4096, 0, 70_000}) {
      ByteBuffer buffer = pool.acquire(size);
      assertEquals(0, buffer.position());
      assertEquals(size, buffer.capacity());
      assertEquals(size, buffer.limit());
      assertTrue(buffer.isDirect());
      assertTrue(region.contains(buffer));
      long address = NativeRegion.addressOf(buffer);
      assertEquals(0, (address - region.address()) % RegionBufferPool.ALIGNMENT);
      var before = taken.floorEntry(address);
      assertTrue(before == null || before.getKey() + Math.max(before.getValue(), 1) <= address);
      var after = taken.ceilingEntry(address);
      assertTrue(after == null || address + size <= after.getKey());
      taken.put(address, size);
    }
    assertEquals(1 << 20, pool.maxBufferSize());
  }

  @Test
  void exhaustionWaitsForTheTimeoutThenNamesTheSizes() {
    RegionBufferPool pool = pool(64 << 10, 64 << 10, Duration.ofMillis(200));
    ByteBuffer held = pool.acquire(40 << 10);
    long start = System.nanoTime();
    StoreException e = assertThrows(StoreException.class, () -> pool.acquire(40 << 10));
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(waited >= 150, "waited " + waited + " ms");
    String message = e.getMessage();
    assertTrue(message.contains("wanted 40960 bytes"), message);
    assertTrue(message.contains("region 65536 bytes"), message);
    assertTrue(message.contains("40960 in use by 1 buffers"), message);
    assertTrue(message.contains("largest free block 24576"), message);
    pool.release(held);
    assertEquals(0, pool.inUse());
  }

  @Test
  void aReleaseWakesAWaiter() throws Exception {
    RegionBufferPool pool = pool(64 << 10, 64 << 10, Duration.ofSeconds(10));
    ByteBuffer held = pool.acquire(64 << 10);
    AtomicReference<ByteBuffer> got = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    Thread waiter =
        new Thread(
            () -> {
              got.set(pool.acquire(1024));
              done.countDown();
            });
    waiter.start();
    assertTrue(!done.await(100, TimeUnit.MILLISECONDS), "must wait while the region is full");
    pool.release(held);
    assertTrue(done.await(5, TimeUnit.SECONDS));
    assertEquals(1024, got.get().capacity());
  }

  @Test
  void closeWakesWaitersWithAClearError() throws Exception {
    RegionBufferPool pool = pool(64 << 10, 64 << 10, Duration.ofSeconds(10));
    pool.acquire(64 << 10);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread waiter =
        new Thread(() -> failure.set(assertThrows(StoreException.class, () -> pool.acquire(1))));
    waiter.start();
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!pool.hasWaiters() && System.nanoTime() < deadline) {
      Thread.onSpinWait(); // until the waiter waits for space: then close must wake it
    }
    assertTrue(pool.hasWaiters(), "the waiter never waited");
    pool.close();
    waiter.join(5000); // the pool's own timeout is 10 s: only close can end the wait this soon
    assertFalse(waiter.isAlive(), "close did not wake the waiter");
    assertTrue(failure.get().getMessage().contains("closed"), failure.get().getMessage());
  }

  @Test
  void aWaitForSpaceEndsAtTheOperationsDeadlineNotThePoolsTimeout() throws Exception {
    RegionBufferPool pool = pool(64 << 10, 64 << 10, Duration.ofMinutes(1));
    ByteBuffer a = pool.acquire(32 << 10);
    ByteBuffer b = pool.acquire(32 << 10);
    PoolDeadlineChecks.aWaitEndsAtTheOperationsDeadline(
        pool, pool::hasWaiters, 40 << 10, () -> pool.release(b)); // 32 KiB free: not enough
    PoolDeadlineChecks.noTimeLeftNoWait(pool, 40 << 10);
    pool.release(a);
    assertEquals(0, pool.inUse());
  }

  @Test
  void misuseIsRefused() {
    RegionBufferPool pool = pool(64 << 10, 64 << 10, Duration.ofMillis(50));
    ByteBuffer buffer = pool.acquire(100);
    pool.release(buffer);
    assertThrows(IllegalArgumentException.class, () -> pool.release(buffer), "released twice");
    assertThrows(
        IllegalArgumentException.class, () -> pool.release(ByteBuffer.allocateDirect(100)));
    ByteBuffer again = pool.acquire(100);
    assertThrows(IllegalArgumentException.class, () -> pool.release(again.duplicate()));
    assertThrows(IllegalArgumentException.class, () -> pool.acquire(-1));
    StoreException tooBig = assertThrows(StoreException.class, () -> pool.acquire((64 << 10) + 1));
    assertTrue(tooBig.getMessage().contains("larger than the largest"), tooBig.getMessage());
  }

  @Test
  void freedBlocksCoalesceButNeverAcrossChunks() {
    RegionBufferPool pool = pool(3 * (16 << 10), 16 << 10, Duration.ofMillis(50));
    assertEquals(16 << 10, pool.maxBufferSize());
    List<ByteBuffer> small = new ArrayList<>();
    for (int i = 0; i < 3 * 16; i++) {
      small.add(pool.acquire(1024));
    }
    assertThrows(StoreException.class, () -> pool.acquire(1));
    small.forEach(pool::release);
    List<ByteBuffer> whole = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      whole.add(pool.acquire(16 << 10));
    }
    assertThrows(StoreException.class, () -> pool.acquire(1));
    whole.forEach(pool::release);
    assertEquals(0, pool.outstanding());
  }

  @Test
  void concurrentUseNeverHandsOutOverlappingMemory() throws Exception {
    RegionBufferPool pool = pool(1 << 20, 256 << 10, Duration.ofSeconds(5));
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      byte mark = (byte) (t + 1);
      Thread thread =
          new Thread(
              () -> {
                Random random = new Random(mark);
                try {
                  for (int i = 0; i < 2000; i++) {
                    ByteBuffer buffer = pool.acquire(1 + random.nextInt(20_000));
                    for (int j = 0; j < buffer.capacity(); j += 97) {
                      buffer.put(j, mark);
                    }
                    Thread.yield();
                    for (int j = 0; j < buffer.capacity(); j += 97) {
                      if (buffer.get(j) != mark) {
                        throw new AssertionError("overlap at " + j);
                      }
                    }
                    pool.release(buffer);
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              });
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertTrue(failures.isEmpty(), failures::toString);
    assertEquals(0, pool.inUse());
  }
}
