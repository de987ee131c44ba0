package dev.mooncake.jcache.nativebridge;

import java.nio.ByteBuffer;

/**
 * The raw JNI entry points over Mooncake Store's C ABI ({@code store_c.h}). Prefer the owner
 * classes {@link MooncakeLibrary}, {@link MooncakeClient}, {@link ReplicaConfig} and
 * {@link NativeRegion}; these statics exist for them and for tests.
 *
 * <p>Contract of every method: handles are opaque {@code long}s that the native side looks up in a
 * table, never dereferences; a zero, stale, closed or forged handle throws
 * {@link IllegalStateException}. Keys and patterns are {@code byte[]} (UTF-8), non-empty, without
 * NUL. Buffers are direct {@link ByteBuffer}s with an {@code offset} and {@code length} that must
 * lie inside the buffer's capacity (position and limit are ignored); destinations must not be
 * read-only. Bad arguments throw {@link NullPointerException} or {@link IllegalArgumentException}
 * before Mooncake is called. Mooncake's result codes come back unchanged (0 or a count/size on
 * success, a negative code on failure). Batch calls take arrays of the same length (at least 1)
 * and write one result per key.
 */
public final class MooncakeNative {
  /** {@link #create} flag: save and restore signal dispositions and the caller's signal mask. */
  public static final int SIGNALS_RESTORE = 1;

  /** {@link #create} flag: make Mooncake see a host runtime, so it starts no signal thread. */
  public static final int SIGNALS_HOST_PROBE = 2;

  /** Both: the JVM keeps its signals (the default). */
  public static final int SIGNALS_JVM = SIGNALS_RESTORE | SIGNALS_HOST_PROBE;

  private MooncakeNative() {}

  /** Loads the JNI library; idempotent. Throws {@link NativeBridgeException} naming the cause. */
  public static void load() {
    JniLoader.ensureLoaded();
  }

  // Library

  /** dlopen()s the library and resolves all 19 symbols; throws {@link NativeBridgeException}. */
  public static native long openLibrary(String path);

  /** How many functions of the C ABI the bridge resolves (19). */
  public static native int symbolCount();

  /**
   * Sets {@code MC_RPC_TIMEOUT_MS} / {@code MC_RPC_CONNECT_TIMEOUT_MS} in the process environment
   * when unset (values {@code <= 0} are skipped). Returns bit 0 / bit 1 for each one set.
   */
  public static native int applyRpcTimeouts(long requestTimeoutMs, long connectTimeoutMs);

  /** Whether {@code Py_IsInitialized} is visible in the process's global symbol scope. */
  public static native boolean hostProbeVisible();

  // Store lifecycle

  /** {@code mooncake_store_create}; 0 when it returned NULL. */
  public static native long create(long library, int signalFlags);

  public static native int setup(
      long store,
      String localHostname,
      String metadataServer,
      long globalSegmentSize,
      long localBufferSize,
      String protocol,
      String deviceName,
      String masterServerAddress);

  public static native int initAll(
      long store, String protocol, String deviceName, long mountSegmentSize);

  /** Bit n set: the disposition of signal n was changed by Mooncake and put back. */
  public static native long signalsRestored(long store);

  public static native int healthCheck(long store);

  /** Waits for calls in flight, unregisters regions registered through it, destroys. */
  public static native void destroy(long store);

  // Replicate config

  public static native long newReplicaConfig(
      long replicaNum, boolean softPin, boolean hardPin, String[] preferredSegments);

  public static native void freeReplicaConfig(long config);

  // Data; config 0 means Mooncake's default (one replica)

  public static native int put(
      long store, byte[] key, ByteBuffer value, int offset, int length, long config);

  public static native int putFrom(
      long store, byte[] key, ByteBuffer value, int offset, int length, long config);

  public static native long getInto(
      long store, byte[] key, ByteBuffer destination, int offset, int length);

  public static native int isExist(long store, byte[] key);

  public static native long getSize(long store, byte[] key);

  public static native int remove(long store, byte[] key, boolean force);

  public static native long removeByRegex(long store, byte[] pattern, boolean force);

  public static native long removeAll(long store, boolean force);

  /** Fills {@code out} with the NUL-terminated segment name (host:port); 0 or a code. */
  public static native int getHostname(long store, byte[] out);

  public static native int batchPutFrom(
      long store,
      byte[][] keys,
      ByteBuffer[] buffers,
      int[] offsets,
      int[] lengths,
      long config,
      int[] results);

  public static native int batchGetInto(
      long store,
      byte[][] keys,
      ByteBuffer[] buffers,
      int[] offsets,
      int[] lengths,
      long[] results);

  public static native int batchIsExist(long store, byte[][] keys, int[] results);

  // Caller buffers

  public static native int registerBuffer(long store, ByteBuffer buffer, int offset, int length);

  public static native int unregisterBuffer(long store, ByteBuffer buffer, int offset);

  /** The native address of a direct buffer (its index 0), 0 for a heap buffer. */
  public static native long bufferAddress(ByteBuffer buffer);

  // Regions

  public static native long regionAllocate(long size);

  public static native ByteBuffer regionView(long region, long offset, int length);

  public static native long regionAddress(long region);

  public static native long regionSize(long region);

  /** Views handed out and still reachable. */
  public static native int regionLiveViews(long region);

  public static native int registerRegion(long store, long region);

  public static native int unregisterRegion(long store, long region);

  public static native void regionRelease(long region);

  public static native boolean regionFree(long region);
}
