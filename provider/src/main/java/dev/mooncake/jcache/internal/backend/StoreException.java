package dev.mooncake.jcache.internal.backend;

import javax.cache.CacheException;

/**
 * A store call failed: the one failure type of the store layer, read the same way by every layer
 * above it (in the manner of RocksJava's {@code RocksDBException} and its {@code Status}). When a
 * call answered a code, the exception carries it ({@link #code}, and its {@link #status} when
 * Mooncake's table names it); when the store as a whole is unusable (closed, not set up, library
 * missing, region exhausted) it carries none. A {@link CacheException}, so that it reaches JCache
 * callers as the spec's failure type.
 */
public class StoreException extends CacheException {
  private static final long serialVersionUID = 1L;

  /** The code a call answered; 0 when the failure is not a call's answer. */
  private final long code;

  public StoreException(String message) {
    this(message, 0);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
    this.code = 0;
  }

  /** A call that answered {@code code} (negative: Mooncake's code). */
  public StoreException(String message, long code) {
    super(message);
    this.code = code;
  }

  /** The code the failed call answered; 0 when the failure is not a call's answer. */
  public long code() {
    return code;
  }

  /**
   * The status of {@link #code}, or {@code null} when there is none (the store is unusable) or
   * Mooncake's table has no name for it.
   */
  public StoreStatus status() {
    return code < 0 ? StoreStatus.of(code) : null;
  }
}
