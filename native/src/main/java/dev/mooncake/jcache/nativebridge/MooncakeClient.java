package dev.mooncake.jcache.nativebridge;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Owns one Mooncake Store client handle ({@code mooncake_store_create} ... {@code destroy}).
 * Thread-safe: Mooncake's handle is shared by many threads. {@link #close()} waits for calls in
 * flight, unregisters regions registered through this client, and destroys it, exactly once;
 * calls after that throw {@link IllegalStateException}.
 *
 * <p>Keys are UTF-8 {@code byte[]} (see {@link #key(String)}). Results are Mooncake's codes.
 *
 * <p>Signals: by default the JVM keeps SIGINT/SIGTERM/SIGHUP (see docs/native-bridge.md); the
 * system property {@value #SIGNALS_PROPERTY}{@code =mooncake} leaves Mooncake's handling alone.
 */
public final class MooncakeClient extends NativeOwner {
  public static final String SIGNALS_PROPERTY = "mooncake.jcache.signals";

  private final MooncakeLibrary library;

  private MooncakeClient(long handle, MooncakeLibrary library) {
    super(handle, "Mooncake client of " + library.path());
    this.library = library;
  }

  /** Creates a client with the signal handling the system property chooses (default: the JVM's). */
  public static MooncakeClient create(MooncakeLibrary library) {
    return create(library, signalFlagsFromProperty());
  }

  /** @param signalFlags a combination of {@link MooncakeNative}'s {@code SIGNALS_*} flags */
  public static MooncakeClient create(MooncakeLibrary library, int signalFlags) {
    long handle = MooncakeNative.create(library.handle(), signalFlags);
    if (handle == 0) {
      throw new NativeBridgeException(
          "mooncake_store_create() of " + library.path() + " returned NULL");
    }
    return new MooncakeClient(handle, library);
  }

  static int signalFlagsFromProperty() {
    String value = System.getProperty(SIGNALS_PROPERTY, "jvm").trim().toLowerCase(Locale.ROOT);
    switch (value) {
      case "jvm":
        return MooncakeNative.SIGNALS_JVM;
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

  public int setup(
      String localHostname,
      String metadataServer,
      long globalSegmentSize,
      long localBufferSize,
      String protocol,
      String deviceName,
      String masterServerAddress) {
    return MooncakeNative.setup(
        handle(),
        localHostname,
        metadataServer,
        globalSegmentSize,
        localBufferSize,
        protocol,
        deviceName,
        masterServerAddress);
  }

  public int initAll(String protocol, String deviceName, long mountSegmentSize) {
    return MooncakeNative.initAll(handle(), protocol, deviceName, mountSegmentSize);
  }

  public int healthCheck() {
    return MooncakeNative.healthCheck(handle());
  }

  /** Bit n: Mooncake changed the disposition of signal n and the bridge put it back. */
  public long signalsRestored() {
    return MooncakeNative.signalsRestored(handle());
  }

  /** This client's segment name ({@code host:port}); throws {@link NativeBridgeException}. */
  public String hostname() {
    byte[] out = new byte[1024];
    int code = MooncakeNative.getHostname(handle(), out);
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

  /** Copying put of {@code value[offset, offset + length)}. */
  public int put(byte[] key, ByteBuffer value, int offset, int length, ReplicaConfig config) {
    return MooncakeNative.put(handle(), key, value, offset, length, config(config));
  }

  /** Zero-copy put of {@code value[offset, offset + length)}. */
  public int putFrom(byte[] key, ByteBuffer value, int offset, int length, ReplicaConfig config) {
    return MooncakeNative.putFrom(handle(), key, value, offset, length, config(config));
  }

  public int batchPutFrom(
      byte[][] keys,
      ByteBuffer[] buffers,
      int[] offsets,
      int[] lengths,
      ReplicaConfig config,
      int[] results) {
    return MooncakeNative.batchPutFrom(
        handle(), keys, buffers, offsets, lengths, config(config), results);
  }

  public long getInto(byte[] key, ByteBuffer destination, int offset, int length) {
    return MooncakeNative.getInto(handle(), key, destination, offset, length);
  }

  public int batchGetInto(
      byte[][] keys, ByteBuffer[] buffers, int[] offsets, int[] lengths, long[] results) {
    return MooncakeNative.batchGetInto(handle(), keys, buffers, offsets, lengths, results);
  }

  public int isExist(byte[] key) {
    return MooncakeNative.isExist(handle(), key);
  }

  public int batchIsExist(byte[][] keys, int[] results) {
    return MooncakeNative.batchIsExist(handle(), keys, results);
  }

  public long getSize(byte[] key) {
    return MooncakeNative.getSize(handle(), key);
  }

  public int remove(byte[] key, boolean force) {
    return MooncakeNative.remove(handle(), key, force);
  }

  public long removeByRegex(byte[] pattern, boolean force) {
    return MooncakeNative.removeByRegex(handle(), pattern, force);
  }

  public long removeAll(boolean force) {
    return MooncakeNative.removeAll(handle(), force);
  }

  public int registerBuffer(ByteBuffer buffer, int offset, int length) {
    return MooncakeNative.registerBuffer(handle(), buffer, offset, length);
  }

  public int unregisterBuffer(ByteBuffer buffer, int offset) {
    return MooncakeNative.unregisterBuffer(handle(), buffer, offset);
  }

  /** Registers the whole region; {@link #close()} unregisters it if still registered. */
  public int registerRegion(NativeRegion region) {
    return MooncakeNative.registerRegion(handle(), region.nativeHandle());
  }

  public int unregisterRegion(NativeRegion region) {
    return MooncakeNative.unregisterRegion(handle(), region.nativeHandle());
  }

  @Override
  protected void dispose(long handle) {
    MooncakeNative.destroy(handle);
  }

  @Override
  public String toString() {
    return "MooncakeClient[" + library.path() + (isOpen() ? "" : ", closed") + "]";
  }
}
