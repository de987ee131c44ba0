package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.config.parse.MetadataServerValidator;
import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import dev.mooncake.jcache.nativebridge.NativeBridgeException;
import dev.mooncake.jcache.nativebridge.NativeLogs;
import dev.mooncake.jcache.nativebridge.NativeRegion;
import dev.mooncake.jcache.nativebridge.ReplicaConfig;
import dev.mooncake.jcache.nativebridge.StoreAbi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a Mooncake client for a config. Loads {@code libmooncake_store.so} (config {@code library},
 * else {@code $MOONCAKE_STORE_LIBRARY}, else the soname), sets {@code MC_RPC_TIMEOUT_MS} and {@code
 * MC_RPC_CONNECT_TIMEOUT_MS} to a third of the operation timeout unless set ({@link
 * #MAX_RPCS_PER_CALL}), creates and sets up a client, checks the master's health, then maps ONE
 * transfer region of {@code local_buffer_size} bytes outside the Java heap, registers it once, and
 * carves a {@link RegionBufferPool} out of it. Setup itself gets a local buffer of 0 ({@link
 * #MOONCAKE_LOCAL_BUFFER}): the memory is spent once. Failures are {@link StoreException}s naming
 * what failed, the path or address, and the code.
 *
 * <p>Placement: every put carries the config's replicate settings. Unless the config names
 * preferred segments, a client in {@code embedded} mode prefers its own segment (the name {@code
 * get_hostname} answers, {@code host:port}), so what this JVM writes lives in the memory this JVM
 * contributes. The price: when this JVM closes the store or exits, every object in its segment is
 * gone for every client, and objects of other clients written here too. In {@code standalone-store}
 * mode this JVM contributes nothing (under {@code cluster} only its lock segment, for lock
 * objects), and values go where {@code preferred_segments} says: the pool's segments.
 */
final class MooncakeSetup {
  private static final Logger LOG = LoggerFactory.getLogger(MooncakeSetup.class);

  private MooncakeSetup() {}

  /**
   * What setup's {@code local_buffer_size} gets: none. Mooncake would allocate (and on RDMA
   * register, so pin) a buffer of that size for its copying put, which the bridge never calls;
   * every transfer goes through our own registered region, which {@code local_buffer_size} sizes.
   * Verified on Mooncake 3b5a594: setup accepts 0, put_from / get_into and the batch calls work.
   */
  static final long MOONCAKE_LOCAL_BUFFER = 0;

  /**
   * The most RPCs to the master one C call makes: {@code mooncake_store_put_from} runs {@code
   * Client::Put} (mooncake-store/src/client_service.cpp), which calls PutStart, then PutEnd for the
   * replicas that were written and PutRevoke for those that failed (both when some of each); the
   * batch put the same three batch RPCs; get_into one (GetReplicaList), is_exist, get_size and
   * remove one each. Each RPC is bounded by {@code MC_RPC_TIMEOUT_MS}, so a third of the operation
   * timeout bounds the whole call by it against a master that accepts but does not answer (one that
   * is gone costs Mooncake's reconnect loop instead: see {@link MasterOutage}).
   */
  static final int MAX_RPCS_PER_CALL = 3;

  /** The per-RPC timeout (request and connect) for an operation timeout. */
  static long rpcTimeoutMillis(long operationTimeoutMillis) {
    return Math.max(1, operationTimeoutMillis / MAX_RPCS_PER_CALL);
  }

  /**
   * The per-RPC timeout the last store setup of this process was given in {@code MC_RPC_TIMEOUT_MS}
   * (0 if none: the user's environment had it). For tests.
   */
  private static volatile long rpcTimeoutSetByUsMillis;

  /**
   * Held from setting {@code MC_RPC_*} until the setup that reads them returned and they are unset
   * again: a store opened meanwhile on another thread would see the first one's values, or none.
   */
  private static final ReentrantLock RPC_TIMEOUT_ENVIRONMENT = new ReentrantLock();

  static long rpcTimeoutSetByUsMillis() {
    return rpcTimeoutSetByUsMillis;
  }

  /**
   * What setup opened, for the store to run on.
   *
   * @param pool the buffers carved out of {@code region}
   * @param values the replicate config every value put carries, kept on the live pool
   * @param pinnedHere hard pin in this client's own segment (cluster locks); null when it
   *     contributes none
   * @param segment this client's segment name ({@code host:port}), where embedded-mode puts land
   * @param rdma whether caller buffers must be registered to be transferred
   */
  record Opened(
      MooncakeConfig config,
      MooncakeClient client,
      NativeRegion region,
      RegionBufferPool pool,
      PoolPlacement<ReplicaConfig> values,
      ReplicaConfig pinnedHere,
      String segment,
      boolean rdma,
      String description) {

    /**
     * Closes the client (it waits for calls in flight, unregisters the region, destroys the
     * client), then the replica configs and the region: its pages are given back now, its mapping
     * once no buffer of it is reachable. Answers how long Mooncake's destroy of the client took
     * (ns).
     */
    long close() {
      long destroyStart = System.nanoTime();
      try {
        client.close();
        return System.nanoTime() - destroyStart;
      } finally {
        values.close();
        if (pinnedHere != null) {
          pinnedHere.close();
        }
        region.close();
      }
    }
  }

  /**
   * Opens a client on the cluster the config names and hands it to {@code start}; when setup or
   * {@code start} fails, what was opened is closed again.
   */
  static <S> S open(MooncakeConfig config, Function<Opened, S> start) {
    validate(config);
    String master = config.masterServerAddress();
    MooncakeLibrary library;
    try {
      configureNativeLog(config);
      library = MooncakeLibrary.open(config.library());
    } catch (NativeBridgeException e) {
      throw new StoreException("Mooncake store unavailable: " + e.getMessage(), e);
    }
    long timeoutMs = Math.max(1, config.operationTimeout().toMillis());
    long rpcTimeoutMs = rpcTimeoutMillis(timeoutMs);

    boolean standalone = config.mode() == MooncakeConfig.Mode.STANDALONE_STORE;
    long contributed = config.contributedSegmentSize(); // standalone: its lock segment, or 0
    boolean rdma = "rdma".equalsIgnoreCase(config.protocol());
    String where =
        "master "
            + master
            + " (metadata "
            + config.metadataServer()
            + ", protocol "
            + config.protocol()
            + ", local_hostname "
            + config.localHostname()
            + ", library "
            + library.path()
            + ")";

    List<AutoCloseable> opened = new ArrayList<>();
    try {
      MooncakeConfig.NativeSettings nativeSettings = config.nativeSettings();
      StoreAbi abi = nativeSettings.abi() == null ? null : StoreAbi.parse(nativeSettings.abi());
      MooncakeClient client;
      int code;
      // Mooncake reads MC_RPC_* once, when setup builds its master RPC pool: set for this setup
      // only (where the user has not), then unset so that child processes do not inherit them.
      RPC_TIMEOUT_ENVIRONMENT.lock();
      try (MooncakeLibrary.RpcTimeouts rpcTimeouts =
          MooncakeLibrary.applyRpcTimeouts(rpcTimeoutMs, rpcTimeoutMs)) {
        rpcTimeoutSetByUsMillis = rpcTimeouts.applied() != 0 ? rpcTimeoutMs : 0;
        LOG.debug("MC_RPC_TIMEOUT_MS / MC_RPC_CONNECT_TIMEOUT_MS set by us: {}", rpcTimeouts);
        try {
          client = MooncakeClient.create(library, abi);
        } catch (NativeBridgeException e) {
          throw new StoreException("cannot create a Mooncake client: " + e.getMessage(), e);
        }
        opened.add(client);
        // Before Mooncake joins the cluster: replica settings the library's layout cannot say.
        replicaConfig(client, config, List.of()).close();
        if (nativeSettings.etcdTls() != null) {
          MooncakeConfig.EtcdTls tls = nativeSettings.etcdTls();
          try {
            client.setEtcdTlsConfig(tls.caFile(), tls.certFile(), tls.keyFile());
          } catch (NativeBridgeException e) {
            throw new StoreException(
                "etcd_tls: " + e.getMessage() + " (config " + config.source() + ")", e);
          }
        }
        long restored = client.signalsRestored();
        code = setupWithin(client, config, contributed, timeoutMs, where, opened);
        restored |= client.signalsRestored();
        if (restored != 0) {
          LOG.info(
              "Mooncake changed the handlers of signals {}; the JVM's were put back",
              signals(restored));
        }
      } finally {
        RPC_TIMEOUT_ENVIRONMENT.unlock();
      }
      if (code != 0) {
        throw new StoreException(
            "Mooncake setup against " + where + " failed: " + StoreStatus.describe(code));
      }
      int health = client.healthCheck();
      if (health != 0) {
        throw new StoreException(
            "the Mooncake master at "
                + master
                + " is not healthy: health_check answered "
                + StoreStatus.describe(health)
                + " ("
                + where
                + ")");
      }
      String segment;
      try {
        segment = client.hostname();
      } catch (NativeBridgeException e) {
        throw new StoreException("cannot read this client's segment name: " + e.getMessage(), e);
      }

      NativeRegion region;
      try {
        region = NativeRegion.allocate(config.localBufferSize());
      } catch (NativeBridgeException e) {
        throw new StoreException(
            "cannot allocate the transfer region (local_buffer_size "
                + config.localBufferSize()
                + " bytes, protocol "
                + config.protocol()
                + "): "
                + e.getMessage(),
            e);
      }
      opened.add(region);
      int registered = client.registerRegion(region);
      if (registered != 0) {
        String message =
            "registering the transfer region ("
                + region.size()
                + " bytes at 0x"
                + Long.toHexString(region.address())
                + ") with Mooncake failed: "
                + StoreStatus.describe(registered);
        if (rdma) {
          throw new StoreException(
              message + "; RDMA cannot transfer unregistered memory (" + where + ")");
        }
        LOG.warn("{}; TCP does not need it, going on", message);
      }
      RegionBufferPool pool = new RegionBufferPool(region, config.operationTimeout());

      List<String> preferred = PoolSegments.forValues(config, segment); // standalone: the pool
      if (preferred.isEmpty()
          && !standalone
          && contributed > 0
          && config.replica().valuePlacement() == MooncakeConfig.ValuePlacement.OWN_SEGMENT) {
        preferred = List.of(segment);
      }
      PoolPlacement<ReplicaConfig> values = placement(client, config, preferred, segment);
      opened.add(values);
      ReplicaConfig pinnedHere = null;
      if (contributed > 0) {
        // lock objects (lock.cluster) must never be evicted, whether or not abi is named
        pinnedHere = ReplicaConfig.pinnedAsStronglyAsPossible(client, List.of(segment));
        opened.add(pinnedHere);
      }

      String description =
          "mooncake(master "
              + master
              + ", "
              + config.protocol()
              + ", segment "
              + segment
              + (contributed > 0
                  ? " contributing " + contributed + " bytes"
                  : " contributing nothing")
              + ", region "
              + region.size()
              + " bytes, "
              + values
              + ", library "
              + library.path()
              + ")";
      return start.apply(
          new Opened(config, client, region, pool, values, pinnedHere, segment, rdma, description));
    } catch (RuntimeException e) {
      closeAll(opened, e);
      throw e;
    }
  }

  /**
   * Runs Mooncake's setup, but waits at most the operation timeout for it: against an unreachable
   * master Mooncake retries for much longer than MC_RPC_TIMEOUT_MS says. On time-out the client is
   * handed to the setup thread, which closes it when setup finally returns (closing it now would
   * wait for the call in flight).
   */
  private static int setupWithin(
      MooncakeClient client,
      MooncakeConfig config,
      long contributed,
      long timeoutMs,
      String where,
      List<AutoCloseable> opened) {
    CompletableFuture<Integer> setup = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                setup.complete(
                    client.setup(
                        config.localHostname(),
                        config.metadataServer(),
                        contributed,
                        MOONCAKE_LOCAL_BUFFER,
                        config.protocol(),
                        config.deviceName() == null ? "" : config.deviceName(),
                        config.masterServerAddress()));
              } catch (RuntimeException | Error e) {
                setup.completeExceptionally(e);
              }
            },
            "mooncake-setup");
    thread.setDaemon(true);
    thread.start();
    try {
      return setup.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      opened.remove(client);
      setup.whenComplete((code, error) -> client.close());
      throw new StoreException(
          "the Mooncake master at "
              + config.masterServerAddress()
              + " did not complete setup within "
              + timeoutMs
              + " ms (operation_timeout_ms): is it"
              + " running and reachable? "
              + where);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      opened.remove(client);
      setup.whenComplete((code, error) -> client.close());
      throw new StoreException("interrupted while setting up Mooncake against " + where, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new StoreException("Mooncake setup against " + where + " failed: " + cause, cause);
    }
  }

  /**
   * Chooses the config's {@code native_log} for the process; it takes effect when the library is
   * first loaded (see {@link NativeLogs}), later configs are ignored with a warning if they differ.
   */
  static void configureNativeLog(MooncakeConfig config) {
    MooncakeConfig.NativeLog log = config.nativeLog();
    NativeLogs.configure(NativeLogs.Settings.of(log.level(), log.destination()));
  }

  /**
   * Where value puts go: the preferred segments as found now, listed again while the store is open
   * when they were discovered ({@link PoolPlacement}).
   */
  private static PoolPlacement<ReplicaConfig> placement(
      MooncakeClient client, MooncakeConfig config, List<String> preferred, String own) {
    Function<List<String>, ReplicaConfig> make =
        segments -> replicaConfig(client, config, segments);
    if (!PoolSegments.discovers(config)) {
      return PoolPlacement.fixed(preferred, make);
    }
    // A put that read a config given up runs at most its operation timeout; twice that, at least
    // a minute, before the config is closed.
    Duration retireAfter =
        Duration.ofMillis(Math.max(60_000, 2 * config.operationTimeout().toMillis()));
    return PoolPlacement.rediscovering(
        preferred,
        make,
        () -> PoolSegments.discover(config, own),
        PoolPlacement.interval(),
        retireAfter);
  }

  /** The replicate config every put carries, in the layout of the client's library. */
  private static ReplicaConfig replicaConfig(
      MooncakeClient client, MooncakeConfig config, List<String> preferred) {
    MooncakeConfig.ReplicaSettings settings = config.replica();
    try {
      return ReplicaConfig.create(
          client,
          settings.replicaNum(),
          settings.softPin(),
          settings.hardPin(),
          settings.softPinTtl(),
          preferred);
    } catch (IllegalArgumentException e) {
      throw new StoreException(e.getMessage() + " (config " + config.source() + ")", e);
    }
  }

  private static void closeAll(List<AutoCloseable> opened, RuntimeException failure) {
    // The client first: destroying it unregisters the region, which can then be released.
    for (AutoCloseable resource : opened) {
      try {
        resource.close();
      } catch (Exception e) {
        failure.addSuppressed(e);
      }
    }
  }

  /** Checks what would make Mooncake misbehave (an unknown metadata scheme aborts the process). */
  static void validate(MooncakeConfig config) {
    String source = " (config " + config.source() + ")";
    if (config.metadataServer() == null) {
      throw new StoreException("metadata_server is not set" + source);
    }
    try {
      MetadataServerValidator.validate(config.metadataServer());
    } catch (IllegalArgumentException e) {
      throw new StoreException("metadata_server " + e.getMessage() + source);
    }
    if (config.masterServerAddress() == null || config.masterServerAddress().isBlank()) {
      throw new StoreException("master_server_address is not set" + source);
    }
    if (config.localHostname() == null || config.localHostname().isBlank()) {
      throw new StoreException("local_hostname is not set" + source);
    }
    if (config.protocol() == null || config.protocol().isBlank()) {
      throw new StoreException("protocol is not set" + source);
    }
    if (config.localBufferSize() <= 0) {
      throw new StoreException(
          "local_buffer_size must be positive: it sizes the transfer region" + source);
    }
    if (config.replica().replicaNum() < 1) {
      throw new StoreException("replica_num must be at least 1" + source);
    }
  }

  private static String signals(long mask) {
    List<Integer> numbers = new ArrayList<>();
    for (int signal = 1; signal < 64; signal++) {
      if ((mask & (1L << signal)) != 0) {
        numbers.add(signal);
      }
    }
    return numbers.toString();
  }
}
