package dev.mooncake.jcache.internal.backend;

import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;

/**
 * A pool that forwards every call to another: the base of a decorator (one that counts the buffers
 * out), so that none is dropped, {@link #acquireKept} included. The forms without a deadline are
 * the interface's, and go through these.
 */
public abstract class ForwardingBufferPool implements BufferPool {
  private final BufferPool delegate;

  protected ForwardingBufferPool(BufferPool delegate) {
    this.delegate = delegate;
  }

  /** Final: arrives as {@link #acquire(int, Deadline)}, so an override of that covers it. */
  @Override
  public final ByteBuffer acquire(int minCapacity) {
    return acquire(minCapacity, Deadline.none());
  }

  /** Final: arrives as {@link #acquireKept(int, Deadline)}, so an override of that covers it. */
  @Override
  public final ByteBuffer acquireKept(int minCapacity) {
    return acquireKept(minCapacity, Deadline.none());
  }

  @Override
  public ByteBuffer acquire(int minCapacity, Deadline deadline) {
    return delegate.acquire(minCapacity, deadline);
  }

  @Override
  public ByteBuffer acquireKept(int minCapacity, Deadline deadline) {
    return delegate.acquireKept(minCapacity, deadline);
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
