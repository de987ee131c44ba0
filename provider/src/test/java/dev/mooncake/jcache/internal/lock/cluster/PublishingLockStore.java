package dev.mooncake.jcache.internal.lock.cluster;

import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A scripted client seen through a master with KV events: a create-only put that made an object
 * appear is announced to {@code stored}, a remove that took one away to {@code removed} (as
 * mooncake_master publishes them), on the caller's thread.
 */
final class PublishingLockStore implements LockStore {
  private final ScriptedCluster cluster;
  private final ScriptedCluster.Client client;
  volatile Consumer<String> stored = key -> {};
  volatile Consumer<String> removed = key -> {};

  PublishingLockStore(ScriptedCluster cluster, ScriptedCluster.Client client) {
    this.cluster = cluster;
    this.client = client;
  }

  @Override
  public int createPinned(String key, ByteBuffer value, Deadline deadline) {
    boolean existed = cluster.has(key);
    int code = client.createPinned(key, value, deadline);
    if (code == 0 && !existed && cluster.has(key)) {
      stored.accept(key);
    }
    return code;
  }

  @Override
  public long read(String key, ByteBuffer destination, Deadline deadline) {
    return client.read(key, destination, deadline);
  }

  @Override
  public long[] readWith(
      String lockKey,
      ByteBuffer lockDestination,
      String key,
      ByteBuffer destination,
      Deadline deadline) {
    return client.readWith(lockKey, lockDestination, key, destination, deadline);
  }

  @Override
  public long size(String key, Deadline deadline) {
    return client.size(key, deadline);
  }

  @Override
  public int remove(String key, Deadline deadline) {
    int code = client.remove(key, deadline);
    if (code == 0) {
      removed.accept(key);
    }
    return code;
  }

  @Override
  public String describe() {
    return "publishing " + client.describe();
  }
}
