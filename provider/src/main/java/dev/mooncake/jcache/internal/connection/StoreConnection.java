package dev.mooncake.jcache.internal.connection;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.backend.mooncake.SharedMooncakeStores;
import dev.mooncake.jcache.internal.lock.KeyLockRegistry;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.lock.LocalKeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.ClusterKeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.ClusterLocking;
import dev.mooncake.jcache.internal.time.Ticker;
import java.util.function.Supplier;
import javax.cache.CacheException;

/**
 * A cache manager's connection to its store: the {@link ObjectStore} the config names, and the key
 * locks of that store connection. This package sits above the contract ({@code backend}) and its
 * implementations, so the contract never imports them.
 *
 * <p>The locks belong to the connection, not to the manager: managers that share a store (the
 * Mooncake client is shared per cluster by every manager in the JVM, whatever its class loader) get
 * the same {@link KeyLocks} from the {@link KeyLockRegistry}, keyed by the store object.
 */
public final class StoreConnection implements AutoCloseable {
  private final ObjectStore store;
  private final AutoCloseable release;
  private final KeyLockRegistry.Lease locks;

  private StoreConnection(
      ObjectStore store, AutoCloseable release, Supplier<? extends KeyLocks> newLocks) {
    this.store = store;
    this.release = release;
    this.locks = KeyLockRegistry.acquire(store, newLocks);
  }

  /** Opens the store a config names: a new in-process store, or a lease on the shared client. */
  public static StoreConnection open(MooncakeConfig config, Ticker ticker) {
    return switch (config.backend()) {
      case IN_PROCESS -> of(InProcessStore.open(config, ticker));
      case MOONCAKE -> {
        SharedMooncakeStores.Lease lease = SharedMooncakeStores.open(config);
        StoreConnection connection;
        try {
          connection =
              new StoreConnection(
                  lease.store(), lease, () -> newLocks(config, lease.store(), ticker));
        } catch (RuntimeException e) {
          lease.close(); // making the locks failed: the shared client's lease goes back
          throw e;
        }
        try {
          connection.checkConsistency(config);
        } catch (RuntimeException e) {
          connection.close(); // the locks and the shared client's lease go back
          throw e;
        }
        yield connection;
      }
    };
  }

  /** A connection owning a store opened elsewhere (tests): closing it closes the store. */
  public static StoreConnection of(ObjectStore store) {
    return of(store, LocalKeyLocks::new);
  }

  /** {@link #of(ObjectStore)} with the locks {@code newLocks} makes (tests: cluster locks). */
  public static StoreConnection of(ObjectStore store, Supplier<? extends KeyLocks> newLocks) {
    return new StoreConnection(store, store, newLocks);
  }

  /**
   * The key locks the first manager on a Mooncake connection makes (later managers share them):
   * under {@code consistency: cluster} locks that reach every JVM of the cluster
   * (docs/cluster-consistency.md), else this JVM's. Cluster leases, lock waits and their deadlines
   * read the manager's ticker (the system clock unless a test injects one), as everything else
   * does.
   */
  private static KeyLocks newLocks(MooncakeConfig config, ObjectStore store, Ticker ticker) {
    return cluster(config)
        ? ClusterLocking.locks(
            store,
            config.consistency().lockLease(),
            config.operationTimeout(),
            config.consistency().lockKeepIdle(),
            ticker,
            config.masterMetricsAddress())
        : new LocalKeyLocks();
  }

  private static boolean cluster(MooncakeConfig config) {
    return config.consistency().level() == MooncakeConfig.Consistency.Level.CLUSTER;
  }

  /** Managers sharing a Mooncake client share its locks, so they must agree on consistency. */
  private void checkConsistency(MooncakeConfig config) {
    boolean cluster = cluster(config);
    if ((locks() instanceof ClusterKeyLocks) != cluster) {
      throw new CacheException(
          "another cache manager on "
              + store.describe()
              + " runs"
              + " consistency \""
              + (cluster ? "local" : "cluster")
              + "\"; this config ("
              + config.source()
              + ") asks for \""
              + (cluster ? "cluster" : "local")
              + "\". Managers"
              + " sharing a Mooncake client share its locks: give them the same consistency");
    }
  }

  public ObjectStore store() {
    return store;
  }

  /** The key locks every manager on this store connection shares. */
  public KeyLocks locks() {
    return locks.locks();
  }

  /**
   * Whether this connection's locks reach every JVM of the cluster ({@code consistency: cluster}).
   */
  public boolean clusterWide() {
    return locks() instanceof ClusterKeyLocks;
  }

  /**
   * Says that the manager began to close, before it closes its caches: the shared client's JVM
   * shutdown hook waits for such a close to end instead of closing the client under it.
   */
  public void closing() {
    if (release instanceof SharedMooncakeStores.Lease lease) {
      lease.closing();
    }
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
