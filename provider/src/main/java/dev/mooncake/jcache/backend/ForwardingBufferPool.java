package dev.mooncake.jcache.backend;

import java.nio.ByteBuffer;

/**
 * A pool that forwards every call to another: the base of a decorator (one that counts the buffers
 * out), so that none is dropped, {@link #acquireKept} included.
 */
public abstract class ForwardingBufferPool implements BufferPool {
  private final BufferPool delegate;

  protected ForwardingBufferPool(BufferPool delegate) {
    this.delegate = delegate;
  }

  @Override
  public ByteBuffer acquire(int minCapacity) {
    return delegate.acquire(minCapacity);
  }

  @Override
  public ByteBuffer acquireKept(int minCapacity) {
    return delegate.acquireKept(minCapacity);
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
