package dev.mooncake.jcache;

import dev.mooncake.jcache.internal.event.Unwrap;
import javax.cache.Cache;

/**
 * An immutable key-value pair handed to iterators and cache writers.
 *
 * @param key the entry's key
 * @param value the entry's value
 */
public record CacheEntry<K, V>(K key, V value) implements Cache.Entry<K, V> {
  @Override
  public K getKey() {
    return key;
  }

  @Override
  public V getValue() {
    return value;
  }

  @Override
  public <T> T unwrap(Class<T> clazz) {
    return Unwrap.as(this, clazz, "a cache entry");
  }

  @Override
  public String toString() {
    return key + "=" + value;
  }
}
