package dev.mooncake.jcache.store.inprocess;

import dev.mooncake.jcache.store.BufferPool;
import dev.mooncake.jcache.store.StoreException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Pooled direct staging buffers, the in-process stand-in for Mooncake's registered local buffer.
 *
 * <p>Capacities are rounded up to a power of two (at least {@link #MIN_CAPACITY}, at most
 * {@link #maxBufferSize()}), and released buffers wait, per capacity, for the next acquire of that
 * class: a put or get in steady state allocates nothing. Everything allocated, idle or handed out,
 * stays within {@code local_buffer_size}; an acquire that would pass it first frees idle buffers
 * of other classes, then waits for a release up to the configured time, then fails naming the
 * sizes. One lock guards the pool; it is held for a few field updates, never while allocating.
 */
final class StagingBuffers implements BufferPool {
  static final int MIN_CAPACITY = 4096;

  private final long bound;
  private final int maxBufferSize;
  private final long waitNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  /**
   * Idle buffers by capacity class (index: ceil(log2(capacity)); classes are powers of two, the
   * capped largest one is alone in its slot), most recently released on top. An array, not a map:
   * the pool is on every store call's path, and a boxed-key map lookup showed in profiles.
   */
  @SuppressWarnings("unchecked")
  private final ArrayDeque<ByteBuffer>[] idle = new ArrayDeque[33];
  private final Set<ByteBuffer> handedOut = Collections.newSetFromMap(new IdentityHashMap<>());
  /** Bytes allocated and not freed: idle buffers, handed-out ones and allocations under way. */
  private long allocatedBytes;
  private long idleBytes;
  private boolean closed;

  StagingBuffers(long localBufferSize, long waitMillis) {
    if (localBufferSize <= 0) {
      throw new IllegalArgumentException("local_buffer_size must be > 0, got " + localBufferSize);
    }
    this.bound = localBufferSize;
    this.maxBufferSize = (int) Math.min(localBufferSize, Integer.MAX_VALUE - 8);
    this.waitNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMillis));
  }

  @Override
  public ByteBuffer acquire(int minCapacity) {
    if (minCapacity < 0) {
      throw new IllegalArgumentException("negative buffer size " + minCapacity);
    }
    if (minCapacity > maxBufferSize) {
      throw new StoreException(
          "no staging buffer of "
              + minCapacity
              + " bytes: the largest is "
              + maxBufferSize
              + " bytes (local_buffer_size "
              + Sizes.format(bound)
              + ")");
    }
    int capacity = capacityFor(minCapacity);
    ByteBuffer reused = takeOrReserve(capacity, minCapacity);
    if (reused != null) {
      return reused;
    }
    ByteBuffer fresh;
    try {
      fresh = DirectMemory.allocate(capacity);
    } catch (OutOfMemoryError e) {
      unreserve(capacity);
      throw new StoreException(
          "cannot allocate a staging buffer of "
              + capacity
              + " bytes: the JVM's direct memory is exhausted (-XX:MaxDirectMemorySize)",
          e);
    }
    lock.lock();
    try {
      handedOut.add(fresh); // even if closed meanwhile: release() then frees it
    } finally {
      lock.unlock();
    }
    return fresh;
  }

  /** An idle buffer of that capacity, or null after reserving the bytes for a new one. */
  private ByteBuffer takeOrReserve(int capacity, int minCapacity) {
    lock.lock();
    try {
      long deadline = System.nanoTime() + waitNanos;
      for (; ; ) {
        if (closed) {
          throw new StoreException("the in-process store's buffer pool is closed");
        }
        ArrayDeque<ByteBuffer> free = idle[slot(capacity)];
        if (free != null && !free.isEmpty()) {
          ByteBuffer buffer = free.pop();
          idleBytes -= capacity;
          handedOut.add(buffer);
          buffer.clear();
          return buffer;
        }
        if (allocatedBytes + capacity > bound) {
          freeIdle(allocatedBytes + capacity - bound);
        }
        if (allocatedBytes + capacity <= bound) {
          allocatedBytes += capacity;
          return null;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new StoreException(
              "no staging buffer of "
                  + minCapacity
                  + " bytes (a "
                  + capacity
                  + "-byte buffer) within "
                  + TimeUnit.NANOSECONDS.toMillis(waitNanos)
                  + " ms: "
                  + (allocatedBytes - idleBytes)
                  + " of "
                  + bound
                  + " bytes (local_buffer_size) are in use");
        }
        try {
          released.awaitNanos(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StoreException("interrupted waiting for a staging buffer of " + minCapacity
              + " bytes", e);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private void unreserve(int capacity) {
    lock.lock();
    try {
      allocatedBytes -= capacity;
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Frees idle buffers, largest first, until {@code needed} bytes are gone or none is left. */
  private void freeIdle(long needed) {
    long freed = 0;
    for (int slot = idle.length - 1; slot >= 0 && freed < needed; slot--) {
      ArrayDeque<ByteBuffer> free = idle[slot];
      while (free != null && freed < needed && !free.isEmpty()) {
        ByteBuffer buffer = free.poll();
        DirectMemory.free(buffer);
        freed += buffer.capacity();
        idleBytes -= buffer.capacity();
        allocatedBytes -= buffer.capacity();
      }
    }
  }

  private static int slot(int capacity) {
    return 32 - Integer.numberOfLeadingZeros(capacity - 1);
  }

  @Override
  public void release(ByteBuffer buffer) {
    lock.lock();
    try {
      if (buffer == null || !handedOut.remove(buffer)) {
        throw new IllegalArgumentException(
            "buffer was not acquired from this pool, or was released twice");
      }
      if (closed) {
        DirectMemory.free(buffer);
        allocatedBytes -= buffer.capacity();
        return;
      }
      buffer.clear();
      int slot = slot(buffer.capacity());
      if (idle[slot] == null) {
        idle[slot] = new ArrayDeque<>();
      }
      idle[slot].push(buffer);
      idleBytes += buffer.capacity();
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public long maxBufferSize() {
    return maxBufferSize;
  }

  /** Frees the idle buffers; buffers still handed out are freed when released. Idempotent. */
  void close() {
    lock.lock();
    try {
      closed = true;
      freeIdle(Long.MAX_VALUE);
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Bytes allocated and not yet freed (idle plus handed out). */
  long allocatedBytes() {
    lock.lock();
    try {
      return allocatedBytes;
    } finally {
      lock.unlock();
    }
  }

  /** Whether some acquire is waiting for a release (for tests). */
  boolean hasWaiters() {
    lock.lock();
    try {
      return lock.hasWaiters(released);
    } finally {
      lock.unlock();
    }
  }

  /** The capacity class of a request: a power of two, within [MIN_CAPACITY, maxBufferSize]. */
  int capacityFor(int minCapacity) {
    long wanted = Math.max(minCapacity, MIN_CAPACITY);
    long power = Long.highestOneBit(wanted);
    if (power < wanted) {
      power <<= 1;
    }
    return (int) Math.min(power, maxBufferSize);
  }
}
