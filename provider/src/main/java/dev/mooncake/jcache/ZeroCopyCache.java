package dev.mooncake.jcache;

import dev.mooncake.jcache.internal.entry.ValueHeader;
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
   * Reads the value of {@code key} into {@code destination} at its position (header first). The
   * destination needs {@link #HEADER_BYTES} + the value's length + {@link #TRAILER_BYTES} bytes
   * remaining. The value is read in place, never copied: the store writes into the destination and
   * the bytes are checked afterwards (the owner hash names the key, cache and tenant; the checksum
   * covers header and value). A read that fails the check (a torn replace, another key's object in
   * reused memory) is read again, up to five times, then fails.
   *
   * <p>What the caller's buffer holds afterwards, with {@code p} and {@code l} its position and
   * limit at the call:
   *
   * <ul>
   *   <li>a hit: the value's length is returned; the position is set to the value's first byte and
   *       the limit after its last; {@code [p, limit + TRAILER_BYTES)} holds the key's header,
   *       value and trailer, and the rest of {@code [p, l)} is unchanged or zero;
   *   <li>a miss (-1), an exception or a time-out: position and limit are {@code p} and {@code l};
   *       every byte of {@code [p, l)} is either unchanged or zero. A miss where the store
   *       transferred nothing (the common case) leaves it unchanged;
   *   <li>in no outcome does {@code [p, l)} hold a byte that is not the key's checked value: bytes
   *       a transfer wrote that failed the check are zeroed before the next attempt and before the
   *       call returns or throws. Bytes outside {@code [p, l)} are never written.
   * </ul>
   *
   * <p>A concurrent reader of the same buffer (another thread) may see unchecked bytes while the
   * call runs: the buffer belongs to the call until it returns.
   */
  int get(K key, ByteBuffer destination);

  /** Bytes the cache has copied in Java to encode or decode values; zero-copy calls add none. */
  long javaCopiedBytes();
}
