package dev.mooncake.jcache.internal.event;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.event.EventType;

/**
 * One registered listener: its configuration, the listener and filter its factories made, and a
 * chain of pending deliveries per key, so events for one key arrive in order while different keys
 * proceed in parallel.
 */
final class Registration<K, V> {
  final CacheEntryListenerConfiguration<K, V> configuration;
  final CacheEntryListener<? super K, ? super V> listener;
  final CacheEntryEventFilter<? super K, ? super V> filter;
  final ConcurrentMap<Object, CompletableFuture<Void>> queues = new ConcurrentHashMap<>();
  // Set once the listener is deregistered or about to be closed: later deliveries are dropped.
  volatile boolean retired;

  Registration(
      CacheEntryListenerConfiguration<K, V> configuration,
      CacheEntryListener<? super K, ? super V> listener,
      CacheEntryEventFilter<? super K, ? super V> filter) {
    this.configuration = configuration;
    this.listener = listener;
    this.filter = filter;
  }

  boolean accepts(EventType type) {
    return switch (type) {
      case CREATED -> listener instanceof CacheEntryCreatedListener;
      case UPDATED -> listener instanceof CacheEntryUpdatedListener;
      case REMOVED -> listener instanceof CacheEntryRemovedListener;
      case EXPIRED -> listener instanceof CacheEntryExpiredListener;
    };
  }

  @SuppressWarnings("unchecked")
  void deliver(EntryEvent<K, V> event) {
    if (retired) {
      return;
    }
    try {
      switch (event.getEventType()) {
        case CREATED -> ((CacheEntryCreatedListener<K, V>) listener).onCreated(event);
        case UPDATED -> ((CacheEntryUpdatedListener<K, V>) listener).onUpdated(event);
        case REMOVED -> ((CacheEntryRemovedListener<K, V>) listener).onRemoved(event);
        case EXPIRED -> ((CacheEntryExpiredListener<K, V>) listener).onExpired(event);
      }
    } catch (CacheEntryListenerException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CacheEntryListenerException(e);
    }
  }
}
