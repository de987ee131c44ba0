package dev.mooncake.jcache.nativebridge;

/**
 * The bridge as a whole cannot work: the JNI library or {@code libmooncake_store.so} cannot be
 * loaded, symbols are missing, or native memory cannot be had. The message says which file, which
 * platform and why, in one line.
 */
public class NativeBridgeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NativeBridgeException(String message) {
    super(message);
  }

  public NativeBridgeException(String message, Throwable cause) {
    super(message, cause);
  }
}
