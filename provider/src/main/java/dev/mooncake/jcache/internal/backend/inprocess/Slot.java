package dev.mooncake.jcache.internal.backend.inprocess;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One stored object: its off-heap bytes and the little state Mooncake keeps per object.
 *
 * <p><b>Lifetime.</b> The memory is reference counted. The table holds one reference while the slot
 * is linked (the <em>owner</em> reference); the writer holds one while it copies the value in;
 * every reader holds one while it copies the value out. Whoever drops the count to zero frees the
 * memory (gives it back to {@link SegmentMemory}), so a remove or an eviction racing a read never
 * reuses bytes the read still copies: the read finishes on intact memory and the last one out gives
 * it back, microseconds later. A reader that finds the count already at zero (or the slot unlinked)
 * treats the object as absent, exactly as if it had looked a moment later. Readers take no lock:
 * acquiring is one CAS on this slot.
 *
 * <p><b>States.</b> {@code WRITING} while the put copies in (reads answer REPLICA_IS_NOT_READY),
 * then {@code READY}, then {@code GONE} once unlinked. Only the thread that removes the slot from
 * the table's map marks it gone and drops the owner reference, so that happens exactly once.
 */
final class Slot {
  private static final int WRITING = 0;
  private static final int READY = 1;
  private static final int GONE = 2;

  private static final AtomicIntegerFieldUpdater<Slot> STATE =
      AtomicIntegerFieldUpdater.newUpdater(Slot.class, "state");

  final String key;

  /** The value's bytes; the memory may be larger (its size class). */
  final int size;

  final Pin pin;
  private final ByteBuffer memory;
  private final SegmentMemory owner;
  private final AtomicInteger refs = new AtomicInteger(2); // owner + writer
  private volatile int state = WRITING;

  /**
   * The store clock's nanos (Ticker#nanos) until which a read lease holds; also the eviction order
   * (oldest first).
   */
  private volatile long leaseUntil;

  /**
   * A slot being written: the caller holds the writer reference and must {@link #release} it. The
   * memory goes back to {@code owner} when the last reference is dropped.
   */
  Slot(String key, ByteBuffer memory, int size, SegmentMemory owner, Pin pin, long now) {
    if (size > memory.capacity()) {
      throw new IllegalArgumentException(size + " bytes do not fit " + memory.capacity());
    }
    this.key = key;
    this.memory = memory;
    this.size = size;
    this.owner = owner;
    this.pin = pin;
    // Like Mooncake's PutEnd: no lease yet, but the put counts as the last use for eviction.
    this.leaseUntil = now;
  }

  boolean isWriting() {
    return state == WRITING;
  }

  boolean isReady() {
    return state == READY;
  }

  /** Copies {@code value[position, position + size)} in; the writer still holds its reference. */
  void copyFrom(ByteBuffer value) {
    memory.put(0, value, value.position(), size);
  }

  /** The put is complete; false when the slot was unlinked meanwhile (the store was closed). */
  boolean markReady() {
    return STATE.compareAndSet(this, WRITING, READY);
  }

  /** Marks the slot unlinked; called once, by the thread that removed it from the map. */
  void markGone() {
    state = GONE;
  }

  /** Takes a reader reference; false when the memory is freed or being unlinked. */
  boolean tryAcquire() {
    for (; ; ) {
      int count = refs.get();
      if (count == 0) {
        return false;
      }
      if (refs.compareAndSet(count, count + 1)) {
        if (state == GONE) {
          release();
          return false;
        }
        return true;
      }
    }
  }

  /** The segment bytes this slot takes: its memory's capacity. */
  int footprint() {
    return memory.capacity();
  }

  /** Drops one reference (owner, writer or reader); the last one gives the memory back. */
  void release() {
    int count = refs.decrementAndGet();
    if (count == 0) {
      owner.recycle(memory);
    } else if (count < 0) {
      throw new IllegalStateException("slot " + key + " released more often than acquired");
    }
  }

  /** Copies the value into {@code destination[position, position + size)}; needs a reference. */
  void copyTo(ByteBuffer destination) {
    destination.put(destination.position(), memory, 0, size);
  }

  /** Grants (or extends) a read lease of {@code ttlNanos} from {@code now}. */
  void grantLease(long now, long ttlNanos) {
    long until = now + ttlNanos;
    if (until - leaseUntil > 0) {
      leaseUntil = until; // a racing grant may win with a slightly earlier end: harmless
    }
  }

  boolean leaseHeld(long now) {
    return leaseUntil - now > 0;
  }

  long leaseUntil() {
    return leaseUntil;
  }
}
