package dev.mooncake.jcache.internal.event.remote;

/** A message on the event stream that is not in the master's format; names what is wrong. */
public final class KvEventFormatException extends Exception {
  private static final long serialVersionUID = 1L;

  public KvEventFormatException(String message) {
    super(message);
  }

  public KvEventFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
