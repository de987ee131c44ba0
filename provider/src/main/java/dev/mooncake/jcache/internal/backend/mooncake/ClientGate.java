package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.nativebridge.ClosedHandleException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether a store's client is still open: calls are refused once it is closed, and the bridge's
 * "handle closed" ({@link ClosedHandleException}, a call racing with close) becomes a {@link
 * StoreException} naming the store, here alone.
 */
final class ClientGate {
  /** A call into the client that may find it closed. */
  @FunctionalInterface
  interface ClientCall<T> {
    T call();
  }

  private final String description;
  private final AtomicBoolean closed = new AtomicBoolean();

  ClientGate(String description) {
    this.description = description;
  }

  StoreException closedException(Throwable cause) {
    return new StoreException("the Mooncake store is closed: " + description, cause);
  }

  void ensureOpen() {
    if (closed.get()) {
      throw closedException(null);
    }
  }

  /**
   * A call on the client: refused once closed, a close racing with it named as this store's.
   * Anything else the bridge throws (a bad argument, a released region, a full handle table) goes
   * up as it is.
   */
  <T> T call(ClientCall<T> call) {
    ensureOpen();
    try {
      return call.call();
    } catch (ClosedHandleException e) {
      throw closedException(e);
    }
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Closes the gate; answers whether this call closed it (false: it was closed already). */
  boolean close() {
    return closed.compareAndSet(false, true);
  }
}
