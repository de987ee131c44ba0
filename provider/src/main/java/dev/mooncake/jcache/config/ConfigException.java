package dev.mooncake.jcache.config;

import javax.cache.CacheException;

/** A configuration that cannot be used; the message names the source, the key and the problem. */
public class ConfigException extends CacheException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
