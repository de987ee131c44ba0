package dev.mooncake.jcache.internal.backend.inprocess;

import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.KIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.PoolDeadlineChecks;
import dev.mooncake.jcache.internal.backend.StoreException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The in-process store's BufferPool: classes, reuse, the local_buffer_size bound, waiting. */
class StagingBuffersTest {

  @Test
  void buffersAreDirectAtPositionZeroWithLimitAtCapacity() {
    StagingBuffers pool = new StagingBuffers(1024 * KIB, 100);
    for (int wanted : new int[] {0, 1, 4096, 4097, 5000, 65536, 100_000}) {
      ByteBuffer buffer = pool.acquire(wanted);
      assertTrue(buffer.isDirect());
      assertEquals(0, buffer.position());
      assertEquals(buffer.capacity(), buffer.limit());
      assertTrue(buffer.capacity() >= wanted);
      assertEquals(pool.capacityFor(wanted), buffer.capacity());
      pool.release(buffer);
    }
    assertEquals(4096, pool.capacityFor(1));
    assertEquals(8192, pool.capacityFor(4097));
    assertEquals(131072, pool.capacityFor(100_000));
    pool.close();
  }

  @Test
  void aReleasedBufferIsReusedForTheSameClassAndComesBackCleared() {
    StagingBuffers pool = new StagingBuffers(1024 * KIB, 100);
    ByteBuffer first = pool.acquire(5000);
    first.position(100).limit(200);
    pool.release(first);
    ByteBuffer second = pool.acquire(6000);
    assertSame(first, second);
    assertEquals(0, second.position());
    assertEquals(8192, second.limit());
    ByteBuffer other = pool.acquire(6000);
    assertNotSame(first, other);
    assertEquals(16384, pool.allocatedBytes());
    pool.close();
  }

  @Test
  void maxBufferSizeIsLocalBufferSizeCappedBelowIntegerMax() {
    assertEquals(65536, new StagingBuffers(64 * KIB, 10).maxBufferSize());
    assertEquals(Integer.MAX_VALUE - 8, new StagingBuffers(4L << 30, 10).maxBufferSize());
    StagingBuffers odd = new StagingBuffers(100_000, 10);
    assertEquals(100_000, odd.acquire(70_000).capacity()); // the class is capped at the max
    odd.close();
  }

