package dev.mooncake.jcache.backend.open;

import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.backend.mooncake.SharedMooncakeStores;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.lock.KeyLockRegistry;
import dev.mooncake.jcache.lock.KeyLocks;
import dev.mooncake.jcache.lock.LocalKeyLocks;
import dev.mooncake.jcache.lock.cluster.ClusterKeyLocks;
import dev.mooncake.jcache.lock.cluster.ClusterLocking;
import dev.mooncake.jcache.lock.cluster.LeaseCheckedStore;
import dev.mooncake.jcache.time.Ticker;
import java.util.function.Supplier;
import javax.cache.CacheException;

/**
 * A cache manager's connection to its store: the {@link ObjectStore} the config names, and the key
 * locks of that store connection. This package sits above the contract ({@code backend}) and its
 * implementations, so the contract never imports them.
 *
 * <p>The locks belong to the connection, not to the manager: managers that share a store (the
 * Mooncake client is shared per cluster by every manager in the JVM, whatever its class loader)
 * get the same {@link KeyLocks} from the {@link KeyLockRegistry}, keyed by the store object.
 */
public final class StoreConnection implements AutoCloseable {
  private final ObjectStore store;
  private final AutoCloseable release;
  private final KeyLockRegistry.Lease locks;

  private StoreConnection(ObjectStore store, AutoCloseable release, MooncakeConfig config) {
    boolean cluster = config != null
        && config.consistency().level() == MooncakeConfig.Consistency.Level.CLUSTER;
    Supplier<KeyLocks> create = cluster
        ? () -> ClusterLocking.locks(store, config.consistency().lockLease(),
            config.operationTimeout())
        : LocalKeyLocks::new;
    this.release = release;
    this.locks = KeyLockRegistry.acquire(store, create);
    KeyLocks shared = locks.locks();
    if ((shared instanceof ClusterKeyLocks) != cluster) {
      locks.close();
      throw new CacheException("another cache manager on " + store.describe() + " runs"
          + " consistency \"" + (cluster ? "local" : "cluster") + "\"; this config ("
          + (config == null ? "a store opened elsewhere" : config.source()) + ") asks for \"" + (cluster ? "cluster" : "local") + "\". Managers"
          + " sharing a Mooncake client share its locks: give them the same consistency");
    }
    // Under cluster, every put and remove under a lock is checked against its lease right before
    // it goes to Mooncake, retries included (docs/cluster-consistency.md).
    this.store = shared instanceof ClusterKeyLocks clusterLocks
        ? new LeaseCheckedStore(store, clusterLocks) : store;
  }

  /** Opens the store a config names: a new in-process store, or a lease on the shared client. */
  public static StoreConnection open(MooncakeConfig config, Ticker ticker) {
    return switch (config.backend()) {
      case IN_PROCESS -> of(InProcessStore.open(config, ticker));
      case MOONCAKE -> {
        SharedMooncakeStores.Lease lease = SharedMooncakeStores.open(config);
        try {
          yield new StoreConnection(lease.store(), lease, config);
        } catch (RuntimeException e) {
          lease.close(); // the shared client's lease goes back
          throw e;
        }
      }
    };
  }

  /** A connection owning a store opened elsewhere (tests): closing it closes the store. */
  public static StoreConnection of(ObjectStore store) {
    return new StoreConnection(store, store, null);
  }

  public ObjectStore store() {
    return store;
  }

  /** The key locks every manager on this store connection shares. */
  public KeyLocks locks() {
    return locks.locks();
  }

  /** Gives the locks and the store (or the lease on it) back; idempotent. */
  @Override
  public void close() {
    locks.close();
    try {
      release.close();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("closing " + store.describe() + " failed", e);
    }
  }
}
