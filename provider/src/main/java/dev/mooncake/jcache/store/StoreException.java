package dev.mooncake.jcache.store;

/** The store as a whole is unusable (closed, not set up, library missing, region exhausted). */
public class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
