package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.internal.entry.EntryMap;
import dev.mooncake.jcache.internal.entry.StoredEntry;
import dev.mooncake.jcache.internal.event.EventDispatcher;
import dev.mooncake.jcache.internal.management.CacheStatistics;
import javax.cache.Cache;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.EventType;

/**
 * A cache's listener plumbing: publishes what the entry map did (it calls this under the key's
 * lock, so events stay in key order), and waits for synchronous listeners once an operation's lock
 * is released. Every operation reaches the dispatcher through here.
 */
public final class CacheListeners<K, V> implements EntryMap.Listener<K> {
  private final Cache<K, V> source;
  private final EventDispatcher<K, V> dispatcher;
  private final CacheStatistics statistics;

  /**
   * @param source the cache the events name
   * @param statistics counts expiries as evictions
   */
  public CacheListeners(
      Cache<K, V> source, EventDispatcher<K, V> dispatcher, CacheStatistics statistics) {
    this.source = source;
    this.dispatcher = dispatcher;
    this.statistics = statistics;
  }

  /** The dispatcher beneath (registration, remote events, closing). */
  public EventDispatcher<K, V> dispatcher() {
    return dispatcher;
  }

  @Override
  public void written(K key, Object value, StoredEntry previous, boolean replacedUnread) {
    V typedValue = CacheContext.typed(value);
    if (previous == null && !replacedUnread) {
      dispatcher.created(source, key, typedValue);
    } else if (previous != null && dispatcher.hasListenerFor(EventType.UPDATED)) {
      dispatcher.updated(source, key, typedValue, CacheContext.value(previous));
    }
  }

  @Override
  public void removed(K key, StoredEntry previous) {
    if (dispatcher.hasListenerFor(EventType.REMOVED)) {
      dispatcher.removed(source, key, CacheContext.value(previous));
    }
  }

  @Override
  public void expired(K key, StoredEntry entry) {
    statistics.evictions(1);
    if (dispatcher.hasListenerFor(EventType.EXPIRED)) {
      dispatcher.expired(source, key, CacheContext.value(entry));
    }
  }

  /**
   * Whether a write may skip reading the old entry as far as listeners go: none wants updated or
   * expired events (the only ones that need it).
   */
  boolean needNoOldEntry() {
    return !dispatcher.hasListenerFor(EventType.UPDATED)
        && !dispatcher.hasListenerFor(EventType.EXPIRED);
  }

  /** Whether any listener wants removed or expired events (a removal must then go key by key). */
  boolean hearRemovals() {
    return dispatcher.hasListenerFor(EventType.REMOVED)
        || dispatcher.hasListenerFor(EventType.EXPIRED);
  }

  boolean hasSynchronousListener() {
    return dispatcher.hasSynchronousListener();
  }

  boolean hasRegistrations() {
    return dispatcher.hasRegistrations();
  }

  /** Waits for the synchronous listeners of the events published so far on this thread. */
  void await() {
    dispatcher.awaitSynchronous();
  }

  /** Forgets the synchronous deliveries of a failed operation (nobody waits for them). */
  void ignore() {
    dispatcher.ignoreSynchronous();
  }

  /**
   * {@link #await} after an operation that may have failed otherwise ({@code failure}, or null): a
   * listener's failure then is suppressed into it, else thrown.
   */
  void awaitAfter(RuntimeException failure) {
    try {
      dispatcher.awaitSynchronous();
    } catch (CacheEntryListenerException e) {
      if (failure == null) {
        throw e;
      }
      failure.addSuppressed(e);
    }
  }

  /** {@link #await} after a step that threw {@code failure}: what the wait throws is suppressed. */
  void awaitSuppressing(RuntimeException failure) {
    try {
      dispatcher.awaitSynchronous();
    } catch (RuntimeException e) {
      if (e != failure) {
        failure.addSuppressed(e);
      }
    }
  }
}
