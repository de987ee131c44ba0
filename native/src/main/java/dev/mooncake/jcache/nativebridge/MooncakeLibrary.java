package dev.mooncake.jcache.nativebridge;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One loaded {@code libmooncake_store.so} with all 19 functions of its C ABI resolved. A library
 * is never unloaded (Mooncake leaves threads and atexit handlers behind): a path is opened once
 * and instances need no closing.
 *
 * <p>Which file: the config's {@code library} path; else the environment variable
 * {@value #ENVIRONMENT_VARIABLE} (as Mooncake's own Rust binding does); else the plain soname
 * {@value #SONAME} through the dynamic loader's search path ({@code LD_LIBRARY_PATH}, ld.so.cache).
 */
public final class MooncakeLibrary {
  public static final String ENVIRONMENT_VARIABLE = "MOONCAKE_STORE_LIBRARY";
  public static final String SONAME = "libmooncake_store.so";

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
      origin = "the default soname, searched on the loader's path (set 'library' in the config or $"
          + ENVIRONMENT_VARIABLE + " to choose a file)";
    }
    MooncakeNative.load();
    Long cached = LOADED.get(path);
    if (cached == null) {
      synchronized (LOADED) {
        cached = LOADED.get(path);
        if (cached == null) {
          try {
            cached = MooncakeNative.openLibrary(path);
          } catch (NativeBridgeException e) {
            throw new NativeBridgeException(e.getMessage() + " [path from " + origin + "]", e);
          }
          LOADED.put(path, cached);
        }
      }
    }
    return new MooncakeLibrary(cached, path, origin);
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

  @Override
  public String toString() {
    return path;
  }
}
