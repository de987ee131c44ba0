package dev.mooncake.jcache;

import javax.cache.Cache;

/** An immutable key-value pair handed to iterators and cache writers. */
public final class CacheEntry<K, V> implements Cache.Entry<K, V> {
  private final K key;
  private final V value;

  public CacheEntry(K key, V value) {
    this.key = key;
    this.value = value;
  }

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
    if (clazz.isInstance(this)) {
      return clazz.cast(this);
    }
    throw new IllegalArgumentException("cannot unwrap a cache entry to " + clazz);
  }

  @Override
  public String toString() {
    return key + "=" + value;
  }
}
