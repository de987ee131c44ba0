package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a caller's buffer reaches Mooncake. Values and destinations inside the region go as they are.
 * Heap buffers are copied through a region buffer. A direct buffer outside the region goes as it is
 * over TCP (which does not check), and over RDMA is registered for the call's duration ({@link
 * CallerRegistrations#registerForCall}).
 *
 * <p>A bounded call given up on still reads or writes its buffer after the caller got its
 * exception, so a bounded call works on the caller's buffer only when the pool can hold it (a
 * region buffer its owner gives back after a failed call: the pool frees it only when the call
 * returns, {@link RegionBufferPool#hold}); on any other buffer it works on a copy, released when
 * the call returns ({@link Held#abandon}). Holding instead of copying keeps a bounded call at one
 * region buffer per value, as a direct call is: with a copy each, 1 MiB batches ran the region dry.
 */
final class BufferStaging {
  private static final Logger LOG = LoggerFactory.getLogger(BufferStaging.class);

  /** What a call reads or writes, handed to a call given up on (released when it returns). */
  interface Held {
    /** Marks it given up on and answers what releases it; {@code close} then does nothing. */
    Runnable abandon();
  }

  static final Held NOTHING_HELD = () -> () -> {};

  private final RegionBufferPool pool;
  private final CallerRegistrations registrations;

  BufferStaging(RegionBufferPool pool, CallerRegistrations registrations) {
    this.pool = pool;
    this.registrations = registrations;
  }

  /**
   * Stages one buffer: a {@code source} is read by the call (a put's value), else written (a get's
   * destination); {@code bound}: the call may be given up on. A copy waits for region space at most
   * until the operation's {@code deadline}.
   */
  Transfer stage(ByteBuffer caller, boolean source, boolean bound, Deadline deadline) {
    return new Transfer(caller, source, bound, deadline);
  }

  /** Stages the buffers of one batch call (see {@link #stage}). */
  BatchTransfer stage(ByteBuffer[] callers, boolean source, boolean bound, Deadline deadline) {
    return new BatchTransfer(callers, source, bound, deadline);
  }

  /** One buffer as Mooncake takes it: as is, held, registered for the call, or through a copy. */
  final class Transfer implements AutoCloseable, Held {
    final ByteBuffer buffer;
    final int offset;
    final int length;
    private final ByteBuffer staged;
    private final AutoCloseable registration;
    private final Runnable hold;
    private boolean abandoned;

    private Transfer(ByteBuffer caller, boolean source, boolean bound, Deadline deadline) {
      int position = caller.position();
      int remaining = caller.remaining();
      if (!source && caller.isReadOnly()) {
        throw new ReadOnlyBufferException();
      }
      Runnable held = bound ? pool.hold(caller) : null;
      if (caller.isDirect() && (!bound || held != null)) {
        this.buffer = caller;
        this.offset = position;
        this.length = remaining;
        this.staged = null;
        this.hold = held;
        this.registration = held != null ? null : registrations.registerForCall(caller);
      } else {
        this.staged = pool.acquire(remaining, deadline);
        if (source) {
          staged.put(0, caller, position, remaining);
        }
        this.buffer = staged;
        this.offset = 0;
        this.length = remaining;
        this.hold = null;
        this.registration = null;
      }
    }

    /** Copies {@code count} bytes read into a staging buffer back to the caller's. */
    void deliver(ByteBuffer caller, long count) {
      if (staged != null && count > 0) {
        caller.put(caller.position(), staged, 0, (int) Math.min(count, length));
      }
    }

    @Override
    public Runnable abandon() {
      abandoned = true;
      return this::release;
    }

    @Override
    public void close() {
      if (!abandoned) {
        release();
      }
    }

    private void release() {
      if (staged != null) {
        pool.release(staged);
      }
      if (hold != null) {
        hold.run();
      }
      if (registration != null) {
        try {
          registration.close();
        } catch (Exception e) {
          LOG.warn("unregistering a caller buffer failed", e);
        }
      }
    }
  }

  /** The transfers of one batch call, as the parallel arrays the bridge takes. */
  final class BatchTransfer implements AutoCloseable, Held {
    private final List<Transfer> transfers;
    final ByteBuffer[] buffers;
    final int[] offsets;
    final int[] lengths;

    private BatchTransfer(ByteBuffer[] callers, boolean source, boolean bound, Deadline deadline) {
      transfers = new ArrayList<>(callers.length);
      buffers = new ByteBuffer[callers.length];
      offsets = new int[callers.length];
      lengths = new int[callers.length];
      try {
        for (int i = 0; i < callers.length; i++) {
          Transfer transfer = new Transfer(callers[i], source, bound, deadline);
          transfers.add(transfer);
          buffers[i] = transfer.buffer;
          offsets[i] = transfer.offset;
          lengths[i] = transfer.length;
        }
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }

    /** {@link Transfer#deliver} for each: {@code counts[i]} bytes into {@code callers[i]}. */
    void deliver(ByteBuffer[] callers, long[] counts) {
      for (int i = 0; i < callers.length; i++) {
        transfers.get(i).deliver(callers[i], counts[i]);
      }
    }

    @Override
    public Runnable abandon() {
      List<Runnable> releases = new ArrayList<>(transfers.size());
      transfers.forEach(transfer -> releases.add(transfer.abandon()));
      return () -> releases.forEach(Runnable::run);
    }

    @Override
    public void close() {
      transfers.forEach(Transfer::close);
    }
  }
}
