package dev.mooncake.jcache.backend.open;

import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.backend.mooncake.SharedMooncakeStores;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.lock.KeyLockRegistry;
import dev.mooncake.jcache.lock.KeyLocks;
import dev.mooncake.jcache.lock.LocalKeyLocks;
import dev.mooncake.jcache.time.Ticker;

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

  private StoreConnection(ObjectStore store, AutoCloseable release) {
    this.store = store;
    this.release = release;
    this.locks = KeyLockRegistry.acquire(store, LocalKeyLocks::new);
  }

  /** Opens the store a config names: a new in-process store, or a lease on the shared client. */
  public static StoreConnection open(MooncakeConfig config, Ticker ticker) {
    return switch (config.backend()) {
      case IN_PROCESS -> of(InProcessStore.open(config, ticker));
      case MOONCAKE -> {
        SharedMooncakeStores.Lease lease = SharedMooncakeStores.open(config);
        yield new StoreConnection(lease.store(), lease);
      }
    };
  }

  /** A connection owning a store opened elsewhere (tests): closing it closes the store. */
  public static StoreConnection of(ObjectStore store) {
    return new StoreConnection(store, store);
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
