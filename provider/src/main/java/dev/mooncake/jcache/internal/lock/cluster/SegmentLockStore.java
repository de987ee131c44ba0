package dev.mooncake.jcache.internal.lock.cluster;

import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.OwnSegment;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;

/**
 * Lock objects on a Mooncake client: hard-pinned puts into its own segment.
 *
 * @param store the client's store
 * @param segment the own segment of {@code store}'s client, where the lock objects go
 */
public record SegmentLockStore(ObjectStore store, OwnSegment segment) implements LockStore {

  @Override
  public int createPinned(String key, ByteBuffer value, Deadline deadline) {
    return segment.putPinnedInOwnSegment(key, value, deadline);
  }

  @Override
  public int[] createAllPinned(String[] keys, ByteBuffer[] values, Deadline deadline) {
    return segment.batchPutPinnedInOwnSegment(keys, values, deadline);
  }

  @Override
  public long[] readAll(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
    return store.batchGetInto(keys, destinations, deadline);
  }

  @Override
  public long read(String key, ByteBuffer destination, Deadline deadline) {
    return store.getInto(key, destination, deadline);
  }

  @Override
  public long[] readWith(
      String lockKey,
      ByteBuffer lockDestination,
      String key,
      ByteBuffer destination,
      Deadline deadline) {
    return store.batchGetInto(
        new String[] {lockKey, key}, new ByteBuffer[] {lockDestination, destination}, deadline);
  }

  @Override
  public int[] existAll(String[] keys, Deadline deadline) {
    return store.batchIsExist(keys, deadline);
  }

  @Override
  public long size(String key, Deadline deadline) {
    return store.getSize(key, deadline);
  }

  @Override
  public int remove(String key, Deadline deadline) {
    return store.remove(key, true, deadline);
  }

  @Override
  public String describe() {
    return "locks in segment " + segment.ownSegment() + " of " + store.describe();
  }
}
