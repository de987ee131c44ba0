package dev.mooncake.jcache.internal.backend;

import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;

/**
 * A store that forwards every call to another: the base of a decorator (the manager's gate), which
 * overrides only what it changes and so cannot drop a method, {@link #inProcess} included. The
 * overloads outside any operation are final here and go through this object's own deadline
 * overloads, so a decorator that changes those changes these too.
 */
public abstract class ForwardingObjectStore implements ObjectStore {
  private final ObjectStore delegate;

  protected ForwardingObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  /** The store calls are forwarded to. */
  protected final ObjectStore delegate() {
    return delegate;
  }

  @Override
  public int put(String key, ByteBuffer value, Deadline deadline) {
    return delegate.put(key, value, deadline);
  }

  @Override
  public final int put(String key, ByteBuffer value) {
    return put(key, value, Deadline.none());
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline) {
    return delegate.batchPut(keys, values, deadline);
  }

  @Override
  public final int[] batchPut(String[] keys, ByteBuffer[] values) {
    return batchPut(keys, values, Deadline.none());
  }

  @Override
  public long getInto(String key, ByteBuffer destination, Deadline deadline) {
    return delegate.getInto(key, destination, deadline);
  }

  @Override
  public final long getInto(String key, ByteBuffer destination) {
    return getInto(key, destination, Deadline.none());
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
    return delegate.batchGetInto(keys, destinations, deadline);
  }

  @Override
  public final long[] batchGetInto(String[] keys, ByteBuffer[] destinations) {
    return batchGetInto(keys, destinations, Deadline.none());
  }

  @Override
  public int isExist(String key, Deadline deadline) {
    return delegate.isExist(key, deadline);
  }

  @Override
  public final int isExist(String key) {
    return isExist(key, Deadline.none());
  }

  @Override
  public int[] batchIsExist(String[] keys, Deadline deadline) {
    return delegate.batchIsExist(keys, deadline);
  }

  @Override
  public final int[] batchIsExist(String[] keys) {
    return batchIsExist(keys, Deadline.none());
  }

  @Override
  public long getSize(String key, Deadline deadline) {
    return delegate.getSize(key, deadline);
  }

  @Override
  public final long getSize(String key) {
    return getSize(key, Deadline.none());
  }

  @Override
  public int remove(String key, boolean force, Deadline deadline) {
    return delegate.remove(key, force, deadline);
  }

  @Override
  public final int remove(String key, boolean force) {
    return remove(key, force, Deadline.none());
  }

  @Override
  public long removeByRegex(String pattern, boolean force, Deadline deadline) {
    return delegate.removeByRegex(pattern, force, deadline);
  }

  @Override
  public final long removeByRegex(String pattern, boolean force) {
    return removeByRegex(pattern, force, Deadline.none());
  }

  @Override
  public BufferPool buffers() {
    return delegate.buffers();
  }

  @Override
  public boolean inProcess() {
    return delegate.inProcess();
  }

  @Override
  public String describe() {
    return delegate.describe();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
