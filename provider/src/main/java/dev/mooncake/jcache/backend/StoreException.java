package dev.mooncake.jcache.backend;

import javax.cache.CacheException;

/**
 * The store as a whole is unusable (closed, not set up, library missing, region exhausted). A
 * {@link CacheException}, so that it reaches JCache callers as the spec's failure type.
 */
public class StoreException extends CacheException {
  private static final long serialVersionUID = 1L;

  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
