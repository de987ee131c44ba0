package dev.mooncake.jcache.backend.mooncake;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.config.parse.MetadataServerValidator;
import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import dev.mooncake.jcache.nativebridge.MooncakeNative;
import dev.mooncake.jcache.nativebridge.NativeBridgeException;
import dev.mooncake.jcache.nativebridge.NativeRegion;
import dev.mooncake.jcache.nativebridge.ReplicaConfig;
import dev.mooncake.jcache.backend.BufferPool;
import dev.mooncake.jcache.backend.CallerMemory;
import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.backend.StoreException;
import dev.mooncake.jcache.backend.StoreStatus;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store on a Mooncake cluster, over the JNI bridge ({@code dev.mooncake.jcache.nativebridge}).
 *
 * <p>Open: loads {@code libmooncake_store.so} (config {@code library}, else
 * {@code $MOONCAKE_STORE_LIBRARY}, else the soname), sets {@code MC_RPC_TIMEOUT_MS} and
 * {@code MC_RPC_CONNECT_TIMEOUT_MS} from the operation timeout unless set, creates and sets up a
 * client, checks the master's health, then maps ONE transfer region of {@code local_buffer_size}
 * bytes outside the Java heap, registers it once, and carves {@link #buffers()} out of it.
 * Failures are {@link StoreException}s naming what failed, the path or address, and the code.
 *
 * <p>Placement: every put carries the config's replicate settings. Unless the config names
 * preferred segments, a store in {@code embedded} mode prefers its own segment (the name
 * {@code get_hostname} answers, {@code host:port}), so what this JVM writes lives in the memory
 * this JVM contributes. The price: when this JVM closes the store or exits, every object in its
 * segment is gone for every client, and objects of other clients written here too. In
 * {@code standalone-store} mode this JVM contributes nothing and Mooncake places objects.
 *
 * <p>Buffers: values and destinations inside the region go to Mooncake as they are. Heap buffers
 * are copied through a region buffer. A direct buffer outside the region goes as it is over TCP
 * (which does not check), and over RDMA is registered for the call's duration (see
 * {@link #registerForCall}).
 *
 * <p>Close (idempotent; also run by a JVM shutdown hook, before Mooncake's own atexit teardown):
 * refuses new calls, waits for calls in flight, unregisters the region, destroys the client; the
 * region's pages are given back then and its mapping once no buffer of it is reachable.
 */
public final class MooncakeStore implements ObjectStore, CallerMemory {
  private static final Logger LOG = LoggerFactory.getLogger(MooncakeStore.class);

  private final MooncakeConfig config;
  private final MooncakeClient client;
  private final NativeRegion region;
  private final RegionBufferPool pool;
  private final ReplicaConfig replica;
  private final String segment;
  private final boolean registrationNeeded;
  private final String description;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Map<Long, int[]> callerRegistrations = new HashMap<>(); // guarded by itself
  private final Thread shutdownHook;
  /** While true at JVM shutdown, the hook waits (bounded) before closing: managers still serve. */
  private volatile java.util.function.BooleanSupplier inUse = () -> false;
  static final String SHUTDOWN_GRACE_PROPERTY = "mooncake.jcache.shutdownGraceMillis";

  private MooncakeStore(
      MooncakeConfig config,
      MooncakeClient client,
      NativeRegion region,
      RegionBufferPool pool,
      ReplicaConfig replica,
      String segment,
      boolean registrationNeeded,
      String description) {
    this.config = config;
    this.client = client;
    this.region = region;
    this.pool = pool;
    this.replica = replica;
    this.segment = segment;
    this.registrationNeeded = registrationNeeded;
    this.description = description;
    this.shutdownHook = new Thread(this::closeFromHook, "mooncake-store-close");
  }

  /**
   * Runs Mooncake's setup, but waits at most the operation timeout for it: against an unreachable
   * master Mooncake retries for much longer than MC_RPC_TIMEOUT_MS says. On time-out the client
   * is handed to the setup thread, which closes it when setup finally returns (closing it now
   * would wait for the call in flight).
   */
  private static int setupWithin(MooncakeClient client, MooncakeConfig config, long contributed,
      long timeoutMs, String where, List<AutoCloseable> opened) {
    CompletableFuture<Integer> setup = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        setup.complete(client.setup(
            config.localHostname(),
            config.metadataServer(),
            contributed,
            config.localBufferSize(),
            config.protocol(),
            config.deviceName() == null ? "" : config.deviceName(),
            config.masterServerAddress()));
      } catch (RuntimeException | Error e) {
        setup.completeExceptionally(e);
      }
    }, "mooncake-setup");
    thread.setDaemon(true);
    thread.start();
    try {
      return setup.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      opened.remove(client);
      setup.whenComplete((code, error) -> client.close());
      throw new StoreException("the Mooncake master at " + config.masterServerAddress()
          + " did not complete setup within " + timeoutMs + " ms (operation_timeout_ms): is it"
          + " running and reachable? " + where);
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

  /** Opens a store on the cluster the config names; the result also implements CallerMemory. */
  public static ObjectStore open(MooncakeConfig config) {
    validate(config);
    String master = config.masterServerAddress();
    MooncakeLibrary library;
    try {
      library = MooncakeLibrary.open(config.library());
    } catch (NativeBridgeException e) {
      throw new StoreException("Mooncake store unavailable: " + e.getMessage(), e);
    }
    long timeoutMs = Math.max(1, config.operationTimeout().toMillis());
    int applied = MooncakeNative.applyRpcTimeouts(timeoutMs, timeoutMs);
    LOG.debug("MC_RPC_TIMEOUT_MS / MC_RPC_CONNECT_TIMEOUT_MS set by us: {}", applied);

    boolean standalone = config.mode() == MooncakeConfig.Mode.STANDALONE_STORE;
    long contributed = standalone ? 0 : config.globalSegmentSize();
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
      MooncakeClient client;
      try {
        client = MooncakeClient.create(library);
      } catch (NativeBridgeException e) {
        throw new StoreException("cannot create a Mooncake client: " + e.getMessage(), e);
      }
      opened.add(client);
      long restored = client.signalsRestored();
      int code = setupWithin(client, config, contributed, timeoutMs, where, opened);
      restored |= client.signalsRestored();
      if (restored != 0) {
        LOG.info("Mooncake changed the handlers of signals {}; the JVM's were put back", signals(restored));
      }
      if (code != 0) {
        throw new StoreException("Mooncake setup against " + where + " failed: " + StoreStatus.describe(code));
      }
      int health = client.healthCheck();
      if (health != 0) {
        throw new StoreException(
            "the Mooncake master at " + master + " is not healthy: health_check answered "
                + StoreStatus.describe(health) + " (" + where + ")");
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
          throw new StoreException(message + "; RDMA cannot transfer unregistered memory (" + where + ")");
        }
        LOG.warn("{}; TCP does not need it, going on", message);
      }
      RegionBufferPool pool = new RegionBufferPool(region, config.operationTimeout());

      List<String> preferred = config.replica().preferredSegments();
      if (preferred.isEmpty() && !standalone && contributed > 0) {
        preferred = List.of(segment);
      }
      MooncakeConfig.ReplicaSettings settings = config.replica();
      ReplicaConfig replica =
          ReplicaConfig.create(settings.replicaNum(), settings.softPin(), settings.hardPin(), preferred);
      opened.add(replica);

      String description =
          "mooncake(master "
              + master
              + ", "
              + config.protocol()
              + ", segment "
              + segment
              + (contributed > 0 ? " contributing " + contributed + " bytes" : " contributing nothing")
              + ", region "
              + region.size()
              + " bytes, "
              + replica
              + ", library "
              + library.path()
              + ")";
      MooncakeStore store =
          new MooncakeStore(config, client, region, pool, replica, segment, rdma, description);
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

  private static byte[] key(String key) {
    Objects.requireNonNull(key, "key");
    if (key.isEmpty()) {
      throw new IllegalArgumentException("empty key");
    }
    if (key.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("key contains a NUL character");
    }
    return key.getBytes(StandardCharsets.UTF_8);
  }

  /** How one buffer reaches Mooncake: as is, registered for the call, or through a copy. */
  private final class Transfer implements AutoCloseable {
    final ByteBuffer buffer;
    final int offset;
    final int length;
    private final ByteBuffer staged;
    private final AutoCloseable registration;

    Transfer(ByteBuffer caller, boolean source) {
      int position = caller.position();
      int remaining = caller.remaining();
      if (!source && caller.isReadOnly()) {
        throw new ReadOnlyBufferException();
      }
      if (caller.isDirect()) {
        this.buffer = caller;
        this.offset = position;
        this.length = remaining;
        this.staged = null;
        this.registration = registerForCall(caller);
      } else {
        this.staged = pool.acquire(remaining);
        if (source) {
          staged.put(0, caller, position, remaining);
        }
        this.buffer = staged;
        this.offset = 0;
        this.length = remaining;
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
    public void close() {
      if (staged != null) {
        pool.release(staged);
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
  private final class BatchTransfer implements AutoCloseable {
    final List<Transfer> transfers;
    final ByteBuffer[] buffers;
    final int[] offsets;
    final int[] lengths;

    BatchTransfer(ByteBuffer[] callers, boolean source) {
      transfers = new ArrayList<>(callers.length);
      buffers = new ByteBuffer[callers.length];
      offsets = new int[callers.length];
      lengths = new int[callers.length];
      try {
        for (int i = 0; i < callers.length; i++) {
          Transfer transfer = new Transfer(callers[i], source);
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
    public void close() {
      transfers.forEach(Transfer::close);
    }
  }

  @Override
  public int put(String key, ByteBuffer value) {
    byte[] k = key(key);
    ensureOpen();
    try (Transfer transfer = new Transfer(value, true)) {
      return client.putFrom(k, transfer.buffer, transfer.offset, transfer.length, replica);
    } catch (IllegalStateException e) {
      throw closedException(e);
    }
  }

  @Override
  public long getInto(String key, ByteBuffer destination) {
    byte[] k = key(key);
    ensureOpen();
    try (Transfer transfer = new Transfer(destination, false)) {
      long result = client.getInto(k, transfer.buffer, transfer.offset, transfer.length);
      transfer.deliver(destination, result);
      return result;
    } catch (IllegalStateException e) {
      throw closedException(e);
    }
  }

  private static void checkBatch(String[] keys, ByteBuffer[] buffers) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(buffers, "buffers");
    if (keys.length != buffers.length) {
      throw new IllegalArgumentException(keys.length + " keys but " + buffers.length + " buffers");
    }
    for (int i = 0; i < buffers.length; i++) {
      int index = i;
      Objects.requireNonNull(buffers[i], () -> "buffers[" + index + "] is null");
    }
  }

  private static byte[][] keys(String[] keys) {
    byte[][] encoded = new byte[keys.length][];
    for (int i = 0; i < keys.length; i++) {
      encoded[i] = key(keys[i]);
    }
    return encoded;
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values) {
    checkBatch(keys, values);
    byte[][] k = keys(keys);
    ensureOpen();
    if (k.length == 0) {
      return new int[0];
    }
    BatchTransfer batch = null;
    try {
      batch = new BatchTransfer(values, true);
      int[] results = new int[k.length];
      int overall =
          client.batchPutFrom(k, batch.buffers, batch.offsets, batch.lengths, replica, results);
      if (overall != 0) {
        Arrays.fill(results, overall);
      }
      return results;
    } catch (IllegalStateException e) {
      throw closedException(e);
    } finally {
      if (batch != null) {
        batch.close();
      }
    }
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations) {
    checkBatch(keys, destinations);
    byte[][] k = keys(keys);
    ensureOpen();
    if (k.length == 0) {
      return new long[0];
    }
    BatchTransfer batch = null;
    try {
      batch = new BatchTransfer(destinations, false);
      long[] results = new long[k.length];
      int overall = client.batchGetInto(k, batch.buffers, batch.offsets, batch.lengths, results);
      if (overall != 0) {
        Arrays.fill(results, overall);
      } else {
        for (int i = 0; i < k.length; i++) {
          batch.transfers.get(i).deliver(destinations[i], results[i]);
        }
      }
      return results;
    } catch (IllegalStateException e) {
      throw closedException(e);
    } finally {
      if (batch != null) {
        batch.close();
      }
    }
  }

  @Override
  public int isExist(String key) {
    byte[] k = key(key);
    ensureOpen();
    try {
      return client.isExist(k);
    } catch (IllegalStateException e) {
      throw closedException(e);
    }
  }

  @Override
  public int[] batchIsExist(String[] keys) {
    Objects.requireNonNull(keys, "keys");
    byte[][] k = keys(keys);
    ensureOpen();
    if (k.length == 0) {
      return new int[0];
    }
    try {
      int[] results = new int[k.length];
      int overall = client.batchIsExist(k, results);
      if (overall != 0) {
        Arrays.fill(results, overall);
      }
      return results;
    } catch (IllegalStateException e) {
      throw closedException(e);
    }
  }

  @Override
  public long getSize(String key) {
    byte[] k = key(key);
    ensureOpen();
    try {
      return client.getSize(k);
    } catch (IllegalStateException e) {
      throw closedException(e);
    }
  }

  @Override
  public int remove(String key, boolean force) {
    byte[] k = key(key);
    ensureOpen();
    try {
      return client.remove(k, force);
    } catch (IllegalStateException e) {
      throw closedException(e);
    }
  }

  @Override
  public long removeByRegex(String pattern, boolean force) {
    byte[] p = key(pattern);
    ensureOpen();
    try {
      return client.removeByRegex(p, force);
    } catch (IllegalStateException e) {
      throw closedException(e);
    }
  }

  @Override
  public long removeAll(boolean force) {
    ensureOpen();
    try {
      return client.removeAll(force);
    } catch (IllegalStateException e) {
      throw closedException(e);
    }
  }

  @Override
  public int healthCheck() {
    ensureOpen();
    try {
      return client.healthCheck();
    } catch (IllegalStateException e) {
      throw closedException(e);
    }
  }

  @Override
  public BufferPool buffers() {
    return pool;
  }

  @Override
  public String describe() {
    return description;
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
    long address = MooncakeNative.bufferAddress(buffer);
    synchronized (callerRegistrations) {
      int[] count = callerRegistrations.get(address);
      if (count == null) {
        int code;
        try {
          code = client.registerBuffer(buffer, 0, buffer.capacity());
        } catch (IllegalStateException e) {
          throw closedException(e);
        }
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
          LOG.warn("unregistering a caller buffer at 0x{} answered {}", Long.toHexString(address), StoreStatus.describe(code));
        }
      } catch (IllegalStateException e) {
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
  void deferShutdownWhile(java.util.function.BooleanSupplier inUse) {
    this.inUse = inUse;
  }

  /**
   * Other shutdown hooks run at the same time as this one, Spring's among them, and its graceful
   * shutdown still serves requests that use the cache; closing the client at once failed them.
   * So the hook waits until no cache manager holds the store (Spring closes its cache manager
   * last) or {@code mooncake.jcache.shutdownGraceMillis} (default 10 s) passed, then closes.
   */
  private void closeFromHook() {
    long grace = Long.getLong(SHUTDOWN_GRACE_PROPERTY, 10_000L);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(grace);
    if (!closed.get() && inUse.getAsBoolean() && grace > 0) {
      LOG.info("JVM shutdown: waiting up to {} ms for the cache managers on {} to close",
          grace, description);
      try {
        while (!closed.get() && inUse.getAsBoolean() && System.nanoTime() < deadline) {
          Thread.sleep(10); // polls the leases; the other hooks are not ours to wait on
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (!closed.get()) {
      LOG.info("JVM shutdown: closing {}", description);
      closeResources();
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

  private void closeResources() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    pool.close();
    try {
      client.close(); // waits for calls in flight, unregisters the region, destroys the client
    } finally {
      replica.close();
      region.close(); // pages back now; the mapping when no buffer of it is reachable
      LOG.debug("closed {}", description);
    }
  }

  MooncakeConfig config() {
    return config;
  }

  RegionBufferPool pool() {
    return pool;
  }

  NativeRegion region() {
    return region;
  }
}
