package dev.mooncake.jcache.nativebridge;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One loaded {@code libmooncake_store.so} with all 19 required functions of its C ABI resolved (an
 * error names each one missing) and the optional ones looked up ({@link #hasEtcdTlsConfig}). A
 * library is never unloaded (Mooncake leaves threads and atexit handlers behind): a path is opened
 * once and instances need no closing.
 *
 * <p>Which file: the config's {@code library} path; else the environment variable {@value
 * #ENVIRONMENT_VARIABLE} (as Mooncake's own Rust binding does); else the plain soname {@value
 * #SONAME} through the dynamic loader's search path ({@code LD_LIBRARY_PATH}, ld.so.cache).
 */
public final class MooncakeLibrary {
  public static final String ENVIRONMENT_VARIABLE = "MOONCAKE_STORE_LIBRARY";
  public static final String SONAME = "libmooncake_store.so";

  /** Bit of {@link #optionalSymbols}: {@code mooncake_store_set_etcd_tls_config}. */
  private static final int ETCD_TLS_CONFIG = 1;

  /** Native handles by path: a path is dlopen()ed and resolved once. */
  private static final Map<String, Long> LOADED = new ConcurrentHashMap<>();

  private final long handle;
  private final String path;
  private final String origin;

  private MooncakeLibrary(long handle, String path, String origin) {
    this.handle = handle;
    this.path = path;
    this.origin = origin;
  }

  /** Loads the JNI library; idempotent. Throws {@link NativeBridgeException} naming the cause. */
  public static void load() {
    JniLoader.ensureLoaded();
  }

  /** Opens the library a config names ({@code null} or blank: the environment's choice). */
  public static MooncakeLibrary open(String configuredPath) {
    return open(configuredPath, System.getenv(ENVIRONMENT_VARIABLE));
  }

  /** As {@link #open(String)}, with the environment variable's value given (for tests). */
  public static MooncakeLibrary open(String configuredPath, String environmentValue) {
    String path;
    String origin;
    if (configuredPath != null && !configuredPath.isBlank()) {
      path = configuredPath;
      origin = "the config's 'library'";
    } else if (environmentValue != null && !environmentValue.isBlank()) {
      path = environmentValue;
      origin = "$" + ENVIRONMENT_VARIABLE;
    } else {
      path = SONAME;
      origin =
          "the default soname, searched on the loader's path (set 'library' in the config or $"
              + ENVIRONMENT_VARIABLE
              + " to choose a file)";
    }
    load();
    Long cached = LOADED.get(path);
    if (cached == null) {
      synchronized (LOADED) {
        cached = LOADED.get(path);
        if (cached == null) {
          NativeLogs.beforeLoad(); // glog and Mooncake's config read the variables during dlopen
          try {
            cached = openLibrary(path);
          } catch (NativeBridgeException e) {
            throw new NativeBridgeException(e.getMessage() + " [path from " + origin + "]", e);
          } finally {
            NativeLogs.restoreEnvironment(); // read by now: children must not inherit them
          }
          NativeLogs.afterLoad(cached);
          LOADED.put(path, cached);
        }
      }
    }
    return new MooncakeLibrary(cached, path, origin);
  }

  /**
   * Sets {@code MC_RPC_TIMEOUT_MS} / {@code MC_RPC_CONNECT_TIMEOUT_MS} in the process environment
   * where unset (values {@code <= 0} are skipped), for the setup of the next client: Mooncake reads
   * them once, when setup builds its master RPC pool. Close the answer once that setup returned: it
   * unsets what it set (while the variable still holds that value), so that processes this JVM
   * starts do not inherit them.
   */
  public static RpcTimeouts applyRpcTimeouts(long requestTimeoutMs, long connectTimeoutMs) {
    load();
    return new RpcTimeouts(
        setRpcTimeoutsIfUnset(requestTimeoutMs, connectTimeoutMs),
        requestTimeoutMs,
        connectTimeoutMs);
  }

  /**
   * What {@link #applyRpcTimeouts} set: bit 0 of {@code applied} for {@code MC_RPC_TIMEOUT_MS}, bit
   * 1 for {@code MC_RPC_CONNECT_TIMEOUT_MS} (a variable the user had set is left alone).
   */
  public record RpcTimeouts(int applied, long requestTimeoutMs, long connectTimeoutMs)
      implements AutoCloseable {
    /** Unsets what was set; answers the same bits for what it unset. */
    public int unset() {
      return applied == 0 ? 0 : unsetRpcTimeouts(applied, requestTimeoutMs, connectTimeoutMs);
    }

    @Override
    public void close() {
      unset();
    }
  }

  long handle() {
    return handle;
  }

  public String path() {
    return path;
  }

  /** Where the path came from, for messages. */
  public String origin() {
    return origin;
  }

  /** Whether the library exports {@code mooncake_store_set_etcd_tls_config} (some versions). */
  public boolean hasEtcdTlsConfig() {
    return (optionalSymbols(handle) & ETCD_TLS_CONFIG) != 0;
  }

  @Override
  public String toString() {
    return path;
  }

  // Natives (mcj_library.c). Package-private, not private, so that the package's tests can hand
  // them forged handles; nothing outside the package sees them.

  /** dlopen()s the library and resolves its symbols; throws {@link NativeBridgeException}. */
  static native long openLibrary(String path);

  /** How many functions of the C ABI the bridge requires (19). */
  static native int symbolCount();

  static native int optionalSymbols(long library);

  private static native int setRpcTimeoutsIfUnset(long requestTimeoutMs, long connectTimeoutMs);

  private static native int unsetRpcTimeouts(
      int applied, long requestTimeoutMs, long connectTimeoutMs);

  /** Whether {@code Py_IsInitialized} is visible in the process's global symbol scope. */
  static native boolean hostProbeVisible();
}
