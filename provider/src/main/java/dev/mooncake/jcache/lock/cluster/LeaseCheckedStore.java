package dev.mooncake.jcache.lock.cluster;

import dev.mooncake.jcache.backend.BufferPool;
import dev.mooncake.jcache.backend.ObjectStore;
import java.nio.ByteBuffer;

/**
 * The store as the caches see it under {@code consistency: cluster}: every put and remove of a key
 * whose cluster lock this JVM holds first asks {@link ClusterKeyLocks#beforeMutation}, which
 * refuses (a {@link javax.cache.CacheException}, nothing written) once the lock's lease has run
 * out. The entry layer asks {@code Held.ensureHeld()} before each mutation too; checking here as
 * well, right before each call that goes to Mooncake, also covers the retries the entry layer makes
 * of a remove or put (-703, -706) within the operation timeout, which could otherwise send a write
 * long after the lease.
 */
public final class LeaseCheckedStore implements ObjectStore {
  private final ObjectStore store;
  private final ClusterKeyLocks locks;

  public LeaseCheckedStore(ObjectStore store, ClusterKeyLocks locks) {
    this.store = store;
    this.locks = locks;
  }

  @Override
  public int put(String key, ByteBuffer value) {
    locks.beforeMutation(key);
    return store.put(key, value);
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values) {
    for (String key : keys) {
      locks.beforeMutation(key);
    }
    return store.batchPut(keys, values);
  }

  @Override
  public int remove(String key, boolean force) {
    locks.beforeMutation(key);
    return store.remove(key, force);
  }

  @Override
  public long getInto(String key, ByteBuffer destination) {
    return store.getInto(key, destination);
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations) {
    return store.batchGetInto(keys, destinations);
  }

  @Override
  public int isExist(String key) {
    return store.isExist(key);
  }

  @Override
  public int[] batchIsExist(String[] keys) {
    return store.batchIsExist(keys);
  }

  @Override
  public long getSize(String key) {
    return store.getSize(key);
  }

  @Override
  public long removeByRegex(String pattern, boolean force) {
    return store.removeByRegex(pattern, force);
  }

  @Override
  public BufferPool buffers() {
    return store.buffers();
  }

  @Override
  public boolean inProcess() {
    return store.inProcess();
  }

  @Override
  public String describe() {
    return store.describe();
  }

  @Override
  public void close() {
    store.close();
  }
}
