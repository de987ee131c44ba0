package dev.mooncake.jcache;

import dev.mooncake.jcache.entry.ValueHeader;
import java.nio.ByteBuffer;

/**
 * Moves {@code byte[]} values between the store and a caller's direct buffers with no serialization
 * and no copy in Java: the path for KV-tensor-sized blobs. Reach it with {@code
 * cache.unwrap(ZeroCopyCache.class)} on a cache whose values are {@code byte[]} (or {@code Object})
 * and whose expiry policy is eternal (the default) or modified-based: those need no read of the old
 * entry. Values put here read back as {@code byte[]} through the normal API.
 *
 * <p>A value travels with a {@link #HEADER_BYTES}-byte header, written into the bytes just before
 * the value, and a {@link #TRAILER_BYTES}-byte trailer, written into the bytes just after it (the
 * checksum of header and value, so that bytes that are not the key's whole value, torn by a
 * concurrent replace or another key's, are detected and read again, never returned): {@link
 * #allocate} hands out buffers with that room reserved. With Mooncake the buffers come from the
 * pinned, registered region; any other direct buffer is registered for the call's duration (costly
 * on RDMA: prefer {@link #allocate}).
 *
 * <p>Zero-copy calls are atomic per key like every other operation. They call no cache writer and
 * publish no events: with write-through on, or a listener registered, they throw {@link
 * UnsupportedOperationException}.
 */
public interface ZeroCopyCache<K> {
  /** Bytes reserved before a value's position for its header. */
  int HEADER_BYTES = ValueHeader.SIZE;

  /** Bytes reserved after a value's limit for its trailer (the checksum). */
  int TRAILER_BYTES = ValueHeader.TRAILER;

  /**
   * A direct buffer for a value of up to {@code size} bytes: position {@link #HEADER_BYTES}, limit
   * {@code HEADER_BYTES + size}, capacity at least {@code HEADER_BYTES + size + TRAILER_BYTES}.
   * Give it back with {@link #release}.
   */
  ByteBuffer allocate(int size);

  /** Returns a buffer obtained from {@link #allocate}. */
  void release(ByteBuffer buffer);

  /**
   * Stores {@code value[position, limit)} under {@code key}, replacing any value; the {@link
   * #HEADER_BYTES} bytes before the position are overwritten with the header, the {@link
   * #TRAILER_BYTES} after the limit (within the capacity) with the trailer.
   */
  void put(K key, ByteBuffer value);

  /**
   * Reads the value of {@code key} into {@code destination} at its position (header first). On a
   * hit the destination's position is set to the value's first byte and its limit after its last,
   * and the value's length is returned; on a miss, -1 and the destination is unchanged. The
   * destination needs {@link #HEADER_BYTES} + the value's length + {@link #TRAILER_BYTES} bytes
   * remaining. The value is read in place, never copied: a read that a concurrent replace tore (its
   * header and trailer name different writes) is read again, up to five times, then fails.
   */
  int get(K key, ByteBuffer destination);

  /** Bytes the cache has copied in Java to encode or decode values; zero-copy calls add none. */
  long javaCopiedBytes();
}
