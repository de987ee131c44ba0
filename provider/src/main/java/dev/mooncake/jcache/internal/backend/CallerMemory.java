package dev.mooncake.jcache.internal.backend;

import java.nio.ByteBuffer;

/**
 * Zero-copy support for callers that bring their own direct buffers. A store whose transfers need
 * registered memory (Mooncake over RDMA) implements it; the cache asks before handing a caller's
 * buffer straight to {@link ObjectStore#put} or {@link ObjectStore#getInto}.
 */
public interface CallerMemory {

  /**
   * Whether the buffer's whole capacity lies inside the store's registered region (always false for
   * a heap buffer). Buffers from {@link ObjectStore#buffers()} are.
   */
  boolean contains(ByteBuffer buffer);

  /**
   * Registers a caller's direct buffer (its whole capacity) for the duration of one call; close the
   * result when the call is done. A no-op when the buffer is already inside the region or the
   * transport does not need registration (TCP). Registration is costly on RDMA: for repeated
   * transfers, copy through {@link ObjectStore#buffers()} or keep the buffer registered across
   * calls with nested registrations (they are counted).
   *
   * @throws IllegalArgumentException for a heap buffer
   * @throws StoreException when the store refuses the registration, or is closed
   */
  AutoCloseable registerForCall(ByteBuffer buffer);
}
