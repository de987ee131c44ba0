package dev.mooncake.jcache.nativebridge;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Owns one Mooncake Store client handle ({@code mooncake_store_create} ... {@code destroy}) and is
 * the one layer between its users and C: each operation is a line that calls this class's own
 * native with the live handle (RocksJava's {@code RocksDB} shape). Thread-safe: Mooncake's handle
 * is shared by many threads. {@link #close()} waits for calls in flight, unregisters regions
 * registered through this client, and destroys it, exactly once; calls after that throw {@link
 * ClosedHandleException}.
 *
 * <p>Arguments: keys and patterns are UTF-8 {@code byte[]} (see {@link #key(String)}), non-empty,
 * without NUL. Buffers are direct {@link ByteBuffer}s with an {@code offset} and {@code length}
 * inside the capacity (position and limit are ignored); destinations must not be read-only. Bad
 * arguments throw {@link NullPointerException} or {@link IllegalArgumentException} before Mooncake
 * is called. Results are Mooncake's codes, unchanged (0 or a count/size on success, a negative code
 * on failure; -1 means "invalid argument or internal error", Mooncake does not say which). Batch
 * calls take arrays of the same length (at least 1) and write one result per key.
 *
 * <p>Signals: by default the JVM keeps SIGINT/SIGTERM/SIGHUP (see docs/native-bridge.md); the
 * system property {@value #SIGNALS_PROPERTY}{@code =mooncake} leaves Mooncake's handling alone.
 */
public final class MooncakeClient extends NativeOwner {
  public static final String SIGNALS_PROPERTY = "mooncake.jcache.signals";

  /** {@link #create} flag: save and restore signal dispositions and the caller's signal mask. */
  public static final int SIGNALS_RESTORE = 1;

  /** {@link #create} flag: make Mooncake see a host runtime, so it starts no signal thread. */
  public static final int SIGNALS_HOST_PROBE = 2;

  /** Both: the JVM keeps its signals (the default). */
  public static final int SIGNALS_JVM = SIGNALS_RESTORE | SIGNALS_HOST_PROBE;

  private final MooncakeLibrary library;
  private final StoreAbi abi;

  private MooncakeClient(long handle, MooncakeLibrary library, StoreAbi abi) {
    super(handle, "Mooncake client of " + library.path());
    this.library = library;
    this.abi = abi;
  }

  /** A client with the signal handling the system property chooses and no layout named. */
  public static MooncakeClient create(MooncakeLibrary library) {
    return create(library, signalFlagsFromProperty(), null);
  }

  /** A client with the signal handling the system property chooses. */
  public static MooncakeClient create(MooncakeLibrary library, StoreAbi abi) {
    return create(library, signalFlagsFromProperty(), abi);
  }

  /**
   * @param signalFlags a combination of the {@code SIGNALS_*} flags
   * @param abi the library's replicate_config layout, {@code null} when not known: then replica
   *     configs needing a pin or a TTL are refused (see {@link StoreAbi})
   */
  public static MooncakeClient create(MooncakeLibrary library, int signalFlags, StoreAbi abi) {
    long handle = create(library.handle(), signalFlags, StoreAbi.code(abi));
    if (handle == 0) {
      throw new NativeBridgeException(
          "mooncake_store_create() of " + library.path() + " returned NULL");
    }
    return new MooncakeClient(handle, library, abi);
  }

  static int signalFlagsFromProperty() {
    String value = System.getProperty(SIGNALS_PROPERTY, "jvm").trim().toLowerCase(Locale.ROOT);
    switch (value) {
      case "jvm":
        return SIGNALS_JVM;
      case "mooncake":
        return 0;
      default:
        throw new IllegalArgumentException(
            "-D" + SIGNALS_PROPERTY + "=" + value + ": expected 'jvm' or 'mooncake'");
    }
  }

  public static byte[] key(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  public MooncakeLibrary library() {
    return library;
  }

  /** The layout this client encodes replica configs in; {@code null} when not named. */
  public StoreAbi abi() {
    return abi;
  }

  /**
   * {@code mooncake_store_set_etcd_tls_config}, to call before {@link #setup}. Throws {@link
   * NativeBridgeException} naming the symbol when the library does not export it.
   */
  public void setEtcdTlsConfig(String caFile, String certFile, String keyFile) {
    setEtcdTlsConfig(handle(), caFile, certFile, keyFile);
  }

  public int setup(
      String localHostname,
      String metadataServer,
      long globalSegmentSize,
      long localBufferSize,
      String protocol,
      String deviceName,
      String masterServerAddress) {
    return setup(
        handle(),
        localHostname,
        metadataServer,
        globalSegmentSize,
        localBufferSize,
        protocol,
        deviceName,
        masterServerAddress);
  }

  public int healthCheck() {
    return healthCheck(handle());
  }

  /** Bit n: Mooncake changed the disposition of signal n and the bridge put it back. */
  public long signalsRestored() {
    return signalsRestored(handle());
  }

  /** This client's segment name ({@code host:port}); throws {@link NativeBridgeException}. */
  public String hostname() {
    byte[] out = new byte[1024];
    int code = getHostname(handle(), out);
    if (code != 0) {
      throw new NativeBridgeException(
          "mooncake_store_get_hostname() of " + library.path() + " failed with code " + code);
    }
    int length = 0;
    while (length < out.length && out[length] != 0) {
      length++;
    }
    return new String(out, 0, length, StandardCharsets.UTF_8);
  }

  private static long config(ReplicaConfig config) {
    return config == null ? 0 : config.nativeHandle();
  }

  /** Zero-copy put of {@code value[offset, offset + length)}; {@code config} null: one replica. */
  public int putFrom(byte[] key, ByteBuffer value, int offset, int length, ReplicaConfig config) {
    return putFrom(handle(), key, value, offset, length, config(config));
  }

  public int batchPutFrom(
      byte[][] keys,
      ByteBuffer[] buffers,
      int[] offsets,
      int[] lengths,
      ReplicaConfig config,
      int[] results) {
    return batchPutFrom(handle(), keys, buffers, offsets, lengths, config(config), results);
  }

  public long getInto(byte[] key, ByteBuffer destination, int offset, int length) {
    return getInto(handle(), key, destination, offset, length);
  }

  public int batchGetInto(
      byte[][] keys, ByteBuffer[] buffers, int[] offsets, int[] lengths, long[] results) {
    return batchGetInto(handle(), keys, buffers, offsets, lengths, results);
  }

  public int isExist(byte[] key) {
    return isExist(handle(), key);
  }

  public int batchIsExist(byte[][] keys, int[] results) {
    return batchIsExist(handle(), keys, results);
  }

  public long getSize(byte[] key) {
    return getSize(handle(), key);
  }

  public int remove(byte[] key, boolean force) {
    return remove(handle(), key, force);
  }

  public long removeByRegex(byte[] pattern, boolean force) {
    return removeByRegex(handle(), pattern, force);
  }

  public int registerBuffer(ByteBuffer buffer, int offset, int length) {
    return registerBuffer(handle(), buffer, offset, length);
  }

  public int unregisterBuffer(ByteBuffer buffer, int offset) {
    return unregisterBuffer(handle(), buffer, offset);
  }

  /** Registers the whole region; {@link #close()} unregisters it. */
  public int registerRegion(NativeRegion region) {
    return registerRegion(handle(), region.nativeHandle());
  }

  @Override
  protected void dispose(long handle) {
    destroy(handle);
  }

  @Override
  public String toString() {
    return "MooncakeClient[" + library.path() + (isOpen() ? "" : ", closed") + "]";
  }

  // Natives (mcj_store.c, mcj_batch.c, mcj_region.c). Package-private, not private, so that the
  // package's tests can hand them forged and closed handles; nothing outside the package sees
  // them. A bad handle throws ClosedHandleException.

  /** {@code mooncake_store_create}; 0 when it returned NULL. abi: 0 not named, 1-3. */
  static native long create(long library, int signalFlags, int abi);

  static native void setEtcdTlsConfig(long store, String caFile, String certFile, String keyFile);

  static native int setup(
      long store,
      String localHostname,
      String metadataServer,
      long globalSegmentSize,
      long localBufferSize,
      String protocol,
      String deviceName,
      String masterServerAddress);

  static native long signalsRestored(long store);

  static native int healthCheck(long store);

  static native void destroy(long store);

  static native int putFrom(
      long store, byte[] key, ByteBuffer value, int offset, int length, long config);

  static native long getInto(
      long store, byte[] key, ByteBuffer destination, int offset, int length);

  static native int isExist(long store, byte[] key);

  static native long getSize(long store, byte[] key);

  static native int remove(long store, byte[] key, boolean force);

  static native long removeByRegex(long store, byte[] pattern, boolean force);

  /** Fills {@code out} with the NUL-terminated segment name (host:port); 0 or a code. */
  static native int getHostname(long store, byte[] out);

  static native int batchPutFrom(
      long store,
      byte[][] keys,
      ByteBuffer[] buffers,
      int[] offsets,
      int[] lengths,
      long config,
      int[] results);

  static native int batchGetInto(
      long store,
      byte[][] keys,
      ByteBuffer[] buffers,
      int[] offsets,
      int[] lengths,
      long[] results);

  static native int batchIsExist(long store, byte[][] keys, int[] results);

  static native int registerBuffer(long store, ByteBuffer buffer, int offset, int length);

  static native int unregisterBuffer(long store, ByteBuffer buffer, int offset);

  static native int registerRegion(long store, long region);
}