  @Test
  void aRequestAboveTheMaximumFailsAtOnceNamingTheSizes() {
    StagingBuffers pool = new StagingBuffers(64 * KIB, 10_000);
    StoreException e = assertThrows(StoreException.class, () -> pool.acquire(64 * 1024 + 1));
    assertTrue(e.getMessage().contains("65537"), e.getMessage());
    assertTrue(e.getMessage().contains("65536"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> pool.acquire(-1));
  }

  @Test
  void theBoundIsKeptAndAnAcquireBeyondItTimesOutNamingTheSizes() {
    StagingBuffers pool = new StagingBuffers(64 * KIB, 50);
    ByteBuffer a = pool.acquire(32 * 1024);
    ByteBuffer b = pool.acquire(32 * 1024);
    long start = System.nanoTime();
    StoreException e = assertThrows(StoreException.class, () -> pool.acquire(100));
    assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50));
    assertTrue(e.getMessage().contains("100 bytes"), e.getMessage());
    assertTrue(e.getMessage().contains("65536 of 65536"), e.getMessage());
    assertEquals(64 * KIB, pool.allocatedBytes());
    pool.release(a);
    pool.release(b);
    pool.close();
  }

  @Test
  void aWaitingAcquireGetsTheBufferReleasedByAnotherThread() throws Exception {
    StagingBuffers pool = new StagingBuffers(64 * KIB, 10_000);
    ByteBuffer held = pool.acquire(64 * 1024);
    CompletableFuture<ByteBuffer> waiter =
        CompletableFuture.supplyAsync(() -> pool.acquire(60_000));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!pool.hasWaiters()) {
      assertTrue(System.nanoTime() < deadline, "the acquire never waited");
      Thread.onSpinWait();
    }
    assertEquals(false, waiter.isDone());
    pool.release(held);
    assertSame(held, waiter.get(5, TimeUnit.SECONDS));
    pool.close();
  }

  @Test
  void aWaitForABufferEndsAtTheOperationsDeadlineNotTheConfiguredTime() throws Exception {
    StagingBuffers pool = new StagingBuffers(64 * KIB, 60_000);
    ByteBuffer a = pool.acquire(32 * 1024);
    ByteBuffer b = pool.acquire(32 * 1024);
    // 40,000 bytes take a 64 KiB buffer: with 32 KiB still out there is never room for it
    PoolDeadlineChecks.aWaitEndsAtTheOperationsDeadline(
        pool, pool::hasWaiters, 40_000, () -> pool.release(b));
    PoolDeadlineChecks.noTimeLeftNoWait(pool, 40_000);
    pool.release(a);
    pool.close();
  }

  @Test
  void idleBuffersOfOtherClassesAreFreedToMakeRoom() {
    StagingBuffers pool = new StagingBuffers(64 * KIB, 10);
    pool.release(pool.acquire(32 * 1024));
    pool.release(pool.acquire(16 * 1024));
    assertEquals(48 * KIB, pool.allocatedBytes());
    ByteBuffer whole = pool.acquire(64 * 1024);
    assertEquals(64 * KIB, pool.allocatedBytes());
    pool.release(whole);
    pool.close();
  }

  @Test
  void releasingTwiceOrAForeignBufferIsCaught() {
    StagingBuffers pool = new StagingBuffers(64 * KIB, 10);
    ByteBuffer buffer = pool.acquire(10);
    pool.release(buffer);
    assertThrows(IllegalArgumentException.class, () -> pool.release(buffer));
    assertThrows(
        IllegalArgumentException.class, () -> pool.release(ByteBuffer.allocateDirect(4096)));
    assertThrows(IllegalArgumentException.class, () -> pool.release(null));
    pool.close();
  }

  @Test
  void manyEqualBuffersOfOneClassComeAndGoBeyondTheFastSlots() {
    StagingBuffers pool = new StagingBuffers(1024 * KIB, 10);
    int count = 3 * StagingBuffers.FAST_SLOTS;
    for (int round = 0; round < 3; round++) {
      List<ByteBuffer> out = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        out.add(pool.acquire(4096)); // all zeros: equal by ByteBuffer.equals, distinct objects
      }
      assertEquals(count, out.stream().map(System::identityHashCode).distinct().count());
      out.forEach(pool::release);
      assertThrows(IllegalArgumentException.class, () -> pool.release(out.get(0)));
      assertThrows(IllegalArgumentException.class, () -> pool.release(out.get(count - 1)));
    }
    assertEquals(count * 4096L, pool.allocatedBytes()); // reused, not allocated again
    pool.close();
    assertEquals(0, pool.allocatedBytes());
  }

  @Test
  void afterCloseAcquireThrowsAndReleaseFrees() {
    StagingBuffers pool = new StagingBuffers(64 * KIB, 10);
    ByteBuffer out = pool.acquire(8192);
    pool.release(pool.acquire(4096));
    pool.close();
    assertEquals(8192, pool.allocatedBytes()); // the idle one is freed, the one out is not yet
    StoreException e = assertThrows(StoreException.class, () -> pool.acquire(1));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    pool.release(out);
    assertEquals(0, pool.allocatedBytes());
    pool.close();
  }

  @Test
  void theStoreSizesItsPoolFromTheConfig() {
    try (InProcessStore store =
        InProcessStore.open(TestConfigs.buffers(256 * KIB, Duration.ofMillis(20)))) {
      assertEquals(256 * KIB, store.buffers().maxBufferSize());
      ByteBuffer all = store.buffers().acquire(256 * 1024);
      StoreException e = assertThrows(StoreException.class, () -> store.buffers().acquire(1));
      assertTrue(e.getMessage().contains("within 20 ms"), e.getMessage());
      store.buffers().release(all);
    }
  }
}
