package dev.mooncake.jcache.internal.lock.cluster;

import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;

/**
 * The store calls a cluster lock is made of, with Mooncake's codes and semantics (see {@code
 * ObjectStore}): a create-only put that is hard-pinned and placed in this client's own segment, a
 * read, a size asked of the master alone (to wait without reading another holder's segment), and a
 * forced remove. Placement is what ties a lock to its holder's life: when the holder dies, Mooncake
 * drops its segment, and the lock object with it.
 */
public interface LockStore {

  /**
   * Create-only put of {@code value[position, limit)}, hard-pinned, in this client's segment.
   * Answers 0 also when the key exists or its put is in flight (then the old value stays).
   */
  int createPinned(String key, ByteBuffer value, Deadline deadline);

  /** Copies the object into {@code destination[position, limit)}; the byte count or a code. */
  long read(String key, ByteBuffer destination, Deadline deadline);

  /**
   * Reads the lock object and another object in one store call (a batch read): the answers of
   * {@link #read} for {@code lockKey} and for {@code key}, in that order.
   */
  long[] readWith(
      String lockKey,
      ByteBuffer lockDestination,
      String key,
      ByteBuffer destination,
      Deadline deadline);

  /**
   * {@link #createPinned} of many keys, in one store call where the store can batch (a lock batch
   * for putAll): the answers in the keys' order. This default puts them one at a time.
   */
  default int[] createAllPinned(String[] keys, ByteBuffer[] values, Deadline deadline) {
    int[] answers = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      answers[i] = createPinned(keys[i], values[i], deadline);
    }
    return answers;
  }

  /** {@link #read} of many keys, in one store call where the store can batch. */
  default long[] readAll(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
    long[] answers = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      answers[i] = read(keys[i], destinations[i], deadline);
    }
    return answers;
  }

  /**
   * The object's size from the master's metadata alone (no transfer, so no contact with the segment
   * holding it): its size, -704 when absent, -703 while its put is in flight, or another code.
   */
  long size(String key, Deadline deadline);

  /**
   * Whether each object exists, in one store call where the store can batch: 1 exists, 0 absent, or
   * a negative code. This default asks {@link #size} of each.
   */
  default int[] existAll(String[] keys, Deadline deadline) {
    int[] answers = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      long size = size(keys[i], deadline);
      answers[i] =
          size >= 0 ? 1 : StoreStatus.of(size) == StoreStatus.OBJECT_NOT_FOUND ? 0 : (int) size;
    }
    return answers;
  }

  /** Removes the object with force (read leases do not hold it); 0 or a negative code. */
  int remove(String key, Deadline deadline);

  /** For messages: which store and segment the locks live in. */
  String describe();
}
