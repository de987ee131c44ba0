package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.internal.backend.BufferPool;
import dev.mooncake.jcache.internal.backend.LockedRead;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import dev.mooncake.jcache.nativebridge.NativeRegion;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Direct buffers carved out of one {@link NativeRegion}: first fit over a free list of
 * 64-byte-aligned blocks, coalesced on release. The region is split into chunks of at most {@link
 * #DEFAULT_CHUNK} bytes (a ByteBuffer's capacity is an int), and no buffer spans two chunks. When
 * no block fits, {@link #acquire} waits for releases until the operation's deadline (at most the
 * operation timeout), then throws {@link StoreException} naming the sizes. Every buffer handed out
 * is a slice of a chunk view, so the region's memory stays mapped while any of them is reachable
 * (see {@link NativeRegion}).
 */
final class RegionBufferPool implements BufferPool {
  static final long DEFAULT_CHUNK = 1L << 30;
  static final int ALIGNMENT = 64;
  // A wait parks a real thread, so its own bound is real time; the operation's deadline (on the
  // injected ticker) bounds it too.
  private static final Ticker CLOCK = Ticker.system();

  private final NativeRegion region;
  private final long chunkSize;
  private final ByteBuffer[] chunks;
  private final long timeoutNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  private final TreeMap<Long, Long> free = new TreeMap<>(); // offset -> length; guarded by lock
  private final Map<ByteBuffer, Block> outstanding = new IdentityHashMap<>(); // guarded by lock

  /** Every block not free (handed out, or released while held), by offset; guarded by lock. */
  private final TreeMap<Long, Block> taken = new TreeMap<>();

  private long inUse; // guarded by lock
  private boolean closed; // guarded by lock

  RegionBufferPool(NativeRegion region, Duration timeout) {
    this(region, timeout, DEFAULT_CHUNK);
  }

  RegionBufferPool(NativeRegion region, Duration timeout, long chunkSize) {
    if (chunkSize <= 0 || chunkSize > Integer.MAX_VALUE || chunkSize % ALIGNMENT != 0) {
      throw new IllegalArgumentException("chunk size " + chunkSize);
    }
    this.region = region;
    this.chunkSize = chunkSize;
    this.timeoutNanos = Math.max(0, timeout.toNanos());
    int count = (int) ((region.size() + chunkSize - 1) / chunkSize);
    this.chunks = new ByteBuffer[count];
    for (int i = 0; i < count; i++) {
      long offset = i * chunkSize;
      int length = (int) Math.min(chunkSize, region.size() - offset);
      chunks[i] = region.view(offset, length);
      free.put(offset, (long) length);
    }
  }

  /** One block handed out; its fields are guarded by the pool's lock. */
  private static final class Block {
    final long offset;
    final long size;

    /** Handed out by {@link #acquireKept}: its owner may reuse it after a failed call. */
    final boolean kept;

    /** Calls given up on that may still read or write it ({@link #hold}). */
    int holds;

    /** Given back by its owner while held: freed when the last hold ends. */
    boolean released;

    Block(long offset, long size, boolean kept) {
      this.offset = offset;
      this.size = size;
      this.kept = kept;
    }
  }

  @Override
  public ByteBuffer acquire(int minCapacity, Deadline deadline) {
    return acquire(minCapacity, false, deadline);
  }

  @Override
  public ByteBuffer acquireKept(int minCapacity, Deadline deadline) {
    return acquire(minCapacity, true, deadline);
  }

  /**
   * Waits for space at most until {@code operation}'s deadline, read again after every wake-up (a
   * release that does not fit wakes the waiter too), and never past the pool's own timeout.
   */
  private ByteBuffer acquire(int minCapacity, boolean kept, Deadline operation) {
    if (minCapacity < 0) {
      throw new IllegalArgumentException("negative capacity " + minCapacity);
    }
    if (minCapacity > maxBufferSize()) {
      throw new StoreException(
          "a buffer of "
              + minCapacity
              + " bytes is larger than the largest the transfer region can hand out ("
              + maxBufferSize()
              + " of its "
              + region.size()
              + " bytes; raise local_buffer_size)");
    }
    long size = Math.max(ALIGNMENT, (minCapacity + (long) ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT);
    size = Math.min(size, chunkSize);
    lock.lock();
    try {
      ByteBuffer buffer = take(minCapacity, size, kept);
      if (buffer == null) { // wait for a release: the pool's time, or less if the operation's ends
        long blockSize = size;
        buffer =
            Deadline.afterNanos(timeoutNanos, CLOCK)
                .earlier(operation)
                .retryOn(released, () -> take(minCapacity, blockSize, kept));
      }
      if (buffer == null) {
        throw new StoreException(exhausted(minCapacity, operation));
      }
      return buffer;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException(
          "interrupted while waiting for " + minCapacity + " bytes of the transfer region", e);
    } finally {
      lock.unlock();
    }
  }

  /** A buffer of {@code size} bytes taken from the region now (lock held), or null if none fits. */
  private ByteBuffer take(int minCapacity, long size, boolean kept) {
    if (closed) {
      throw new StoreException("the Mooncake store's transfer region is closed");
    }
    Long offset = takeFirstFit(size);
    if (offset == null) {
      return null;
    }
    int chunk = (int) (offset / chunkSize);
    ByteBuffer buffer = chunks[chunk].slice((int) (offset % chunkSize), minCapacity);
    Block block = new Block(offset, size, kept);
    outstanding.put(buffer, block);
    taken.put(offset, block);
    inUse += size;
    return buffer;
  }

  private String exhausted(int wanted, Deadline operation) {
    long largest = 0;
    for (long length : free.values()) {
      largest = Math.max(largest, length);
    }
    return "the transfer region is exhausted: wanted "
        + wanted
        + " bytes, waited "
        + (operation.expired()
            ? "until the operation's deadline (" + operation.describe() + ")"
            : TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms")
        + "; region "
        + region.size()
        + " bytes, "
        + inUse
        + " in use by "
        + taken.size()
        + " buffers, largest free block "
        + largest
        + " bytes (raise local_buffer_size, or release buffers sooner)";
  }

  /** First fit: removes and returns the offset of a block of {@code size}, or null. */
  private Long takeFirstFit(long size) {
    for (Map.Entry<Long, Long> block : free.entrySet()) {
      if (block.getValue() >= size) {
        long offset = block.getKey();
        long length = block.getValue();
        free.remove(offset);
        if (length > size) {
          free.put(offset + size, length - size);
        }
        return offset;
      }
    }
    return null;
  }

  @Override
  public void release(ByteBuffer buffer) {
    lock.lock();
    try {
      Block block = outstanding.remove(buffer);
      if (block == null) {
        throw new IllegalArgumentException(
            "this buffer was not acquired from this pool, or was already released");
      }
      if (block.holds > 0) {
        block.released = true; // a call given up on still uses it: freed when that call returns
      } else {
        free(block);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Keeps the block that {@code view} lies in from being handed out again until the answered
   * runnable runs, even if its owner releases it before: a Mooncake call given up on may still read
   * or write it (see {@link BufferStaging}). Answers null when {@code view} is not inside a block
   * of this pool that its owner gives back after a failed call (outside the region, or a
   * {@linkplain #acquireKept kept} buffer): the call must then work on a copy.
   */
  Runnable hold(ByteBuffer view) {
    if (!view.isDirect() || view.capacity() == 0 || !region.contains(view)) {
      return null;
    }
    long start = NativeRegion.addressOf(view) - region.address();
    lock.lock();
    try {
      Map.Entry<Long, Block> entry = taken.floorEntry(start);
      Block block = entry == null ? null : entry.getValue();
      if (block == null
          || start + view.capacity() > block.offset + block.size
          || block.released
          || block.kept) {
        return null;
      }
      block.holds++;
      AtomicBoolean ended = new AtomicBoolean();
      return () -> {
        if (ended.compareAndSet(false, true)) {
          endHold(block);
        }
      };
    } finally {
      lock.unlock();
    }
  }

  private void endHold(Block block) {
    lock.lock();
    try {
      if (--block.holds == 0 && block.released) {
        free(block);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Gives a block back to the free list, coalesced with its neighbours; under the lock. */
  private void free(Block block) {
    taken.remove(block.offset);
    long offset = block.offset;
    long length = block.size;
    inUse -= length;
    long chunk = offset / chunkSize;
    // Coalesce with the neighbours inside the same chunk.
    Map.Entry<Long, Long> before = free.floorEntry(offset);
    if (before != null
        && before.getKey() + before.getValue() == offset
        && before.getKey() / chunkSize == chunk) {
      free.remove(before.getKey());
      offset = before.getKey();
      length += before.getValue();
    }
    Long after = free.get(offset + length);
    if (after != null && (offset + length) / chunkSize == chunk) {
      free.remove(offset + length);
      length += after;
    }
    free.put(offset, length);
    released.signalAll();
  }

  @Override
  public long maxBufferSize() {
    return Math.min(chunkSize, region.size());
  }

  /** Bytes not free: handed out, or released while held (rounded up to the alignment). */
  long inUse() {
    return LockedRead.under(lock, () -> inUse);
  }

  /** Buffers handed out and not released (a block released while held no longer counts). */
  int outstanding() {
    return LockedRead.under(lock, () -> outstanding.size());
  }

  /** Whether a thread waits in {@link #acquire} for space (tests wait for it with this). */
  boolean hasWaiters() {
    return LockedRead.under(lock, () -> lock.hasWaiters(released));
  }

  /** Refuses further acquisitions and wakes waiters; buffers already out stay valid memory. */
  void close() {
    lock.lock();
    try {
      closed = true;
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
