package dev.mooncake.jcache.internal.event;

import java.util.Iterator;
import java.util.List;
import javax.cache.Cache;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.EventType;

/** One cache entry event; it is also the one-element batch a listener receives. */
final class EntryEvent<K, V> extends CacheEntryEvent<K, V>
    implements Iterable<CacheEntryEvent<? extends K, ? extends V>> {
  private static final long serialVersionUID = 1L;

  private final K key;
  private final V value;
  private final V oldValue;
  private final boolean oldValueAvailable;

  EntryEvent(Cache<K, V> source, EventType type, K key, V value, V oldValue, boolean hasOld) {
    super(source, type);
    this.key = key;
    this.value = value;
    this.oldValue = oldValue;
    this.oldValueAvailable = hasOld;
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
  public V getOldValue() {
    return oldValue;
  }

  @Override
  public boolean isOldValueAvailable() {
    return oldValueAvailable;
  }

  @Override
  public <T> T unwrap(Class<T> clazz) {
    return Unwrap.as(this, clazz, "a cache entry event");
  }

  @Override
  public Iterator<CacheEntryEvent<? extends K, ? extends V>> iterator() {
    return List.<CacheEntryEvent<? extends K, ? extends V>>of(this).iterator();
  }

  @Override
  public String toString() {
    return getEventType() + "[" + key + "=" + value + ", old=" + oldValue + "]";
  }
}
