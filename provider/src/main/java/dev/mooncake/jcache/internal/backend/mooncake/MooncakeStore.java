package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.BufferPool;
import dev.mooncake.jcache.internal.backend.CallerMemory;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.OwnSegment;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.calls.CallTimeoutException;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.nativebridge.ClosedHandleException;
import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.NativeLogs;
import dev.mooncake.jcache.nativebridge.NativeRegion;
import dev.mooncake.jcache.nativebridge.ReplicaConfig;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store on a Mooncake cluster, over the JNI bridge ({@code dev.mooncake.jcache.nativebridge}):
 * each {@link ObjectStore} call shaped for Mooncake (keys encoded, the entries Mooncake would
 * refuse answered INVALID_PARAMS here) and run by the {@link StoreCallRunner}. {@link
 * MooncakeSetup} opens the client, {@link BufferStaging} says how buffers reach it, {@link
 * CallerRegistrations} is its {@link CallerMemory}.
 *
 * <p>Close (idempotent; also run by a JVM shutdown hook, before Mooncake's own atexit teardown):
 * refuses new calls, waits for calls in flight, unregisters the region, destroys the client; the
 * region's pages are given back then and its mapping once no buffer of it is reachable.
 */
public final class MooncakeStore implements ObjectStore, CallerMemory, OwnSegment {
  private static final Logger LOG = LoggerFactory.getLogger(MooncakeStore.class);
  private static final int INVALID = StoreStatus.INVALID_PARAMS.code();

  /**
   * {@code -Dmooncake.jcache.virtualThreadReadBatches=false}: virtual threads' reads go one call
   * each, as before {@link ReadCoalescer} (for the benchmark that shows what batching them buys).
   */
  static final String READ_BATCHES_SWITCH = "mooncake.jcache.virtualThreadReadBatches";

  private final MooncakeSetup.Opened opened;
  private final MooncakeClient client;
  private final ClientGate gate;
  private final CallerRegistrations registrations;
  private final StoreCallRunner runner;
  private final ReadCoalescer virtualThreadReads; // null: switched off
  private final Thread shutdownHook;

  /** What holds the store, read by the JVM shutdown hook ({@link ShutdownGrace}). */
  private volatile Supplier<ShutdownGrace.Use> use = () -> ShutdownGrace.Use.IDLE;

  private MooncakeStore(MooncakeSetup.Opened opened) {
    this.opened = opened;
    this.client = opened.client();
    this.gate = new ClientGate(opened.description());
    this.registrations = new CallerRegistrations(client, opened.region(), opened.rdma(), gate);
    this.runner =
        new StoreCallRunner(
            client,
            opened.config().operationTimeout(),
            opened.description(),
            gate,
            new BufferStaging(opened.pool(), registrations));
    this.virtualThreadReads =
        Boolean.parseBoolean(System.getProperty(READ_BATCHES_SWITCH, "true"))
            ? new ReadCoalescer(
                this::getIntoAlone, // on a platform thread: never back here
                this::batchGetInto,
                VirtualThreadCalls.shared()::execute,
                System::nanoTime,
                opened.config().operationTimeout().toNanos())
            : null;
    this.shutdownHook = new Thread(this::closeFromHook, "mooncake-store-close");
  }

  /** Opens a store on the cluster the config names; the result also implements CallerMemory. */
  public static ObjectStore open(MooncakeConfig config) {
    return MooncakeSetup.open(config, MooncakeStore::start);
  }

  private static MooncakeStore start(MooncakeSetup.Opened opened) {
    MooncakeStore store = new MooncakeStore(opened);
    try {
      Runtime.getRuntime().addShutdownHook(store.shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      throw new StoreException("the JVM is shutting down; not opening " + opened.description());
    }
    LOG.info("opened {}", opened.description());
    return store;
  }

  /** {@link MooncakeSetup#configureNativeLog}, for a caller that loads the library itself. */
  public static void configureNativeLog(MooncakeConfig config) {
    MooncakeSetup.configureNativeLog(config);
  }

  /** INVALID_PARAMS for a call Mooncake would refuse; a closed store still throws first. */
  private int invalid() {
    gate.ensureOpen();
    return INVALID;
  }

  @Override
  public int put(String key, ByteBuffer value, Deadline deadline) {
    byte[] k = MooncakeKeys.encode(key);
    if (k == null || value == null || !value.hasRemaining()) {
      return invalid();
    }
    ReplicaConfig where = opened.values().config();
    // the runner's direct call written out here: put_from is called from this frame, with no
    // frame of the runner's or of a call object under it (CallPathToNativeTest)
    try (StoreCallRunner.OneTransfer transfer = runner.begin(deadline, value, true)) {
      if (!transfer.direct()) {
        return (int) transfer.run("put", key, (b, o, l) -> client.putFrom(k, b, o, l, where));
      }
      long result;
      try {
        result = client.putFrom(k, transfer.buffer(), transfer.offset(), transfer.length(), where);
      } catch (ClosedHandleException e) {
        throw transfer.closed(e);
      }
      return (int) transfer.answered(result);
    } catch (CallTimeoutException e) {
      throw spent(e, deadline);
    }
  }

  /** A put's transfer (null {@code put}: invalid arguments), for the puts off the hot path. */
  private int transferPut(
      String key, StoreCallRunner.TransferCall put, ByteBuffer value, Deadline deadline) {
    try {
      return put == null
          ? invalid()
          : (int) runner.transfer(deadline, "put", key, true, value, put);
    } catch (CallTimeoutException e) {
      throw spent(e, deadline);
    }
  }

  /** The put_from of {@code value} under {@code key} to {@code where}; null: invalid arguments. */
  private StoreCallRunner.TransferCall putCall(String key, ByteBuffer value, ReplicaConfig where) {
    byte[] k = MooncakeKeys.encode(key);
    if (k == null || value == null || !value.hasRemaining()) {
      return null;
    }
    return (buffer, offset, length) -> client.putFrom(k, buffer, offset, length, where);
  }

  /**
   * A call given up on names its operation's deadline too: the bound and what was spent of it, so
   * that a message tells whether the lock or earlier calls had used the time (see docs/lanes.md).
   */
  private static CallTimeoutException spent(CallTimeoutException e, Deadline deadline) {
    if (deadline.isNone()) {
      return e;
    }
    CallTimeoutException named =
        new CallTimeoutException(e.getMessage() + "; the operation's deadline: " + deadline);
    named.setStackTrace(e.getStackTrace());
    return named;
  }

  /** One call answering a status or a length, named as {@link #spent} says on time-out. */
  private long call(
      Deadline deadline,
      String op,
      String key,
      boolean write,
      StoreCallRunner.LongClientCall call) {
    try {
      return runner.call(deadline, op, key, write, call);
    } catch (CallTimeoutException e) {
      throw spent(e, deadline);
    }
  }

  /** This client's segment, or null when it contributes none (standalone-store, size 0). */
  @Override
  public String ownSegment() {
    return opened.pinnedHere() == null ? null : opened.segment();
  }

  @Override
  public int putPinnedInOwnSegment(String key, ByteBuffer value, Deadline deadline) {
    return transferPut(key, putCall(key, value, pinnedHere()), value, deadline);
  }

  /** One batch_put_from with the pinned-here replica config (the cluster lock's batch). */
  @Override
  public int[] batchPutPinnedInOwnSegment(String[] keys, ByteBuffer[] values, Deadline deadline) {
    return batchPut(keys, values, pinnedHere(), deadline);
  }

  private ReplicaConfig pinnedHere() {
    if (opened.pinnedHere() == null) {
      MooncakeConfig config = opened.config();
      throw new StoreException(
          "this client contributes no segment of its own (mode "
              + config.mode().configValue()
              + ", global_segment_size "
              + config.globalSegmentSize()
              + "): nothing can be placed in it ("
              + opened.description()
              + ")");
    }
    return opened.pinnedHere();
  }

  /**
   * A virtual thread's read joins the reads ready with it in one {@code batch_get_into} ({@link
   * ReadCoalescer}); any other thread's is its own call.
   */
  @Override
  public long getInto(String key, ByteBuffer destination, Deadline deadline) {
    byte[] k = MooncakeKeys.encode(key);
    if (k == null || destination == null || destination.isReadOnly()) {
      return invalid();
    }
    if (virtualThreadReads != null && VirtualThreadCalls.shared().handsOff()) {
      return virtualThreadReads.getInto(key, destination, deadline);
    }
    // get_into called from this frame, as put's put_from is
    try (StoreCallRunner.OneTransfer transfer = runner.begin(deadline, destination, false)) {
      if (!transfer.direct()) {
        return transfer.run("get", key, (b, o, l) -> client.getInto(k, b, o, l));
      }
      long result;
      try {
        result = client.getInto(k, transfer.buffer(), transfer.offset(), transfer.length());
      } catch (ClosedHandleException e) {
        throw transfer.closed(e);
      }
      return transfer.answered(result);
    } catch (CallTimeoutException e) {
      throw spent(e, deadline);
    }
  }

  /**
   * One read as its own call, made on a platform thread: a virtual thread's is handed off whole
   * ({@link VirtualThreadCalls}), where {@link #getInto} makes it directly.
   */
  private long getIntoAlone(String key, ByteBuffer destination, Deadline deadline) {
    return VirtualThreadCalls.shared().call(() -> getInto(key, destination, deadline));
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline) {
    return batchPut(keys, values, opened.values().config(), deadline);
  }

  private int[] batchPut(
      String[] keys, ByteBuffer[] values, ReplicaConfig where, Deadline deadline) {
    Objects.requireNonNull(values, "values");
    return ints(
        batch(
            deadline,
            "batch_put",
            true,
            keys,
            values,
            (k, staged, answers) ->
                intAnswers(
                    answers,
                    codes ->
                        client.batchPutFrom(
                            k, staged.buffers, staged.offsets, staged.lengths, where, codes))));
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
    Objects.requireNonNull(destinations, "destinations");
    return batch(
        deadline,
        "batch_get",
        false,
        keys,
        destinations,
        (k, staged, answers) ->
            client.batchGetInto(k, staged.buffers, staged.offsets, staged.lengths, answers));
  }

  @Override
  public int isExist(String key, Deadline deadline) {
    byte[] k = MooncakeKeys.encode(key);
    return k == null
        ? invalid()
        : (int) call(deadline, "is_exist", key, false, () -> client.isExist(k));
  }

  @Override
  public int[] batchIsExist(String[] keys, Deadline deadline) {
    return ints(
        batch(
            deadline,
            "batch_is_exist",
            false,
            keys,
            null,
            (k, staged, answers) -> intAnswers(answers, codes -> client.batchIsExist(k, codes))));
  }

  /**
   * One batch call on the entries Mooncake can take ({@link MooncakeKeys.Batch}); the others answer
   * INVALID_PARAMS. {@code buffers} (null: none) are read by a {@code write}, else filled.
   */
  private long[] batch(
      Deadline deadline,
      String call,
      boolean write,
      String[] keys,
      ByteBuffer[] buffers,
      StoreCallRunner.BatchCall made) {
    MooncakeKeys.Batch batch = new MooncakeKeys.Batch(keys, buffers, !write);
    long[] answers;
    if (batch.keys.length == 0) {
      gate.ensureOpen(); // still refused when closed
      answers = new long[0];
    } else {
      try {
        answers =
            runner.batch(
                deadline,
                batch.describe(call, keys),
                write,
                batch.keys,
                batch.select(buffers),
                made);
      } catch (CallTimeoutException e) {
        throw spent(e, deadline);
      }
    }
    return batch.spread(answers, keys.length, INVALID);
  }

  /** A batch ABI call that answers an int per key. */
  @FunctionalInterface
  private interface IntAnswersCall {
    long call(int[] answers);
  }

  /** Runs {@code call} into an int array and widens its answers into {@code answers}. */
  private static long intAnswers(long[] answers, IntAnswersCall call) {
    int[] codes = new int[answers.length];
    long overall = call.call(codes);
    for (int i = 0; i < codes.length; i++) {
      answers[i] = codes[i];
    }
    return overall;
  }

  private static int[] ints(long[] answers) {
    int[] narrowed = new int[answers.length];
    for (int i = 0; i < answers.length; i++) {
      narrowed[i] = (int) answers[i];
    }
    return narrowed;
  }

  @Override
  public long getSize(String key, Deadline deadline) {
    byte[] k = MooncakeKeys.encode(key);
    return k == null ? invalid() : call(deadline, "get_size", key, false, () -> client.getSize(k));
  }

  @Override
  public int remove(String key, boolean force, Deadline deadline) {
    byte[] k = MooncakeKeys.encode(key);
    return k == null
        ? invalid()
        : (int) call(deadline, "remove", key, true, () -> client.remove(k, force));
  }

  @Override
  public long removeByRegex(String pattern, boolean force, Deadline deadline) {
    byte[] p = MooncakeKeys.encode(pattern);
    return p == null
        ? invalid()
        : call(deadline, "remove_by_regex", pattern, true, () -> client.removeByRegex(p, force));
  }

  @Override
  public BufferPool buffers() {
    return opened.pool();
  }

  /** Every call is a round trip to the master or a transfer to another segment. */
  @Override
  public boolean inProcess() {
    return false;
  }

  @Override
  public String describe() {
    return runner.describe();
  }

  /** This client's segment name ({@code host:port}), where embedded-mode puts land. */
  public String segment() {
    return opened.segment();
  }

  @Override
  public boolean contains(ByteBuffer buffer) {
    return registrations.contains(buffer);
  }

  @Override
  public AutoCloseable registerForCall(ByteBuffer buffer) {
    return registrations.registerForCall(buffer);
  }

  // Close -----------------------------------------------------------------------------------------

  /** Whether the store was closed (by its owner or the JVM's shutdown hook). */
  boolean isClosed() {
    return gate.isClosed();
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
    String description = opened.description();
    ShutdownGrace.await(() -> gate.isClosed() ? ShutdownGrace.Use.IDLE : use.get(), description);
    if (!gate.isClosed()) {
      LOG.info("JVM shutdown: closing {}", description);
      long destroyNanos = closeResources();
      LOG.info(
          "JVM shutdown: closed the client of segment {}, {} ms after the hook started"
              + " (Mooncake's destroy of the client took {} ms)",
          opened.segment(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
          TimeUnit.NANOSECONDS.toMillis(destroyNanos));
    }
  }

  @Override
  public void close() {
    if (gate.isClosed()) {
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
    if (!gate.close()) {
      return 0;
    }
    opened.pool().close();
    runner.close(); // idle threads end; calls given up on finish first (client.close waits)
    try {
      return opened.close();
    } finally {
      NativeLogs.drain(); // Mooncake's last lines (its teardown's) reach SLF4J before close returns
      LOG.debug("closed {}", opened.description());
    }
  }

  // For tests ------------------------------------------------------------------------------------

  MooncakeConfig config() {
    return opened.config();
  }

  /** Tests: wraps every ABI call made after this (null: none). */
  void interceptCalls(UnaryOperator<StoreCallRunner.LongClientCall> intercept) {
    runner.interceptCalls(intercept);
  }

  /** Tests: waits until the master probe sent last has answered (see {@link MasterOutage}). */
  void awaitMasterProbe() {
    runner.awaitMasterProbe();
  }

  /** Whether calls fail fast now (the breaker is open; tests). */
  boolean failingFast() {
    return runner.failingFast();
  }

  RegionBufferPool pool() {
    return opened.pool();
  }

  NativeRegion region() {
    return opened.region();
  }
}
