package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.CacheEntry;
import dev.mooncake.jcache.internal.entry.StoredEntry;
import dev.mooncake.jcache.internal.time.Deadline;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import javax.cache.Cache;

/**
 * JCache's iterator over the keys this JVM wrote (docs/deviations.md): each entry is read when
 * {@link #hasNext} looks for it, as a get would (an access, a hit), so an entry gone since is
 * skipped and forgotten.
 */
public final class EntryIterator<K, V> implements Iterator<Cache.Entry<K, V>> {
  private final CacheContext<K, V> context;
  private final Reads<K, V> reads;
  private final Consumer<K> remove;
  private final Iterator<String> storeKeys;
  private Cache.Entry<K, V> next;
  private K last;

  /**
   * @param remove the cache's own remove, for {@link #remove()}
   */
  public EntryIterator(CacheContext<K, V> context, Reads<K, V> reads, Consumer<K> remove) {
    context.requireOpen();
    this.context = context;
    this.reads = reads;
    this.remove = remove;
    List<String> keys = context.entries.keys();
    this.storeKeys = keys.iterator();
  }

  @Override
  public boolean hasNext() {
    while (next == null && storeKeys.hasNext()) {
      context.requireOpen();
      String storeKey = storeKeys.next();
      K key = context.cacheKey(storeKey);
      Deadline deadline = context.deadline(); // each entry read is a step of its own
      StoredEntry entry = context.entries.get(key, storeKey, deadline);
      if (entry == null) {
        context.entries.forget(storeKey); // evicted, expired or removed elsewhere
        continue;
      }
      next = new CacheEntry<>(key, reads.accessed(key, storeKey, entry, deadline));
    }
    context.listeners.await();
    return next != null;
  }

  @Override
  public Cache.Entry<K, V> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Cache.Entry<K, V> entry = next;
    next = null;
    last = entry.getKey();
    context.statistics.hits(1);
    return entry;
  }

  @Override
  public void remove() {
    if (last == null) {
      throw new IllegalStateException("next() has not been called, or remove() already was");
    }
    remove.accept(last);
    last = null;
  }
}
