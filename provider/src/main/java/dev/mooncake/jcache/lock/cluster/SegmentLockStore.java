package dev.mooncake.jcache.lock.cluster;

import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.backend.OwnSegment;
import java.nio.ByteBuffer;

/** Lock objects on a Mooncake client: hard-pinned puts into its own segment. */
final class SegmentLockStore implements LockStore {
  private final ObjectStore store;
  private final OwnSegment segment;

  SegmentLockStore(ObjectStore store, OwnSegment segment) {
    this.store = store;
    this.segment = segment;
  }

  @Override
  public int createPinned(String key, ByteBuffer value) {
    return segment.putPinnedInOwnSegment(key, value);
  }

  @Override
  public int[] createAllPinned(String[] keys, ByteBuffer[] values) {
    return segment.batchPutPinnedInOwnSegment(keys, values);
  }

  @Override
  public long[] readAll(String[] keys, ByteBuffer[] destinations) {
    return store.batchGetInto(keys, destinations);
  }

  @Override
  public long read(String key, ByteBuffer destination) {
    return store.getInto(key, destination);
  }

  @Override
  public long[] readWith(
      String lockKey, ByteBuffer lockDestination, String key, ByteBuffer destination) {
    return store.batchGetInto(
        new String[] {lockKey, key}, new ByteBuffer[] {lockDestination, destination});
  }

  @Override
  public long size(String key) {
    return store.getSize(key);
  }

  @Override
  public int remove(String key) {
    return store.remove(key, true);
  }

  @Override
  public String describe() {
    return "locks in segment " + segment.ownSegment() + " of " + store.describe();
  }
}
