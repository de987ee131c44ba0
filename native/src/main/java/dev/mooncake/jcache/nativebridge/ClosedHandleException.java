package dev.mooncake.jcache.nativebridge;

/**
 * A call on a native object that is closed: its Java owner was closed, or the handle it passed is
 * zero, stale or forged (the native table refuses it instead of dereferencing it). Only this means
 * "closed": a released region, a full handle table or a bad argument throw something else. An
 * {@link IllegalStateException}, so that code catching that keeps working.
 */
public class ClosedHandleException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public ClosedHandleException(String message) {
    super(message);
  }
}
