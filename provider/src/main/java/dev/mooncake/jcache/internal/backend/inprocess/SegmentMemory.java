package dev.mooncake.jcache.internal.backend.inprocess;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The direct memory behind the in-process segment's objects. Buffers come in {@link SizeClasses
 * size classes}; a buffer whose object is gone goes back to an idle list of its class instead of to
 * the allocator, and the next put of a similar size takes it. In steady state (a replace frees one
 * buffer and needs one of the same class) a put allocates nothing: no {@code malloc}, no zeroing,
 * no first-touch page faults, no {@code Cleaner}. Those cost more than the copy itself for large
 * values (profiled: a write-heavy mix of 1 MiB values spent most of its time in them).
 *
 * <p>Idle buffers are bounded twice: by {@code idleLimit} (so a cache that shrinks gives memory
 * back to the system) and, through {@link ObjectTable}, by the segment: linked objects plus idle
 * buffers never exceed {@code global_segment_size}; a put that needs fresh memory first frees idle
 * buffers of other classes. Each class's list has its own monitor, held for a push or a pop.
 */
final class SegmentMemory {
  private final long idleLimit;

  @SuppressWarnings("unchecked")
  private final ArrayDeque<ByteBuffer>[] idle = new ArrayDeque[SizeClasses.COUNT];

  private final AtomicLong idleBytes = new AtomicLong();
  private volatile boolean closed;

  SegmentMemory(long idleLimit) {
    this.idleLimit = idleLimit;
    for (int i = 0; i < idle.length; i++) {
      idle[i] = new ArrayDeque<>();
    }
  }

  /** An idle buffer of exactly {@code capacity} bytes (a {@link SizeClasses} capacity), or null. */
  ByteBuffer take(int capacity) {
    int index = SizeClasses.index(capacity);
    if (index == SizeClasses.UNPOOLED || idleBytes.get() == 0) {
      return null;
    }
    ArrayDeque<ByteBuffer> list = idle[index];
    ByteBuffer buffer;
    synchronized (list) {
      buffer = list.poll();
    }
    if (buffer != null) {
      idleBytes.addAndGet(-capacity);
    }
    return buffer;
  }

  /** A new zeroed buffer; {@link OutOfMemoryError} past {@code -XX:MaxDirectMemorySize}. */
  ByteBuffer allocate(int capacity) {
    return DirectMemory.allocate(capacity);
  }

  /** Takes back the buffer of an object nobody references any more: kept idle, or freed. */
  void recycle(ByteBuffer buffer) {
    int capacity = buffer.capacity();
    int index = SizeClasses.index(capacity);
    if (index == SizeClasses.UNPOOLED || closed || !reserveIdle(capacity)) {
      DirectMemory.free(buffer);
      return;
    }
    ArrayDeque<ByteBuffer> list = idle[index];
    synchronized (list) {
      list.push(buffer); // most recently used on top: its pages are the likeliest in cache
    }
    if (closed) {
      trim(Long.MAX_VALUE); // close() may have emptied the lists before our push
    }
  }

  private boolean reserveIdle(int capacity) {
    for (long bytes = idleBytes.get(); bytes + capacity <= idleLimit; bytes = idleBytes.get()) {
      if (idleBytes.compareAndSet(bytes, bytes + capacity)) {
        return true;
      }
    }
    return false;
  }

  /** Frees idle buffers, largest classes first, until {@code bytes} are freed or none is left. */
  long trim(long bytes) {
    long freed = 0;
    for (int i = idle.length - 1; i > 0 && freed < bytes; i--) {
      ArrayDeque<ByteBuffer> list = idle[i];
      while (freed < bytes) {
        ByteBuffer buffer;
        synchronized (list) {
          buffer = list.poll();
        }
        if (buffer == null) {
          break;
        }
        idleBytes.addAndGet(-buffer.capacity());
        freed += buffer.capacity();
        DirectMemory.free(buffer);
      }
    }
    return freed;
  }

  /** Bytes held in idle buffers. */
  long idleBytes() {
    return idleBytes.get();
  }

  /** Frees every idle buffer; buffers recycled later are freed at once. */
  void close() {
    closed = true;
    trim(Long.MAX_VALUE);
  }
}
