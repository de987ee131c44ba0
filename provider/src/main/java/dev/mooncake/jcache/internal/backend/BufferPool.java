package dev.mooncake.jcache.internal.backend;

import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;

/**
 * Direct buffers that a store can move bytes from and into without another copy. For Mooncake they
 * are carved out of one pinned, registered region; for the in-process store they are plain pooled
 * direct buffers.
 */
public interface BufferPool {

  /**
   * A direct buffer with {@code position 0} and {@code limit == capacity >= minCapacity}. May wait
   * for space, at most until the operation's {@code deadline} (and never longer than the pool's own
   * bound); throws {@link StoreException} naming the sizes when none can be had by then.
   */
  ByteBuffer acquire(int minCapacity, Deadline deadline);

  /** {@link #acquire(int, Deadline)} outside any operation: waits at most the pool's own bound. */
  default ByteBuffer acquire(int minCapacity) {
    return acquire(minCapacity, Deadline.none());
  }

  /**
   * {@link #acquire} for a buffer its owner keeps across calls and may reuse right after a call
   * failed (the zero-copy API's): a store never lets a call it gave up on work on such a buffer,
   * only on a copy of it. No default: a decorator must forward it ({@link ForwardingBufferPool}).
   */
  ByteBuffer acquireKept(int minCapacity, Deadline deadline);

  /** {@link #acquireKept(int, Deadline)} outside any operation. */
  default ByteBuffer acquireKept(int minCapacity) {
    return acquireKept(minCapacity, Deadline.none());
  }

  /**
   * Gives a buffer obtained from {@link #acquire} or {@link #acquireKept} back. Releasing twice is
   * a bug.
   */
  void release(ByteBuffer buffer);

  /** The largest buffer {@link #acquire} can ever hand out. */
  long maxBufferSize();
}
