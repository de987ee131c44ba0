package dev.mooncake.jcache;

import dev.mooncake.jcache.internal.entry.StoredEntry;
import dev.mooncake.jcache.internal.event.EventDispatcher;
import dev.mooncake.jcache.internal.event.remote.RemoteTarget;
import java.util.function.Function;
import java.util.function.LongSupplier;
import javax.cache.Cache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Another JVM's changes, as this cache's listeners receive them: the key decoded, the value read
 * now (the stream carries keys only), the old value unknown. Runs on the event executor, in stream
 * order per key; synchronous listeners are awaited here, as nobody else waits for them.
 */
record RemoteListenerEvents<K, V>(
    Cache<K, V> cache,
    EventDispatcher<K, V> dispatcher,
    Function<String, StoredEntry> reader,
    Function<String, K> cacheKeys,
    LongSupplier clock)
    implements RemoteTarget {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteListenerEvents.class);

  @Override
  public boolean hasListeners() {
    return dispatcher.hasRegistrations() && !cache.isClosed();
  }

  @Override
  @SuppressWarnings("unchecked")
  public void stored(String storeKey, boolean updated) {
    K key = key(storeKey);
    if (key == null) {
      return;
    }
    StoredEntry entry = reader.apply(storeKey);
    if (entry == null || entry.isExpired(clock.getAsLong())) {
      return; // gone again: its removal is on the stream too
    }
    V value = (V) entry.copyOfValue();
    if (updated) {
      dispatcher.updatedElsewhere(cache, key, value);
    } else {
      dispatcher.created(cache, key, value);
    }
    await();
  }

  @Override
  public void removed(String storeKey) {
    K key = key(storeKey);
    if (key != null) {
      dispatcher.removedElsewhere(cache, key);
      await();
    }
  }

  @Override
  public boolean exists(String storeKey) {
    return reader.apply(storeKey) != null; // rare: only a removal without its put in sight
  }

  private K key(String storeKey) {
    try {
      return cacheKeys.apply(storeKey);
    } catch (RuntimeException e) {
      // The prefix is this cache's but the rest is not a key we can decode: another program's.
      LOG.debug("event for undecodable key {} ignored: {}", storeKey, e.toString());
      return null;
    }
  }

  private void await() {
    try {
      dispatcher.awaitSynchronous();
    } catch (RuntimeException e) {
      LOG.warn("a synchronous listener failed on another JVM's change", e);
    }
  }
}
