package dev.mooncake.jcache.internal.backend;

import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;

/**
 * A pool that forwards every call to another: the base of a decorator (one that counts the buffers
 * out), so that none is dropped, {@link #acquireKept} included. Every acquisition arrives at {@link
 * #acquire(int, boolean, Deadline)}, the one method a decorator overrides to change them.
 */
public abstract class ForwardingBufferPool implements BufferPool {
  private final BufferPool delegate;

  protected ForwardingBufferPool(BufferPool delegate) {
    this.delegate = delegate;
  }

  /** Final: arrives as {@link #acquire(int, boolean, Deadline)} too. */
  @Override
  public final ByteBuffer acquire(int minCapacity) {
    return acquire(minCapacity, Deadline.none());
  }

  /** Final: arrives as {@link #acquire(int, boolean, Deadline)} too. */
  @Override
  public final ByteBuffer acquireKept(int minCapacity) {
    return acquireKept(minCapacity, Deadline.none());
  }

  /**
   * Final: arrives as {@link #acquire(int, boolean, Deadline)}, so an override of that covers it.
   */
  @Override
  public final ByteBuffer acquire(int minCapacity, Deadline deadline) {
    return acquire(minCapacity, false, deadline);
  }

  /**
   * Final: arrives as {@link #acquire(int, boolean, Deadline)}, so an override of that covers it.
   */
  @Override
  public final ByteBuffer acquireKept(int minCapacity, Deadline deadline) {
    return acquire(minCapacity, true, deadline);
  }

  /**
   * Both acquisitions, {@code kept} telling them apart: the one method a decorator overrides to
   * change how buffers are handed out.
   */
  protected ByteBuffer acquire(int minCapacity, boolean kept, Deadline deadline) {
    return kept
        ? delegate.acquireKept(minCapacity, deadline)
        : delegate.acquire(minCapacity, deadline);
  }

  @Override
  public void release(ByteBuffer buffer) {
    delegate.release(buffer);
  }

  @Override
  public long maxBufferSize() {
    return delegate.maxBufferSize();
  }
}
