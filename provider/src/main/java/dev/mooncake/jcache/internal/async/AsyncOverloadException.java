package dev.mooncake.jcache.internal.async;

import javax.cache.CacheException;

/**
 * Thrown by an asynchronous operation's method when its cache manager already holds {@code
 * async_max_in_flight} operations and none completed within the wait ({@code operation_timeout_ms};
 * no wait on the provider's own threads). Nothing was issued: the caller may retry later. See
 * docs/async.md, "Back-pressure".
 */
public final class AsyncOverloadException extends CacheException {
  private static final long serialVersionUID = 1L;

  public AsyncOverloadException(String message) {
    super(message);
  }
}
