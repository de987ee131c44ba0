package dev.mooncake.jcache.nativebridge;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A Java object that owns one native handle, RocksJava style: {@link #close()} frees it exactly
 * once, whichever thread calls it and however often; every use after that throws {@link
 * ClosedHandleException} naming the object. (A call racing with close gets the native side's
 * ClosedHandleException; it never touches freed memory.) Each public operation of a subclass is one
 * line: {@code return someNative(handle(), ...)}, the only "ensure open" there is.
 */
abstract class NativeOwner implements AutoCloseable {
  private final AtomicLong handle;
  private final String what;

  NativeOwner(long handle, String what) {
    if (handle == 0) {
      throw new IllegalArgumentException("null " + what + " handle");
    }
    this.handle = new AtomicLong(handle);
    this.what = what;
  }

  /** The live handle; throws {@link ClosedHandleException} once closed. */
  final long handle() {
    long value = handle.get();
    if (value == 0) {
      throw new ClosedHandleException(what + " is closed");
    }
    return value;
  }

  public final boolean isOpen() {
    return handle.get() != 0;
  }

  @Override
  public final void close() {
    long value = handle.getAndSet(0);
    if (value != 0) {
      dispose(value);
    }
  }

  /** Frees the native object; called once. */
  protected abstract void dispose(long handle);
}
