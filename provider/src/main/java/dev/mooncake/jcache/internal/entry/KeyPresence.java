package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.lane.Lane;
import dev.mooncake.jcache.internal.lane.Lanes;
import dev.mooncake.jcache.internal.time.Deadline;
import java.util.Arrays;

/**
 * Whether an object is stored under a key, asked of the master's metadata ({@code is_exist}, on the
 * {@code lookup} lane): no transfer, so no value byte moves and no segment owner is involved.
 *
 * <p>The answer proves nothing about bytes, and needs not: every key it is asked about is a store
 * key of one cache ({@code mcj/<tenant>/<cache>/<key>}, {@link KeyNamespace}), which only this
 * cache's writers put, each a whole value with its header. Mooncake answers 1 only for an object
 * with a completed replica (a put in flight answers 0, as a read of it finds nothing), so a present
 * answer is the answer a read of a whole value would give. The torn and foreign bytes that reads
 * check for ({@link ValueHeader#defect}) come from a transfer racing a reuse of memory; there is no
 * transfer here. What it cannot see is the entry's expiry time: callers ask it only for entries
 * that cannot expire.
 */
record KeyPresence(String cacheName, ObjectStore store, Lanes lanes) {
  /** Batches are split across the lookup lane's threads in chunks of at least this many keys. */
  private static final int MIN_BATCH_CHUNK = 16;

  /** Whether the store holds a completed object under {@code key}. */
  boolean exists(String key, Deadline deadline) {
    return present(key, lanes.callLong(Lane.LOOKUP, () -> store.isExist(key, deadline)));
  }

  /**
   * {@link #exists} for many keys: {@code batch_is_exist} calls split across the lookup lane's
   * threads, index i for key i.
   */
  boolean[] existAll(String[] keys, Deadline deadline) {
    int[] answers =
        lanes.batchAnswers(
            Lane.LOOKUP,
            keys.length,
            MIN_BATCH_CHUNK,
            int[]::new,
            (from, to) -> store.batchIsExist(Arrays.copyOfRange(keys, from, to), deadline));
    boolean[] present = new boolean[keys.length];
    for (int i = 0; i < keys.length; i++) {
      present[i] = present(keys[i], answers[i]);
    }
    return present;
  }

  private boolean present(String key, long answer) {
    if (answer == 1) {
      return true;
    }
    if (answer == 0) {
      return false;
    }
    throw new StoreException(
        "containsKey on cache '"
            + cacheName
            + "' failed for store key '"
            + key
            + "': is_exist answered "
            + (answer < 0 ? StoreStatus.describe(answer) : answer + ", neither 0 nor 1")
            + " ("
            + store.describe()
            + ")",
        answer < 0 ? answer : 0);
  }
}
