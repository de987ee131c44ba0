package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.config.MooncakeConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Mooncake client per process and connection, shared by every cache manager that names the same
 * cluster, as vLLM and LMCache use Mooncake: a client is a process-level resource (it mounts a
 * segment, starts transfer threads and opens listening ports), costly to set up, and Mooncake has
 * been seen to crash after many clients were created and destroyed in one process. A manager holds
 * a lease; when the last lease is closed the client lingers for {@code
 * mooncake.jcache.clientLingerMillis} (default 30 s, 0 = close at once) so that a manager re-opened
 * soon after (tests, context refreshes) finds it; a JVM shutdown hook closes what is left (at once
 * when no manager holds it or is being closed, see {@link ShutdownGrace}).
 */
public final class SharedMooncakeStores {
  private static final Logger LOG = LoggerFactory.getLogger(SharedMooncakeStores.class);
  static final String LINGER_PROPERTY = "mooncake.jcache.clientLingerMillis";

  /** What makes two configs need the same client. */
  record Connection(
      String library,
      String master,
      String metadata,
      String protocol,
      String device,
      String localHostname,
      MooncakeConfig.Mode mode,
      long segment,
      long buffer,
      MooncakeConfig.ReplicaSettings replica,
      long timeoutMillis,
      MooncakeConfig.NativeSettings nativeSettings) {
    static Connection of(MooncakeConfig c) {
      return new Connection(
          c.library(),
          c.masterServerAddress(),
          c.metadataServer(),
          c.protocol(),
          c.deviceName(),
          c.localHostname(),
          c.mode(),
          c.contributedSegmentSize(),
          c.localBufferSize(),
          c.replica(),
          c.operationTimeout().toMillis(),
          c.nativeSettings());
    }
  }

  private static final class Shared {
    final MooncakeStore store;
    int leases;
    int closing; // leases whose manager is closing right now
    ScheduledFuture<?> pendingClose;

    Shared(MooncakeStore store) {
      this.store = store;
    }
  }

  private static final Map<Connection, Shared> STORES = new HashMap<>();
  private static final ScheduledExecutorService CLOSER =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "mooncake-client-linger");
            thread.setDaemon(true);
            return thread;
          });

  private SharedMooncakeStores() {}

  /** A lease on the process's client for this config's cluster, opening it if needed. */
  public static Lease open(MooncakeConfig config) {
    Connection connection = Connection.of(config);
    synchronized (STORES) {
      Shared shared = STORES.get(connection);
      if (shared != null && shared.store.isClosed()) {
        STORES.remove(connection); // closed by the JVM's shutdown hook
        shared = null;
      }
      if (shared == null) {
        Shared opened = new Shared((MooncakeStore) MooncakeStore.open(config));
        opened.store.deferShutdownWhile(
            () -> {
              synchronized (STORES) {
                if (opened.leases == 0) {
                  return ShutdownGrace.Use.IDLE;
                }
                return opened.closing > 0 ? ShutdownGrace.Use.CLOSING : ShutdownGrace.Use.OPEN;
              }
            });
        shared = opened;
        STORES.put(connection, shared);
      }
      if (shared.pendingClose != null) {
        shared.pendingClose.cancel(false);
        shared.pendingClose = null;
      }
      shared.leases++;
      return new Lease(connection, shared.store);
    }
  }

  /** Tests: waits until the master probe of every open client has answered. */
  static void awaitMasterProbes() {
    List<MooncakeStore> open;
    synchronized (STORES) {
      open = STORES.values().stream().map(shared -> shared.store).toList();
    }
    open.forEach(MooncakeStore::awaitMasterProbe);
  }

  private static void closing(Connection connection, MooncakeStore store) {
    synchronized (STORES) {
      Shared shared = STORES.get(connection);
      if (shared != null && shared.store == store) {
        shared.closing++;
      }
    }
  }

  private static void release(Connection connection, MooncakeStore store, boolean wasClosing) {
    long linger = Long.getLong(LINGER_PROPERTY, 30_000L);
    synchronized (STORES) {
      Shared shared = STORES.get(connection);
      if (shared == null || shared.store != store) {
        return;
      }
      if (wasClosing) {
        shared.closing--;
      }
      if (--shared.leases > 0) {
        return;
      }
      if (linger <= 0) {
        STORES.remove(connection);
        store.close();
        return;
      }
      shared.pendingClose =
          CLOSER.schedule(() -> closeIfUnused(connection, store), linger, TimeUnit.MILLISECONDS);
    }
  }

  private static void closeIfUnused(Connection connection, MooncakeStore store) {
    synchronized (STORES) {
      Shared shared = STORES.get(connection);
      if (shared == null || shared.store != store || shared.leases > 0) {
        return;
      }
      STORES.remove(connection);
    }
    LOG.debug("closing the idle Mooncake client {}", store.describe());
    store.close();
  }

  /**
   * A manager's use of the shared client: the store itself (calls go to it directly, no layer in
   * between), and {@link #close} to give the lease back.
   */
  public static final class Lease implements AutoCloseable {
    private final Connection connection;
    private final MooncakeStore store;
    private boolean closing; // guarded by this
    private boolean closed; // guarded by this

    Lease(Connection connection, MooncakeStore store) {
      this.connection = connection;
      this.store = store;
    }

    /** The process's client for this cluster, shared with every other lease on it. */
    public MooncakeStore store() {
      return store;
    }

    /**
     * Says that the manager holding this lease began to close: a JVM shutdown hook then waits for
     * {@link #close} before it closes the client (bounded, see {@link ShutdownGrace}).
     */
    public synchronized void closing() {
      if (!closed && !closing) {
        closing = true;
        SharedMooncakeStores.closing(connection, store);
      }
    }

    @Override
    public void close() {
      boolean wasClosing;
      synchronized (this) {
        if (closed) {
          return;
        }
        closed = true;
        wasClosing = closing;
      }
      release(connection, store, wasClosing);
    }
  }
}
