package dev.mooncake.jcache.backend.mooncake;

import dev.mooncake.jcache.backend.BufferPool;
import dev.mooncake.jcache.backend.CallerMemory;
import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.backend.OwnSegment;
import dev.mooncake.jcache.backend.StoreException;
import dev.mooncake.jcache.backend.StoreStatus;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.config.parse.MetadataServerValidator;
import dev.mooncake.jcache.lane.BoundedCalls;
import dev.mooncake.jcache.lane.CallDeadline;
import dev.mooncake.jcache.lane.CallTimeoutException;
import dev.mooncake.jcache.nativebridge.ClosedHandleException;
import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import dev.mooncake.jcache.nativebridge.NativeBridgeException;
import dev.mooncake.jcache.nativebridge.NativeLogs;
import dev.mooncake.jcache.nativebridge.NativeRegion;
import dev.mooncake.jcache.nativebridge.ReplicaConfig;
import dev.mooncake.jcache.nativebridge.StoreAbi;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store on a Mooncake cluster, over the JNI bridge ({@code dev.mooncake.jcache.nativebridge}).
 *
 * <p>Open: loads {@code libmooncake_store.so} (config {@code library}, else {@code
 * $MOONCAKE_STORE_LIBRARY}, else the soname), sets {@code MC_RPC_TIMEOUT_MS} and {@code
 * MC_RPC_CONNECT_TIMEOUT_MS} to a third of the operation timeout unless set ({@link
 * #MAX_RPCS_PER_CALL}), creates and sets up a client, checks the master's health, then maps ONE
 * transfer region of {@code local_buffer_size} bytes outside the Java heap, registers it once, and
 * carves {@link #buffers()} out of it. Setup itself gets a local buffer of 0 ({@link
 * #MOONCAKE_LOCAL_BUFFER}): the memory is spent once. Failures are {@link StoreException}s naming
 * what failed, the path or address, and the code.
 *
 * <p>Placement: every put carries the config's replicate settings. Unless the config names
 * preferred segments, a store in {@code embedded} mode prefers its own segment (the name {@code
 * get_hostname} answers, {@code host:port}), so what this JVM writes lives in the memory this JVM
 * contributes. The price: when this JVM closes the store or exits, every object in its segment is
 * gone for every client, and objects of other clients written here too. In {@code standalone-store}
 * mode this JVM contributes nothing (under {@code cluster} only its lock segment, for lock
 * objects), and values go where {@code preferred_segments} says: the pool's segments.
 *
 * <p>Buffers: values and destinations inside the region go to Mooncake as they are. Heap buffers
 * are copied through a region buffer. A direct buffer outside the region goes as it is over TCP
 * (which does not check), and over RDMA is registered for the call's duration (see {@link
 * #registerForCall}).
 *
 * <p>Close (idempotent; also run by a JVM shutdown hook, before Mooncake's own atexit teardown):
 * refuses new calls, waits for calls in flight, unregisters the region, destroys the client; the
 * region's pages are given back then and its mapping once no buffer of it is reachable.
 */
public final class MooncakeStore implements ObjectStore, CallerMemory, OwnSegment {
  private static final Logger LOG = LoggerFactory.getLogger(MooncakeStore.class);

  /**
   * What setup's {@code local_buffer_size} gets: none. Mooncake would allocate (and on RDMA
   * register, so pin) a buffer of that size for its copying put, which the bridge never calls;
   * every transfer goes through our own registered region, which {@code local_buffer_size} sizes.
   * Verified on Mooncake 3b5a594: setup accepts 0, put_from / get_into and the batch calls work.
   */
  static final long MOONCAKE_LOCAL_BUFFER = 0;

  private final MooncakeConfig config;
  private final MooncakeClient client;
  private final NativeRegion region;
  private final RegionBufferPool pool;
  private final ReplicaConfig replica;

  /** Hard pin in this client's own segment (cluster locks); null when it contributes none. */
  private final ReplicaConfig pinnedHere;

  private final String segment;
  private final boolean registrationNeeded;
  private final String description;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Map<Long, int[]> callerRegistrations = new HashMap<>(); // guarded by itself
  private final Thread shutdownHook;
  private final MasterOutage outage;

  /**
   * Mooncake's reconnect loop against a master that is gone: every C call took 4.26-4.45 s on
   * 3b5a594 (the calls in flight at a kill up to 4.8 s), whatever {@code MC_RPC_TIMEOUT_MS} says,
   * and nothing interrupts a C call (see {@link MasterOutage}).
   */
  static final long RECONNECT_FLOOR_MS = 5_000;

  /**
   * Below this operation timeout every call runs on {@link #bounded} (a thread hop each): a call on
   * the caller's thread could outlast the timeout by the reconnect loop. Twice the floor, since a
   * call may pay the loop after its first RPCs took their share. From it on, calls hop only while
   * {@link MasterOutage#troubled} (the default timeout, 30 s, is far above).
   */
  static final long DIRECT_CALLS_FROM_MS = 2 * RECONNECT_FLOOR_MS;

  /** Given-up calls that may still be inside Mooncake before new ones are refused unsent. */
  static final int MAX_STUCK_CALLS = 64;

  /** Where calls run when the caller's wait must be bounded (see {@link #bounded()}). */
  private final BoundedCalls bounded;

  private final boolean alwaysBounded;
  private final long timeoutNanos;

  /** Tests: wraps every ABI call (e.g. to hold it on a latch); null in production. */
  private volatile UnaryOperator<LongClientCall> intercept;

  /** The key of {@link MasterOutage}'s probe: an is_exist, which no object ever answers 1 to. */
  private static final byte[] PROBE_KEY =
      "mooncake-jcache/master-probe".getBytes(StandardCharsets.UTF_8);

  /** What holds the store, read by the JVM shutdown hook ({@link ShutdownGrace}). */
  private volatile Supplier<ShutdownGrace.Use> use = () -> ShutdownGrace.Use.IDLE;

  private MooncakeStore(
      MooncakeConfig config,
      MooncakeClient client,
      NativeRegion region,
      RegionBufferPool pool,
      ReplicaConfig replica,
      ReplicaConfig pinnedHere,
      String segment,
      boolean registrationNeeded,
      String description) {
    this.config = config;
    this.client = client;
    this.region = region;
    this.pool = pool;
    this.replica = replica;
    this.pinnedHere = pinnedHere;
    this.segment = segment;
    this.registrationNeeded = registrationNeeded;
    this.description = description;
    this.shutdownHook = new Thread(this::closeFromHook, "mooncake-store-close");
    this.outage =
        new MasterOutage(
            () -> client.isExist(PROBE_KEY), config.operationTimeout().toMillis(), description);
    long timeoutMs = Math.max(1, config.operationTimeout().toMillis());
    this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    this.alwaysBounded = timeoutMs < DIRECT_CALLS_FROM_MS;
    this.bounded = new BoundedCalls("store-calls", MAX_STUCK_CALLS);
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
  public static void configureNativeLog(MooncakeConfig config) {
    MooncakeConfig.NativeLog log = config.nativeLog();
    NativeLogs.configure(NativeLogs.Settings.of(log.level(), log.destination()));
  }

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
   * The per-RPC timeout the first store of this process wrote into {@code MC_RPC_TIMEOUT_MS} (0 if
   * none did: the user's environment had it). The variable is process-wide, so later stores leave
   * it alone; this says which config won (for tests).
   */
  private static volatile long rpcTimeoutSetByUsMillis;

  static long rpcTimeoutSetByUsMillis() {
    return rpcTimeoutSetByUsMillis;
  }

  /** Opens a store on the cluster the config names; the result also implements CallerMemory. */
  public static ObjectStore open(MooncakeConfig config) {
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
    int applied = MooncakeLibrary.applyRpcTimeouts(rpcTimeoutMs, rpcTimeoutMs);
    if (applied != 0) {
      rpcTimeoutSetByUsMillis = rpcTimeoutMs;
    }
    LOG.debug("MC_RPC_TIMEOUT_MS / MC_RPC_CONNECT_TIMEOUT_MS set by us: {}", applied);

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
      int code = setupWithin(client, config, contributed, timeoutMs, where, opened);
      restored |= client.signalsRestored();
      if (restored != 0) {
        LOG.info(
            "Mooncake changed the handlers of signals {}; the JVM's were put back",
            signals(restored));
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
      if (preferred.isEmpty() && !standalone && contributed > 0) {
        preferred = List.of(segment);
      }
      ReplicaConfig replica = replicaConfig(client, config, preferred);
      opened.add(replica);
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
              + replica
              + ", library "
              + library.path()
              + ")";
      MooncakeStore store =
          new MooncakeStore(
              config, client, region, pool, replica, pinnedHere, segment, rdma, description);
      try {
        Runtime.getRuntime().addShutdownHook(store.shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        throw new StoreException("the JVM is shutting down; not opening " + description);
      }
      LOG.info("opened {}", description);
      return store;
    } catch (RuntimeException e) {
      closeAll(opened, e);
      throw e;
    }
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

  // ---------------------------------------------------------------------------------------------

  private StoreException closedException(Throwable cause) {
    return new StoreException("the Mooncake store is closed: " + description, cause);
  }

  private void ensureOpen() {
    if (closed.get()) {
      throw closedException(null);
    }
  }

  /**
   * A key as Mooncake takes it, or null when Mooncake would refuse it (null, empty, or holding a
   * NUL, which C would cut short). Per-key failures are statuses, never exceptions (the ObjectStore
   * contract): callers answer INVALID_PARAMS for a null here.
   */
  private static byte[] key(String key) {
    if (key == null || key.isEmpty() || key.indexOf('\0') >= 0) {
      return null;
    }
    return key.getBytes(StandardCharsets.UTF_8);
  }

  private static final int INVALID = StoreStatus.INVALID_PARAMS.code();

  /** INVALID_PARAMS for a call Mooncake would refuse; a closed store still throws first. */
  private int invalid() {
    ensureOpen();
    return INVALID;
  }

  /** A call into the client that may find it closed. */
  @FunctionalInterface
  private interface ClientCall<T> {
    T call();
  }

  /** A call answering a status or a length: no boxing on the path of every get. */
  @FunctionalInterface
  interface LongClientCall {
    long call();
  }

  /** What a call reads or writes, handed to a call given up on (released when it returns). */
  private interface Held {
    /** Marks it given up on and answers what releases it; {@code close} then does nothing. */
    Runnable abandon();
  }

  private static final Held NOTHING_HELD = () -> () -> {};

  /** Tests: wraps every ABI call made after this (null: none). */
  void interceptCalls(UnaryOperator<LongClientCall> intercept) {
    this.intercept = intercept;
  }

  /**
   * The one place where a call is made on the client: refused once the store is closed, and the
   * bridge's "handle closed" ({@link ClosedHandleException}, a call racing with close) turned into
   * a {@link StoreException} naming this store. Anything else the bridge throws (a bad argument, a
   * released region, a full handle table) goes up as it is.
   */
  private <T> T call(ClientCall<T> call) {
    ensureOpen();
    try {
      return call.call();
    } catch (ClosedHandleException e) {
      throw closedException(e);
    }
  }

  /**
   * Whether the caller's wait must be bounded now: always below {@link #DIRECT_CALLS_FROM_MS}, else
   * while the master has been in trouble lately. Decided before buffers are prepared: a bounded
   * call stages every buffer through the region ({@link Transfer}).
   */
  private boolean bounded() {
    return alwaysBounded || outage.troubled();
  }

  /**
   * Admits a call ({@link MasterOutage#admit}, waiting for a probe at most the call's time) and
   * answers its deadline, or 0 when it must answer {@link MasterOutage#failFastCode} unsent.
   */
  private long admit() {
    ensureOpen();
    long allowed = CallDeadline.allowed(timeoutNanos); // less inside a lock acquisition's time
    long deadline = System.nanoTime() + allowed;
    if (!outage.admit(allowed)) {
      return 0;
    }
    return deadline == 0 ? 1 : deadline;
  }

  /** {@link #call} for one status or length; answers at once while the master is unreachable. */
  private long callLong(String op, String key, boolean write, LongClientCall call) {
    long deadline = admit();
    if (deadline == 0) {
      return outage.failFastCode();
    }
    return run(op, key, write, deadline, bounded(), call, NOTHING_HELD);
  }

  /**
   * Makes one ABI call. Direct: on the caller's thread (the fast path; a call slower than one RPC
   * timeout notes trouble, so the calls after it are bounded). Bounded: on {@link #bounded}, the
   * caller waiting until {@code deadline}; a call given up on goes on, {@code held} is released
   * when it returns, and the caller gets a {@link CallTimeoutException} naming the status.
   */
  private long run(
      String op,
      String key,
      boolean write,
      long deadline,
      boolean bound,
      LongClientCall call,
      Held held) {
    UnaryOperator<LongClientCall> wrap = intercept;
    LongClientCall made = wrap == null ? call : wrap.apply(call);
    try {
      if (!bound) {
        long start = System.nanoTime();
        long result = made.call();
        outage.answered(result);
        if (System.nanoTime() - start > timeoutNanos / MAX_RPCS_PER_CALL) {
          outage.noteTrouble();
        }
        return result;
      }
      boolean[] handedOver = new boolean[1];
      String what = key == null ? op : op + " of '" + key + "'";
      try {
        return bounded.call(
            what,
            deadline - System.nanoTime(), // refused unsent when it has passed
            () -> {
              long result = made.call();
              outage.answered(result);
              return result;
            },
            () -> {
              handedOver[0] = true;
              return held.abandon();
            });
      } catch (CallTimeoutException e) {
        if (handedOver[0]) {
          outage.gaveUp(); // the calls after it fail fast while a probe asks the master
        }
        throw new CallTimeoutException(
            e.getMessage()
                + "; "
                + StoreStatus.describe(StoreStatus.RPC_TIMEOUT.code())
                + (!handedOver[0]
                    ? ", not sent"
                    : write
                        ? ", the outcome of this " + op + " is unknown (it may yet take effect)"
                        : "")
                + " (operation_timeout_ms "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                + ", "
                + describe()
                + ")");
      }
    } catch (ClosedHandleException e) {
      throw closedException(e);
    }
  }

  private void answered(int[] results) {
    for (int result : results) {
      if (StoreStatus.isFailFast(result)) {
        outage.answered(result);
        return;
      }
    }
  }

  private void answered(long[] results) {
    for (long result : results) {
      if (StoreStatus.isFailFast(result)) {
        outage.answered(result);
        return;
      }
    }
  }

  /**
   * How one buffer reaches Mooncake: as is, registered for the call, or through a copy. A bounded
   * call given up on still reads or writes its buffer after the caller got its exception, so a
   * bounded call works on the caller's buffer only when the pool can hold it (a region buffer its
   * owner gives back after a failed call: the pool frees it only when the call returns, {@link
   * RegionBufferPool#hold}); on any other buffer it works on a copy, released when the call returns
   * ({@link #abandon}). Holding instead of copying keeps a bounded call at one region buffer per
   * value, as a direct call is: with a copy each, 1 MiB batches ran the region dry.
   */
  private final class Transfer implements AutoCloseable, Held {
    final ByteBuffer buffer;
    final int offset;
    final int length;
    private final ByteBuffer staged;
    private final AutoCloseable registration;
    private final Runnable hold;
    private boolean abandoned;

    Transfer(ByteBuffer caller, boolean source, boolean bound) {
      int position = caller.position();
      int remaining = caller.remaining();
      if (!source && caller.isReadOnly()) {
        throw new ReadOnlyBufferException();
      }
      Runnable held = bound ? pool.hold(caller) : null;
      if (caller.isDirect() && (!bound || held != null)) {
        this.buffer = caller;
        this.offset = position;
        this.length = remaining;
        this.staged = null;
        this.hold = held;
        this.registration = held != null ? null : registerForCall(caller);
      } else {
        this.staged = pool.acquire(remaining);
        if (source) {
          staged.put(0, caller, position, remaining);
        }
        this.buffer = staged;
        this.offset = 0;
        this.length = remaining;
        this.hold = null;
        this.registration = null;
      }
    }

    /** Copies {@code count} bytes read into a staging buffer back to the caller's. */
    void deliver(ByteBuffer caller, long count) {
      if (staged != null && count > 0) {
        caller.put(caller.position(), staged, 0, (int) Math.min(count, length));
      }
    }

    @Override
    public Runnable abandon() {
      abandoned = true;
      return this::release;
    }

    @Override
    public void close() {
      if (!abandoned) {
        release();
      }
    }

    private void release() {
      if (staged != null) {
        pool.release(staged);
      }
      if (hold != null) {
        hold.run();
      }
      if (registration != null) {
        try {
          registration.close();
        } catch (Exception e) {
          LOG.warn("unregistering a caller buffer failed", e);
        }
      }
    }
  }

  /** The transfers of one batch call, as the parallel arrays the bridge takes. */
  private final class BatchTransfer implements AutoCloseable, Held {
    final List<Transfer> transfers;
    final ByteBuffer[] buffers;
    final int[] offsets;
    final int[] lengths;

    BatchTransfer(ByteBuffer[] callers, boolean source, boolean bound) {
      transfers = new ArrayList<>(callers.length);
      buffers = new ByteBuffer[callers.length];
      offsets = new int[callers.length];
      lengths = new int[callers.length];
      try {
        for (int i = 0; i < callers.length; i++) {
          Transfer transfer = new Transfer(callers[i], source, bound);
          transfers.add(transfer);
          buffers[i] = transfer.buffer;
          offsets[i] = transfer.offset;
          lengths[i] = transfer.length;
        }
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }

    @Override
    public Runnable abandon() {
      List<Runnable> releases = new ArrayList<>(transfers.size());
      transfers.forEach(transfer -> releases.add(transfer.abandon()));
      return () -> releases.forEach(Runnable::run);
    }

    @Override
    public void close() {
      transfers.forEach(Transfer::close);
    }
  }

  @Override
  public int put(String key, ByteBuffer value) {
    byte[] k = key(key);
    if (k == null || value == null || !value.hasRemaining()) {
      return invalid();
    }
    return putFrom(key, k, value, replica);
  }

  private int putFrom(String key, byte[] k, ByteBuffer value, ReplicaConfig where) {
    long deadline = admit();
    if (deadline == 0) {
      return (int) outage.failFastCode();
    }
    boolean bound = bounded();
    try (Transfer transfer = new Transfer(value, true, bound)) {
      return (int)
          run(
              "put",
              key,
              true,
              deadline,
              bound,
              () -> client.putFrom(k, transfer.buffer, transfer.offset, transfer.length, where),
              transfer);
    }
  }

  /** This client's segment, or null when it contributes none (standalone-store, size 0). */
  @Override
  public String ownSegment() {
    return pinnedHere == null ? null : segment;
  }

  @Override
  public int putPinnedInOwnSegment(String key, ByteBuffer value) {
    ReplicaConfig where = pinnedHere();
    byte[] k = key(key);
    if (k == null || value == null || !value.hasRemaining()) {
      return invalid();
    }
    return putFrom(key, k, value, where);
  }

  /** One batch_put_from with the pinned-here replica config (the cluster lock's batch). */
  @Override
  public int[] batchPutPinnedInOwnSegment(String[] keys, ByteBuffer[] values) {
    return batchPut(keys, values, pinnedHere());
  }

  private ReplicaConfig pinnedHere() {
    if (pinnedHere == null) {
      throw new StoreException(
          "this client contributes no segment of its own (mode "
              + config.mode().configValue()
              + ", global_segment_size "
              + config.globalSegmentSize()
              + "): nothing can be placed in it ("
              + description
              + ")");
    }
    return pinnedHere;
  }

  @Override
  public long getInto(String key, ByteBuffer destination) {
    byte[] k = key(key);
    if (k == null || destination == null || destination.isReadOnly()) {
      return invalid();
    }
    long deadline = admit();
    if (deadline == 0) {
      return outage.failFastCode();
    }
    boolean bound = bounded();
    try (Transfer transfer = new Transfer(destination, false, bound)) {
      long result =
          run(
              "get",
              key,
              false,
              deadline,
              bound,
              () -> client.getInto(k, transfer.buffer, transfer.offset, transfer.length),
              transfer);
      transfer.deliver(destination, result); // on this thread: never after the caller gave up
      return result;
    }
  }

  private static void checkBatch(String[] keys, Object[] buffers) {
    Objects.requireNonNull(keys, "keys");
    if (buffers != null && keys.length != buffers.length) {
      throw new IllegalArgumentException(keys.length + " keys but " + buffers.length + " buffers");
    }
  }

  /**
   * The keys of a batch as Mooncake takes them, and which of them it can take: a key or buffer it
   * would refuse answers INVALID_PARAMS alone, and the others still go, as the in-process store
   * does it.
   */
  private static final class Batch {
    final int[] positions; // of the valid entries, in the caller's arrays
    final byte[][] keys;

    Batch(String[] keys, ByteBuffer[] buffers, boolean destinations) {
      int[] positions = new int[keys.length];
      byte[][] encoded = new byte[keys.length][];
      int valid = 0;
      for (int i = 0; i < keys.length; i++) {
        byte[] k = key(keys[i]);
        ByteBuffer buffer = buffers == null ? null : buffers[i];
        boolean usable =
            buffers == null
                || (buffer != null
                    && (destinations ? !buffer.isReadOnly() : buffer.hasRemaining()));
        if (k != null && usable) {
          positions[valid] = i;
          encoded[valid++] = k;
        }
      }
      this.positions = Arrays.copyOf(positions, valid);
      this.keys = Arrays.copyOf(encoded, valid);
    }

    boolean all(int length) {
      return keys.length == length;
    }

    /** Names the call in messages: {@code <call> of <n> keys from '<first valid key>'}. */
    String describe(String call, String[] callerKeys) {
      return call + " of " + keys.length + " keys from '" + callerKeys[positions[0]] + "'";
    }

    ByteBuffer[] select(ByteBuffer[] buffers) {
      ByteBuffer[] selected = new ByteBuffer[positions.length];
      for (int i = 0; i < positions.length; i++) {
        selected[i] = buffers[positions[i]];
      }
      return selected;
    }
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values) {
    return batchPut(keys, values, replica);
  }

  private int[] batchPut(String[] keys, ByteBuffer[] values, ReplicaConfig where) {
    checkBatch(keys, Objects.requireNonNull(values, "values"));
    Batch batch = new Batch(keys, values, false);
    int[] results = new int[keys.length];
    Arrays.fill(results, INVALID);
    if (batch.keys.length == 0) {
      return call(() -> results); // still refused when closed
    }
    ByteBuffer[] selected = batch.select(values);
    int[] answered = new int[selected.length];
    long deadline = admit();
    if (deadline == 0) {
      Arrays.fill(answered, (int) outage.failFastCode());
    } else {
      boolean bound = bounded();
      int[] written = bound ? new int[answered.length] : answered; // a given-up call's own
      try (BatchTransfer transfer = new BatchTransfer(selected, true, bound)) {
        long overall =
            run(
                batch.describe("batch_put", keys),
                null,
                true,
                deadline,
                bound,
                () ->
                    client.batchPutFrom(
                        batch.keys,
                        transfer.buffers,
                        transfer.offsets,
                        transfer.lengths,
                        where,
                        written),
                transfer);
        if (overall != 0) {
          Arrays.fill(answered, (int) overall);
        } else if (written != answered) {
          System.arraycopy(written, 0, answered, 0, answered.length);
        }
      }
      answered(answered);
    }
    for (int i = 0; i < answered.length; i++) {
      results[batch.positions[i]] = answered[i];
    }
    return results;
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations) {
    checkBatch(keys, Objects.requireNonNull(destinations, "destinations"));
    Batch batch = new Batch(keys, destinations, true);
    long[] results = new long[keys.length];
    Arrays.fill(results, INVALID);
    if (batch.keys.length == 0) {
      return call(() -> results);
    }
    ByteBuffer[] selected = batch.select(destinations);
    long[] answered = new long[selected.length];
    long deadline = admit();
    if (deadline == 0) {
      Arrays.fill(answered, outage.failFastCode());
    } else {
      boolean bound = bounded();
      long[] read = bound ? new long[answered.length] : answered; // a given-up call's own
      try (BatchTransfer transfer = new BatchTransfer(selected, false, bound)) {
        long overall =
            run(
                batch.describe("batch_get", keys),
                null,
                false,
                deadline,
                bound,
                () ->
                    client.batchGetInto(
                        batch.keys, transfer.buffers, transfer.offsets, transfer.lengths, read),
                transfer);
        if (overall != 0) {
          Arrays.fill(answered, overall);
        } else {
          System.arraycopy(read, 0, answered, 0, answered.length);
          for (int i = 0; i < selected.length; i++) {
            transfer.transfers.get(i).deliver(selected[i], answered[i]);
          }
        }
      }
      answered(answered);
    }
    for (int i = 0; i < answered.length; i++) {
      results[batch.positions[i]] = answered[i];
    }
    return results;
  }

  @Override
  public int isExist(String key) {
    byte[] k = key(key);
    return k == null ? invalid() : (int) callLong("is_exist", key, false, () -> client.isExist(k));
  }

  @Override
  public int[] batchIsExist(String[] keys) {
    checkBatch(keys, null);
    Batch batch = new Batch(keys, null, false);
    int[] results = new int[keys.length];
    Arrays.fill(results, INVALID);
    if (batch.keys.length == 0) {
      return call(() -> results);
    }
    int[] answered = new int[batch.keys.length];
    long deadline = admit();
    if (deadline == 0) {
      Arrays.fill(answered, (int) outage.failFastCode());
    } else {
      boolean bound = bounded();
      int[] found = bound ? new int[answered.length] : answered; // a given-up call's own
      long overall =
          run(
              batch.describe("batch_is_exist", keys),
              null,
              false,
              deadline,
              bound,
              () -> client.batchIsExist(batch.keys, found),
              NOTHING_HELD);
      if (overall != 0) {
        Arrays.fill(answered, (int) overall);
      } else if (found != answered) {
        System.arraycopy(found, 0, answered, 0, answered.length);
      }
      answered(answered);
    }
    for (int i = 0; i < answered.length; i++) {
      results[batch.positions[i]] = answered[i];
    }
    return results;
  }

  @Override
  public long getSize(String key) {
    byte[] k = key(key);
    return k == null ? invalid() : callLong("get_size", key, false, () -> client.getSize(k));
  }

  @Override
  public int remove(String key, boolean force) {
    byte[] k = key(key);
    return k == null
        ? invalid()
        : (int) callLong("remove", key, true, () -> client.remove(k, force));
  }

  @Override
  public long removeByRegex(String pattern, boolean force) {
    byte[] p = key(pattern);
    return p == null
        ? invalid()
        : callLong("remove_by_regex", pattern, true, () -> client.removeByRegex(p, force));
  }

  @Override
  public BufferPool buffers() {
    return pool;
  }

  @Override
  public String describe() {
    return description + outage.describeNote();
  }

  /** This client's segment name ({@code host:port}), where embedded-mode puts land. */
  public String segment() {
    return segment;
  }

  // CallerMemory ---------------------------------------------------------------------------------

  @Override
  public boolean contains(ByteBuffer buffer) {
    return buffer != null && region.contains(buffer);
  }

  private static final AutoCloseable NO_REGISTRATION = () -> {};

  @Override
  public AutoCloseable registerForCall(ByteBuffer buffer) {
    Objects.requireNonNull(buffer, "buffer");
    if (!buffer.isDirect()) {
      throw new IllegalArgumentException("only a direct buffer can be registered");
    }
    if (!registrationNeeded || buffer.capacity() == 0 || region.contains(buffer)) {
      return NO_REGISTRATION;
    }
    ensureOpen();
    long address = NativeRegion.addressOf(buffer);
    synchronized (callerRegistrations) {
      int[] count = callerRegistrations.get(address);
      if (count == null) {
        int code = call(() -> client.registerBuffer(buffer, 0, buffer.capacity()));
        if (code != 0) {
          throw new StoreException(
              "registering a caller buffer of "
                  + buffer.capacity()
                  + " bytes at 0x"
                  + Long.toHexString(address)
                  + " with Mooncake failed: "
                  + StoreStatus.describe(code));
        }
        count = new int[1];
        callerRegistrations.put(address, count);
      }
      count[0]++;
    }
    AtomicBoolean done = new AtomicBoolean();
    return () -> {
      if (done.compareAndSet(false, true)) {
        unregisterCaller(address, buffer);
      }
    };
  }

  private void unregisterCaller(long address, ByteBuffer buffer) {
    synchronized (callerRegistrations) {
      int[] count = callerRegistrations.get(address);
      if (count == null || --count[0] > 0) {
        return;
      }
      callerRegistrations.remove(address);
      if (closed.get()) {
        return; // destroying the client dropped every registration
      }
      try {
        int code = client.unregisterBuffer(buffer, 0);
        if (code != 0) {
          LOG.warn(
              "unregistering a caller buffer at 0x{} answered {}",
              Long.toHexString(address),
              StoreStatus.describe(code));
        }
      } catch (ClosedHandleException e) {
        // closed meanwhile: nothing left to unregister
      }
    }
  }

  // Close -----------------------------------------------------------------------------------------

  /** Whether the store was closed (by its owner or the JVM's shutdown hook). */
  boolean isClosed() {
    return closed.get();
  }

  /** Set by whoever hands out uses of this store (SharedMooncakeStores: its leases). */
  void deferShutdownWhile(Supplier<ShutdownGrace.Use> use) {
    this.use = use;
  }

  /**
   * Closes the store at JVM exit, promptly: it waits only while a manager on it is being closed (by
   * Spring's shutdown hook, say, which still serves requests first), never for managers that nobody
   * closes ({@link ShutdownGrace}). Calls in flight finish first (the client's close).
   */
  private void closeFromHook() {
    long start = System.nanoTime();
    ShutdownGrace.await(() -> closed.get() ? ShutdownGrace.Use.IDLE : use.get(), description);
    if (!closed.get()) {
      LOG.info("JVM shutdown: closing {}", description);
      long destroyNanos = closeResources();
      LOG.info(
          "JVM shutdown: closed the client of segment {}, {} ms after the hook started"
              + " (Mooncake's destroy of the client took {} ms)",
          segment,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
          TimeUnit.NANOSECONDS.toMillis(destroyNanos));
    }
  }

  @Override
  public void close() {
    if (closed.get()) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or about to: it closes too; closing twice is harmless
    }
    closeResources();
  }

  /** Closes everything once; answers how long Mooncake's destroy of the client took (ns), or 0. */
  private long closeResources() {
    if (!closed.compareAndSet(false, true)) {
      return 0;
    }
    pool.close();
    bounded.close(); // idle threads end; calls given up on finish first (client.close waits)
    long destroyStart = System.nanoTime();
    long destroyNanos;
    try {
      client.close(); // waits for calls in flight, unregisters the region, destroys the client
    } finally {
      destroyNanos = System.nanoTime() - destroyStart;
      replica.close();
      if (pinnedHere != null) {
        pinnedHere.close();
      }
      region.close(); // pages back now; the mapping when no buffer of it is reachable
      NativeLogs.drain(); // Mooncake's last lines (its teardown's) reach SLF4J before close returns
      LOG.debug("closed {}", description);
    }
    return destroyNanos;
  }

  MooncakeConfig config() {
    return config;
  }

  /** Whether calls fail fast now (the breaker is open; tests). */
  boolean failingFast() {
    return outage.isOpen();
  }

  RegionBufferPool pool() {
    return pool;
  }

  NativeRegion region() {
    return region;
  }
}
