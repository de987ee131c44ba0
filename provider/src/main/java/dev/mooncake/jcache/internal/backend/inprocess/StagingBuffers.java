package dev.mooncake.jcache.internal.backend.inprocess;

import dev.mooncake.jcache.internal.backend.BufferPool;
import dev.mooncake.jcache.internal.backend.LockedRead;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Pooled direct staging buffers, the in-process stand-in for Mooncake's registered local buffer.
 *
 * <p>Capacities are rounded up to a power of two (at least {@link #MIN_CAPACITY}, at most {@link
 * #maxBufferSize()}), and released buffers wait, per capacity, for the next acquire of that class:
 * a put or get in steady state allocates nothing. Everything allocated, idle or handed out, stays
 * within {@code local_buffer_size}; an acquire that would pass it first frees idle buffers of other
 * classes, then waits for a release until the operation's deadline (at most the configured time),
 * then fails naming the sizes.
 *
 * <p>Every single-key get and put takes a buffer and gives it back, so the common case takes no
 * lock: per class, a few idle buffers wait in lock-free slots ({@link #FAST_SLOTS}), and acquire
 * and release are one compare-and-set each (a lock and an identity set of handed-out buffers here
 * cost a fifth of a small get, profiled). The lock guards the rest: allocation accounting, more
 * idle buffers than the slots hold, waiting, freeing, closing. Releases are checked without an
 * identity set: a buffer released twice while idle in a fast slot, a buffer of a size this pool
 * never hands out, a heap buffer or a release with nothing handed out are caught; a buffer released
 * twice while idle in the locked lists and a foreign direct buffer of a pool size released while
 * others are out may not be.
 */
final class StagingBuffers implements BufferPool {
  static final int MIN_CAPACITY = 4096;

  /** Lock-free idle slots per capacity class. */
  static final int FAST_SLOTS = 8;

  private static final int CLASSES = 33;
  // takeOrReserveNow's answer "bytes reserved for a new buffer" (null there means "wait").
  private static final ByteBuffer RESERVED = ByteBuffer.allocate(0);
  // A wait parks a real thread, so its own bound is real time; the operation's deadline (on the
  // injected ticker) bounds it too.
  private static final Ticker CLOCK = Ticker.system();

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
  private final ArrayDeque<ByteBuffer>[] idle = new ArrayDeque[CLASSES];

  /** The lock-free idle slots: class c owns [c * FAST_SLOTS, (c + 1) * FAST_SLOTS). */
  private final AtomicReferenceArray<ByteBuffer> fast =
      new AtomicReferenceArray<>(CLASSES * FAST_SLOTS);

  private final AtomicInteger handedOut = new AtomicInteger();

  /** Acquires waiting for a release: releases then take the locked path to wake them. */
  private volatile int waiters;

  /** Bytes allocated and not freed: idle buffers, handed-out ones and allocations under way. */
  private long allocatedBytes;

  /** Bytes in {@link #idle} (not in the fast slots). */
  private long idleBytes;

  private volatile boolean closed;

  StagingBuffers(long localBufferSize, long waitMillis) {
    if (localBufferSize <= 0) {
      throw new IllegalArgumentException("local_buffer_size must be > 0, got " + localBufferSize);
    }
    this.bound = localBufferSize;
    this.maxBufferSize = (int) Math.min(localBufferSize, Integer.MAX_VALUE - 8);
    this.waitNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMillis));
  }

  /**
   * In-process calls run to their end on the caller's thread (none is given up on): a kept buffer
   * is a plain one.
   */
  @Override
  public ByteBuffer acquireKept(int minCapacity, Deadline deadline) {
    return acquire(minCapacity, deadline);
  }

  @Override
  public ByteBuffer acquire(int minCapacity, Deadline deadline) {
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
    ByteBuffer cached = takeFast(slot(capacity));
    if (cached != null) {
      handedOut.incrementAndGet();
      if (closed) {
        release(cached); // frees it
        throw closedException();
      }
      return cached.clear();
    }
    ByteBuffer reused = takeOrReserve(capacity, minCapacity, deadline);
    if (reused != null) {
      handedOut.incrementAndGet();
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
    handedOut.incrementAndGet(); // even if closed meanwhile: release() then frees it
    return fresh;
  }

  private ByteBuffer takeFast(int slot) {
    int base = slot * FAST_SLOTS;
    for (int i = base; i < base + FAST_SLOTS; i++) {
      ByteBuffer buffer = fast.get(i);
      if (buffer != null && fast.compareAndSet(i, buffer, null)) {
        return buffer;
      }
    }
    return null;
  }

  /** Parks a released buffer in a free fast slot; false when they are all taken. */
  private boolean offerFast(int slot, ByteBuffer buffer) {
    int base = slot * FAST_SLOTS;
    for (int i = base; i < base + FAST_SLOTS; i++) {
      if (fast.get(i) == null && fast.compareAndSet(i, null, buffer)) {
        return true;
      }
    }
    return false;
  }

  private boolean idleInFastSlots(int slot, ByteBuffer buffer) {
    int base = slot * FAST_SLOTS;
    for (int i = base; i < base + FAST_SLOTS; i++) {
      if (fast.get(i) == buffer) {
        return true;
      }
    }
    return false;
  }

  private StoreException closedException() {
    return new StoreException("the in-process store's buffer pool is closed");
  }

  /**
   * An idle buffer of that capacity, or null after reserving the bytes for a new one. Waits for a
   * release at most until {@code operation}'s deadline (read again after every wake-up) and the
   * configured time.
   */
  private ByteBuffer takeOrReserve(int capacity, int minCapacity, Deadline operation) {
    lock.lock();
    // Set before looking at the fast slots: a release that parks a buffer there after our look
    // sees it and wakes us (both sides write, then read, volatile state).
    waiters++;
    try {
      ByteBuffer taken =
          Deadline.afterNanos(waitNanos, CLOCK)
              .earlier(operation)
              .retryOn(released, () -> takeOrReserveNow(capacity));
      if (taken == null) {
        throw new StoreException(
            "no staging buffer of "
                + minCapacity
                + " bytes (a "
                + capacity
                + "-byte buffer) "
                + (operation.expired()
                    ? "by the operation's deadline (" + operation.describe() + ")"
                    : "within " + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms")
                + ": "
                + (allocatedBytes - idleBytes - fastBytes())
                + " of "
                + bound
                + " bytes (local_buffer_size) are in use");
      }
      return taken == RESERVED ? null : taken;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException(
          "interrupted waiting for a staging buffer of " + minCapacity + " bytes", e);
    } finally {
      waiters--;
      lock.unlock();
    }
  }

  /**
   * An idle buffer of that capacity, or {@link #RESERVED} after reserving the bytes for a new one,
   * or null when neither can be had now (lock held).
   */
  private ByteBuffer takeOrReserveNow(int capacity) {
    if (closed) {
      throw closedException();
    }
    int slot = slot(capacity);
    ArrayDeque<ByteBuffer> free = idle[slot];
    if (free != null && !free.isEmpty()) {
      ByteBuffer buffer = free.pop();
      idleBytes -= capacity;
      buffer.clear();
      return buffer;
    }
    ByteBuffer cached = takeFast(slot); // released meanwhile
    if (cached != null) {
      return cached.clear();
    }
    if (allocatedBytes + capacity > bound) {
      freeIdle(allocatedBytes + capacity - bound);
    }
    if (allocatedBytes + capacity <= bound) {
      allocatedBytes += capacity;
      return RESERVED;
    }
    return null;
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

  /**
   * Frees idle buffers, largest first, until {@code needed} bytes are gone or none is left. Holds
   * the lock.
   */
  private void freeIdle(long needed) {
    long freed = 0;
    for (int slot = idle.length - 1; slot >= 0 && freed < needed; slot--) {
      ArrayDeque<ByteBuffer> free = idle[slot];
      while (free != null && freed < needed && !free.isEmpty()) {
        ByteBuffer buffer = free.poll();
        idleBytes -= buffer.capacity();
        freed += free(buffer);
      }
      for (ByteBuffer buffer; freed < needed && (buffer = takeFast(slot)) != null; ) {
        freed += free(buffer);
      }
    }
  }

  private int free(ByteBuffer buffer) {
    DirectMemory.free(buffer);
    allocatedBytes -= buffer.capacity();
    return buffer.capacity();
  }

  /** Bytes parked in the fast slots (a racy sum: for messages). */
  private long fastBytes() {
    long bytes = 0;
    for (int i = 0; i < fast.length(); i++) {
      ByteBuffer buffer = fast.get(i);
      bytes += buffer == null ? 0 : buffer.capacity();
    }
    return bytes;
  }

  private static int slot(int capacity) {
    return 32 - Integer.numberOfLeadingZeros(capacity - 1);
  }

  @Override
  public void release(ByteBuffer buffer) {
    int slot = checkReleased(buffer);
    if (waiters == 0 && !closed && offerFast(slot, buffer)) {
      if (closed || waiters > 0) {
        lock.lock(); // close() or a waiting acquire may have missed the buffer just parked
        try {
          if (closed) {
            freeIdle(Long.MAX_VALUE);
          }
          released.signalAll();
        } finally {
          lock.unlock();
        }
      }
      return;
    }
    lock.lock();
    try {
      if (isIdle(idle[slot], buffer)) {
        handedOut.incrementAndGet();
        throw new IllegalArgumentException("buffer was released twice");
      }
      if (closed) {
        free(buffer);
        return;
      }
      buffer.clear();
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

  /** Identity, not ArrayDeque.contains: ByteBuffer.equals compares contents. */
  private static boolean isIdle(ArrayDeque<ByteBuffer> list, ByteBuffer buffer) {
    if (list != null) {
      for (ByteBuffer idle : list) {
        if (idle == buffer) {
          return true;
        }
      }
    }
    return false;
  }

  /** The class of a buffer being released; throws for buffers this pool cannot have handed out. */
  private int checkReleased(ByteBuffer buffer) {
    if (buffer == null
        || !buffer.isDirect()
        || capacityFor(buffer.capacity()) != buffer.capacity()) {
      throw new IllegalArgumentException("buffer was not acquired from this pool");
    }
    int slot = slot(buffer.capacity());
    if (idleInFastSlots(slot, buffer)) {
      throw new IllegalArgumentException("buffer was released twice");
    }
    for (int out = handedOut.get(); ; out = handedOut.get()) {
      if (out <= 0) {
        throw new IllegalArgumentException(
            "buffer was not acquired from this pool, or was released twice");
      }
      if (handedOut.compareAndSet(out, out - 1)) {
        return slot;
      }
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
    return LockedRead.under(lock, () -> allocatedBytes);
  }

  /** Whether some acquire is waiting for a release (for tests). */
  boolean hasWaiters() {
    return LockedRead.under(lock, () -> lock.hasWaiters(released));
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
