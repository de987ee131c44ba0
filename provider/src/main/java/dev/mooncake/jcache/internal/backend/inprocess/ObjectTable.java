package dev.mooncake.jcache.internal.backend.inprocess;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-process segment: the key → {@link Slot} map, the byte budget of the segment and eviction.
 *
 * <p><b>Memory.</b> Every object gets its own direct buffer of its {@link SizeClasses size class}
 * from {@link SegmentMemory}, which keeps the buffers of gone objects for reuse. We chose this over
 * one big arena with an allocator of our own: nothing is reserved up front (the default segment is
 * 4 GiB), an object of any size can still take memory freed by other classes (idle buffers are
 * freed when fresh memory is needed), and the JVM's direct memory accounting ({@code
 * BufferPoolMXBean "direct"}) sees exactly what we hold. Reuse makes a replace allocate nothing;
 * the first fill of the segment still pays {@code allocateDirect} once per object.
 *
 * <p><b>Budget.</b> {@link #usedBytes()} counts the footprints (size-class capacities) of linked
 * objects and of puts that have reserved space, as Mooncake's master counts its allocator's blocks.
 * Linked objects plus idle buffers stay within the capacity. Memory of an object unlinked while a
 * read still copies from it comes back when that read ends, so the JVM may briefly hold a little
 * more than the capacity.
 *
 * <p><b>Eviction</b> follows Mooncake's master: once a put would take usage past the high
 * watermark, one pass evicts the objects with the oldest lease (reads renew it; a put counts as a
 * use) until usage is back under the watermark with {@code evictionRatio × capacity} to spare;
 * soft-pinned objects go only when unpinned ones do not suffice; hard-pinned objects and objects
 * still being written never go. Unlike Mooncake, an unexpired lease does not protect an object from
 * eviction: Mooncake needs the lease to keep a remote reader's transfer valid, here the reference
 * count does that, so the in-process store answers NO_AVAILABLE_HANDLE only when nothing at all can
 * be evicted. Eviction runs synchronously in the put that needs it (Mooncake's runs on a master
 * thread), under one lock that only puts needing space take; reads never do.
 */
final class ObjectTable {
  private static final Logger LOG = LoggerFactory.getLogger(ObjectTable.class);

  private static final Comparator<Candidate> EVICTION_ORDER =
      Comparator.comparing((Candidate c) -> c.slot.pin).thenComparingLong(c -> c.leaseUntil);

  private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
  private final SegmentMemory memory;
  private final long capacity;
  private final long highWatermark;
  private final long evictionChunk;
  private final AtomicLong used = new AtomicLong();
  private final AtomicLong evictions = new AtomicLong();
  private final Object evictionLock = new Object();
  private final AtomicBoolean warnedDirectLimit = new AtomicBoolean();

  ObjectTable(long capacity, double highWatermarkRatio, double evictionRatio) {
    this.capacity = capacity;
    this.highWatermark = (long) Math.floor(capacity * highWatermarkRatio);
    this.evictionChunk = (long) Math.ceil(capacity * evictionRatio);
    // Idle buffers beyond an eighth of the segment go back to the system: a cache that shrank
    // should not keep its peak.
    this.memory = new SegmentMemory(capacity / 8);
  }

  Slot get(String key) {
    return slots.get(key);
  }

  /** Links a new slot; the slot already under the key (the put then keeps it), or null. */
  Slot insert(Slot slot) {
    return slots.putIfAbsent(slot.key, slot);
  }

  /** A weakly consistent view of the linked slots, for scans. */
  Collection<Slot> slots() {
    return slots.values();
  }

  /**
   * Unlinks a slot: true for the one caller that removed it from the map, which then marks it gone,
   * returns its bytes to the budget and drops the owner reference.
   */
  boolean unlink(Slot slot) {
    if (!slots.remove(slot.key, slot)) {
      return false;
    }
    slot.markGone();
    used.addAndGet(-slot.footprint());
    slot.release();
    return true;
  }

  /** Gives back the budget of a slot that was never linked (its put found the key taken). */
  void discard(Slot slot) {
    slot.markGone();
    used.addAndGet(-slot.footprint());
    slot.release(); // owner
  }

  /**
   * A new slot of {@code size} bytes being written (the caller holds its writer reference),
   * evicting as Mooncake would to make room. Null when the segment cannot hold the object
   * (Mooncake's NO_AVAILABLE_HANDLE).
   */
  Slot newSlot(String key, int size, Pin pin, long now) {
    ByteBuffer buffer = allocate(size);
    return buffer == null ? null : new Slot(key, buffer, size, memory, pin, now);
  }

  /** Reserves the footprint of {@code size} bytes and finds memory for it; null when full. */
  private ByteBuffer allocate(int size) {
    int footprint = SizeClasses.capacity(size);
    if (!reserve(footprint)) {
      return null;
    }
    ByteBuffer reused = memory.take(footprint);
    if (reused != null) {
      return reused;
    }
    // Fresh memory: linked objects plus idle buffers stay within the segment.
    long excess = used.get() + memory.idleBytes() - capacity;
    if (excess > 0) {
      memory.trim(excess);
    }
    try {
      return memory.allocate(footprint);
    } catch (OutOfMemoryError directLimit) {
      // The JVM's direct memory limit (-XX:MaxDirectMemorySize, by default the heap size) is
      // tighter than the segment: treat it as a full pool, free and evict, and try once more.
      used.addAndGet(-footprint);
      warnDirectLimit(directLimit);
      memory.trim(Long.MAX_VALUE);
      synchronized (evictionLock) {
        evict(footprint + evictionChunk);
      }
      if (!reserve(footprint)) {
        return null;
      }
      try {
        return memory.allocate(footprint);
      } catch (OutOfMemoryError stillFull) {
        used.addAndGet(-footprint);
        return null;
      }
    }
  }

  private boolean reserve(long size) {
    if (size > capacity) {
      return false;
    }
    for (long u = used.get(); u + size <= highWatermark; u = used.get()) {
      if (used.compareAndSet(u, u + size)) {
        return true;
      }
    }
    synchronized (evictionLock) {
      long u = used.get();
      if (u + size > highWatermark) {
        evict(u + size - highWatermark + evictionChunk);
      }
      for (u = used.get(); u + size <= capacity; u = used.get()) {
        if (used.compareAndSet(u, u + size)) {
          return true;
        }
      }
      return false;
    }
  }

  /** One eviction pass freeing at least {@code target} bytes if it can; holds evictionLock. */
  private void evict(long target) {
    List<Candidate> candidates = new ArrayList<>();
    for (Slot slot : slots.values()) {
      if (slot.isReady() && slot.pin != Pin.HARD) {
        // The lease is read once: sorting on a value that changes under the sort would break it.
        candidates.add(new Candidate(slot, slot.leaseUntil()));
      }
    }
    candidates.sort(EVICTION_ORDER);
    long freed = 0;
    for (Candidate candidate : candidates) {
      if (freed >= target) {
        break;
      }
      if (unlink(candidate.slot)) {
        freed += candidate.slot.footprint();
        evictions.incrementAndGet();
      }
    }
  }

  /**
   * Unlinks every slot, those still being written included (their writer frees them), and frees the
   * idle memory; memory still read is freed when its reader lets go.
   */
  long close() {
    memory.close();
    long count = 0;
    for (Slot slot : slots.values()) {
      if (unlink(slot)) {
        count++;
      }
    }
    return count;
  }

  /** Bytes of idle memory kept for reuse. */
  long idleBytes() {
    return memory.idleBytes();
  }

  long usedBytes() {
    return used.get();
  }

  long capacityBytes() {
    return capacity;
  }

  long evictions() {
    return evictions.get();
  }

  int size() {
    return slots.size();
  }

  private void warnDirectLimit(OutOfMemoryError error) {
    if (warnedDirectLimit.compareAndSet(false, true)) {
      LOG.warn(
          "The JVM's direct memory limit was reached before the in-process segment of {} filled"
              + " ({}); evicting early. Raise -XX:MaxDirectMemorySize or lower"
              + " global_segment_size.",
          Sizes.format(capacity),
          error.getMessage());
    }
  }

  private record Candidate(Slot slot, long leaseUntil) {}
}
