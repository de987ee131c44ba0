package dev.mooncake.jcache.bench;

import java.util.Map;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.CacheManager;

/** A peer reached through the JCache API: every provider but the floor. */
final class JCachePeer implements Peer {
  private final Cache<String, Object> cache;
  private final CacheManager manager;
  private final String description;
  private final Runnable onClose;

  JCachePeer(
      Cache<String, Object> cache, CacheManager manager, String description, Runnable onClose) {
    this.cache = cache;
    this.manager = manager;
    this.description = description;
    this.onClose = onClose;
  }

  @Override
  public Object get(String key) {
    return cache.get(key);
  }

  @Override
  public void put(String key, Object value) {
    cache.put(key, value);
  }

  @Override
  public Map<String, Object> getAll(Set<String> keys) {
    return cache.getAll(keys);
  }

  @Override
  public void putAll(Map<String, Object> entries) {
    cache.putAll(entries);
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    return cache.unwrap(type);
  }

  /** Clears the cache (for stores that outlive this JVM, such as a Redis server). */
  void clear() {
    cache.clear();
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public void close() {
    try {
      if (onClose != null) {
        onClose.run();
      }
    } finally {
      manager.close();
    }
  }
}
