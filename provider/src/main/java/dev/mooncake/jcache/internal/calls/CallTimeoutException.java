package dev.mooncake.jcache.internal.calls;

import javax.cache.CacheException;

/**
 * A store call run by {@link BoundedCalls} that did not answer in time, or was not started because
 * too many earlier ones are still stuck; also an asynchronous operation whose deadline passed
 * before it started ({@code async.AsyncCalls}). The message names the call, its key and the wait.
 */
public final class CallTimeoutException extends CacheException {
  private static final long serialVersionUID = 1L;

  public CallTimeoutException(String message) {
    super(message);
  }
}
