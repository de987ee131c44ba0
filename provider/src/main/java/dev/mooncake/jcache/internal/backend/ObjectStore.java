package dev.mooncake.jcache.internal.backend;

import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;

/**
 * The one narrow interface between the cache and its storage. Its contract is exactly Mooncake
 * Store's C ABI ({@code store_c.h}), so that the cache cannot tell which implementation it runs on:
 *
 * <ul>
 *   <li>{@link #put} is create-only: on a key that already exists (or whose put is still in flight)
 *       it answers {@link StoreStatus#OK} and keeps the OLD value. Replacing is remove, then put.
 *   <li>Empty values cannot be stored; the cache always writes a header.
 *   <li>Reads ({@link #getInto}, {@link #isExist}) grant a read lease; a remove without force
 *       inside the lease answers {@link StoreStatus#OBJECT_HAS_LEASE}. The cache always removes
 *       with force.
 *   <li>{@link #getInto} answers {@link StoreStatus#OBJECT_NOT_FOUND} for a missing key, {@link
 *       StoreStatus#REPLICA_IS_NOT_READY} while its put is in flight, and a negative code (without
 *       the needed size) when the buffer is too small: ask {@link #getSize} then.
 *   <li>There is no key listing and no per-object TTL.
 *   <li>Objects may be evicted at any time (least recently leased first); an evicted key is simply
 *       absent.
 * </ul>
 *
 * <p>Results are Mooncake's codes: 0 or a positive count/size on success, a negative {@link
 * StoreStatus} code on failure. Implementations never throw for a per-key failure; they throw
 * {@link StoreException} only when the store as a whole is unusable (closed, not set up).
 *
 * <p>Buffers: values are read from {@code [position, limit)} of the given buffer and written into
 * {@code [position, limit)} of the destination; neither call moves the buffer's position or limit.
 * Buffers handed to a store should come from its {@link #buffers()} pool: for Mooncake over RDMA
 * only memory inside the registered region can be transferred. Keys are non-empty strings without
 * NUL characters.
 *
 * <p>Deadlines: every call takes the {@link Deadline} of the JCache operation it is part of, and a
 * store that waits (a remote one) returns by it: the call's time is what is left of the operation's
 * budget, never a fresh {@code operation_timeout_ms}. The forms without one are for callers outside
 * any operation. Wrappers forward the deadline.
 *
 * <p>Implementations are thread-safe: one store is shared by every cache of a manager.
 */
public interface ObjectStore extends AutoCloseable {

  /** Create-only put of {@code value[position, limit)} under {@code key}. */
  int put(String key, ByteBuffer value, Deadline deadline);

  /** {@link #put(String,ByteBuffer, Deadline)} outside any operation: {@link Deadline#none()}. */
  default int put(String key, ByteBuffer value) {
    return put(key, value, Deadline.none());
  }

  /** Create-only put of many objects; one code per key, in order. */
  int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline);

  /**
   * {@link #batchPut(String[],ByteBuffer[], Deadline)} outside any operation: {@link
   * Deadline#none()}.
   */
  default int[] batchPut(String[] keys, ByteBuffer[] values) {
    return batchPut(keys, values, Deadline.none());
  }

  /**
   * Copies the object into {@code destination[position, limit)}; the byte count or a negative code.
   */
  long getInto(String key, ByteBuffer destination, Deadline deadline);

  /**
   * {@link #getInto(String,ByteBuffer, Deadline)} outside any operation: {@link Deadline#none()}.
   */
  default long getInto(String key, ByteBuffer destination) {
    return getInto(key, destination, Deadline.none());
  }

  /** Batch form of {@link #getInto}; one byte count or negative code per key, in order. */
  long[] batchGetInto(String[] keys, ByteBuffer[] destinations, Deadline deadline);

  /**
   * {@link #batchGetInto(String[],ByteBuffer[], Deadline)} outside any operation: {@link
   * Deadline#none()}.
   */
  default long[] batchGetInto(String[] keys, ByteBuffer[] destinations) {
    return batchGetInto(keys, destinations, Deadline.none());
  }

  /** 1 when present, 0 when absent, a negative code on error. */
  int isExist(String key, Deadline deadline);

  /** {@link #isExist(String, Deadline)} outside any operation: {@link Deadline#none()}. */
  default int isExist(String key) {
    return isExist(key, Deadline.none());
  }

  /** Batch form of {@link #isExist}. */
  int[] batchIsExist(String[] keys, Deadline deadline);

  /** {@link #batchIsExist(String[], Deadline)} outside any operation: {@link Deadline#none()}. */
  default int[] batchIsExist(String[] keys) {
    return batchIsExist(keys, Deadline.none());
  }

  /** The object's size in bytes, or a negative code. */
  long getSize(String key, Deadline deadline);

  /** {@link #getSize(String, Deadline)} outside any operation: {@link Deadline#none()}. */
  default long getSize(String key) {
    return getSize(key, Deadline.none());
  }

  /** Removes one object; {@code force} skips the read-lease check. 0 or a negative code. */
  int remove(String key, boolean force, Deadline deadline);

  /** {@link #remove(String,boolean, Deadline)} outside any operation: {@link Deadline#none()}. */
  default int remove(String key, boolean force) {
    return remove(key, force, Deadline.none());
  }

  /**
   * Removes every object whose key matches the ECMAScript {@code pattern} (substring match: anchor
   * with {@code ^}); objects still being written are skipped. The count removed or a negative code.
   */
  long removeByRegex(String pattern, boolean force, Deadline deadline);

  /**
   * {@link #removeByRegex(String,boolean, Deadline)} outside any operation: {@link
   * Deadline#none()}.
   */
  default long removeByRegex(String pattern, boolean force) {
    return removeByRegex(pattern, force, Deadline.none());
  }

  /** Where buffers handed to {@link #put} and {@link #getInto} should come from. */
  BufferPool buffers();

  /**
   * Whether calls complete inside this JVM without I/O. Not part of Mooncake's contract but a fact
   * about the implementation: with no round trip to overlap, splitting a batch across lane threads
   * only adds hand-offs, so the cache runs batches on the caller's thread. No default: a decorator
   * that forgot it would answer false for an in-process store ({@link ForwardingObjectStore}).
   */
  boolean inProcess();

  /** A short description for messages and logs, e.g. {@code in-process(64 MiB)}. */
  String describe();

  /** Releases the store's memory and connections; idempotent. */
  @Override
  void close();
}
