package dev.mooncake.jcache.internal.event;

import dev.mooncake.jcache.internal.calls.Causes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.cache.Cache;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.EventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers entry events to registered listeners. Events are published while the cache holds the
 * key's lock (so their order per key is the order of the mutations) and delivered on the executor;
 * a synchronous listener's delivery is awaited by {@link #awaitSynchronous()} after the lock is
 * released, so a slow listener never blocks other writers of the key longer than necessary.
 */
public final class EventDispatcher<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(EventDispatcher.class);

  private final Executor executor;
  private final List<Registration<K, V>> registrations = new CopyOnWriteArrayList<>();
  private final ThreadLocal<List<CompletableFuture<Void>>> pending =
      ThreadLocal.withInitial(ArrayList::new);
  // Set while this thread runs a listener: retire() from there must not wait for itself.
  private static final ThreadLocal<Boolean> DELIVERING = ThreadLocal.withInitial(() -> false);

  public EventDispatcher(Executor executor) {
    this.executor = executor;
  }

  /** Creates the listener and filter from the configuration's factories and registers them. */
  public void register(CacheEntryListenerConfiguration<K, V> configuration) {
    CacheEntryListener<? super K, ? super V> listener =
        configuration.getCacheEntryListenerFactory().create();
    CacheEntryEventFilter<? super K, ? super V> filter =
        configuration.getCacheEntryEventFilterFactory() == null
            ? event -> true
            : configuration.getCacheEntryEventFilterFactory().create();
    registrations.add(new Registration<>(configuration, listener, filter));
  }

  /** Removes the registration made from an equal configuration; its listener is returned. */
  public Object deregister(CacheEntryListenerConfiguration<K, V> configuration) {
    for (Registration<K, V> registration : registrations) {
      if (registration.configuration.equals(configuration)) {
        registrations.remove(registration);
        registration.retired = true;
        return registration.listener;
      }
    }
    return null;
  }

  /** The listeners (and filters) currently registered, for closing them. */
  public Collection<Object> listenersAndFilters() {
    List<Object> all = new ArrayList<>();
    for (Registration<K, V> registration : registrations) {
      all.add(registration.listener);
      all.add(registration.filter);
    }
    return all;
  }

  /** Whether any listener is registered. */
  public boolean hasRegistrations() {
    return !registrations.isEmpty();
  }

  /**
   * Whether a synchronous listener is registered: its failure is its operation's, so operations
   * that run together cannot tell whose it is (batches then run each operation alone).
   */
  public boolean hasSynchronousListener() {
    for (Registration<K, V> registration : registrations) {
      if (registration.configuration.isSynchronous()) {
        return true;
      }
    }
    return false;
  }

  /** Whether any listener wants events of this type (so callers can skip building them). */
  public boolean hasListenerFor(EventType type) {
    for (Registration<K, V> registration : registrations) {
      if (registration.accepts(type)) {
        return true;
      }
    }
    return false;
  }

  public void created(Cache<K, V> cache, K key, V value) {
    publish(cache, EventType.CREATED, key, value, null, false);
  }

  public void updated(Cache<K, V> cache, K key, V value, V oldValue) {
    publish(cache, EventType.UPDATED, key, value, oldValue, true);
  }

  public void removed(Cache<K, V> cache, K key, V oldValue) {
    publish(cache, EventType.REMOVED, key, oldValue, oldValue, true);
  }

  public void expired(Cache<K, V> cache, K key, V oldValue) {
    publish(cache, EventType.EXPIRED, key, oldValue, oldValue, true);
  }

  /**
   * Another JVM updated the entry: its old value is not known here (the stream carries keys only;
   * the new value was read on delivery).
   */
  public void updatedElsewhere(Cache<K, V> cache, K key, V value) {
    publish(cache, EventType.UPDATED, key, value, null, false);
  }

  /** Another JVM removed the entry (or Mooncake evicted it): no old value. */
  public void removedElsewhere(Cache<K, V> cache, K key) {
    publish(cache, EventType.REMOVED, key, null, null, false);
  }

  private void publish(Cache<K, V> cache, EventType type, K key, V value, V old, boolean hasOld) {
    if (registrations.isEmpty()) {
      return;
    }
    EntryEvent<K, V> event = null;
    for (Registration<K, V> registration : registrations) {
      if (!registration.accepts(type)) {
        continue;
      }
      if (event == null) {
        event = new EntryEvent<>(cache, type, key, value, old, hasOld);
      }
      if (!passes(registration, event)) {
        continue;
      }
      EntryEvent<K, V> delivered = event;
      CompletableFuture<Void> future =
          registration.queues.compute(
              key,
              (k, queue) ->
                  queue == null
                      ? CompletableFuture.runAsync(() -> deliver(registration, delivered), executor)
                      : queue.handleAsync(
                          (ignored, error) -> {
                            deliver(registration, delivered);
                            return null;
                          },
                          executor));
      future.whenComplete(
          (ignored, error) -> {
            registration.queues.remove(key, future);
            if (error != null && !registration.configuration.isSynchronous()) {
              LOG.warn("asynchronous cache entry listener failed", error);
            }
          });
      if (registration.configuration.isSynchronous()) {
        pending.get().add(future);
      }
    }
  }

  private static <K, V> void deliver(Registration<K, V> registration, EntryEvent<K, V> event) {
    boolean outer = DELIVERING.get();
    DELIVERING.set(true);
    try {
      registration.deliver(event);
    } finally {
      DELIVERING.set(outer);
    }
  }

  /**
   * Before the cache closes its listeners: waits, up to {@code bound}, for the deliveries queued so
   * far, then drops any later one. So an event of an operation that returned before close reaches
   * its listener, and none reaches a closed one. From inside a listener it does not wait (it would
   * wait for itself).
   */
  public void retire(Duration bound) {
    if (!DELIVERING.get()) {
      awaitQueued(bound);
    }
    for (Registration<K, V> registration : registrations) {
      registration.retired = true;
    }
  }

  private void awaitQueued(Duration bound) {
    List<CompletableFuture<Void>> queued = new ArrayList<>();
    for (Registration<K, V> registration : registrations) {
      queued.addAll(registration.queues.values()); // the newest per key: it follows the earlier
    }
    if (queued.isEmpty()) {
      return;
    }
    try {
      CompletableFuture.allOf(queued.toArray(CompletableFuture[]::new))
          .get(bound.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      LOG.warn(
          "closing the cache with listeners still delivering after {} ms; they are closed under"
              + " their deliveries",
          bound.toMillis());
    } catch (ExecutionException e) {
      // a listener failed: logged where its delivery completed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static <K, V> boolean passes(Registration<K, V> registration, EntryEvent<K, V> event) {
    try {
      return registration.filter.evaluate(event);
    } catch (CacheEntryListenerException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CacheEntryListenerException(e);
    }
  }

  /**
   * Waits for the synchronous listeners of the events this thread published; a listener's failure
   * is rethrown as a {@link CacheEntryListenerException}.
   */
  public void awaitSynchronous() {
    List<CompletableFuture<Void>> futures = pending.get();
    if (futures.isEmpty()) {
      return;
    }
    CompletableFuture<?>[] all = futures.toArray(CompletableFuture[]::new);
    futures.clear();
    try {
      CompletableFuture.allOf(all).join();
    } catch (CompletionException e) {
      throw Causes.unwrapped(
          e.getCause(), CacheEntryListenerException.class, CacheEntryListenerException::new);
    }
  }

  /** Forgets this thread's pending synchronous deliveries (after a failed operation). */
  public void ignoreSynchronous() {
    pending.get().clear();
  }
}
