package dev.mooncake.jcache.backend;

import dev.mooncake.jcache.time.Deadline;
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
