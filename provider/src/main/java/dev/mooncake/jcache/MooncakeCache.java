package dev.mooncake.jcache;

import dev.mooncake.jcache.config.CacheDefinition;
import dev.mooncake.jcache.internal.async.AsyncCalls;
import dev.mooncake.jcache.internal.entry.EntryMap;
import dev.mooncake.jcache.internal.entry.EntryStorage;
import dev.mooncake.jcache.internal.entry.KeyNamespace;
import dev.mooncake.jcache.internal.entry.StoredEntry;
import dev.mooncake.jcache.internal.event.EventDispatcher;
import dev.mooncake.jcache.internal.event.remote.ClusterEvents;
import dev.mooncake.jcache.internal.event.remote.RemoteEvents;
import dev.mooncake.jcache.internal.expiry.ExpirySweeper;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.integration.LoaderCalls;
import dev.mooncake.jcache.internal.integration.PendingLoads;
import dev.mooncake.jcache.internal.integration.WriterCalls;
import dev.mooncake.jcache.internal.lane.Lanes;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.management.CacheConfigurationBean;
import dev.mooncake.jcache.internal.management.CacheStatistics;
import dev.mooncake.jcache.internal.management.JmxRegistration;
import dev.mooncake.jcache.internal.near.NearCache;
import dev.mooncake.jcache.internal.operation.CacheContext;
import dev.mooncake.jcache.internal.operation.CacheListeners;
import dev.mooncake.jcache.internal.operation.EntryIterator;
import dev.mooncake.jcache.internal.operation.Operations;
import dev.mooncake.jcache.internal.operation.ZeroCopyAccess;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CompletionListener;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorResult;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JCache {@link Cache} whose entries live in a Mooncake-contract store: the facade over the
 * cache's {@link Operations} (package {@code operation}, where JCache's semantics live: statistics,
 * events, read-through and write-through, entry processors and the expiry policy), plus the cache's
 * configuration, management and lifecycle. Each JCache method starts the operation's deadline
 * ({@code operation_timeout_ms}) and calls the one body its asynchronous twin calls too ({@link
 * AsyncCacheView}). The entries themselves, and what makes a step on them atomic, are the {@link
 * EntryMap}'s.
 */
public final class MooncakeCache<K, V> implements Cache<K, V>, ExpirySweeper.Sweepable {
  private static final Logger LOG = LoggerFactory.getLogger(MooncakeCache.class);

  /** The most keys one sweep of this cache examines. */
  private static final int SWEEP_BATCH = 10_000;

  private final String name;
  private final MooncakeCacheManager manager;
  private final MutableConfiguration<K, V> configuration;
  private final KeyNamespace keys;
  private final EntryMap<K> entries;
  private final EventDispatcher<K, V> dispatcher;
  private final CacheStatistics statistics = new CacheStatistics();
  private final CacheConfigurationBean configurationBean;
  private final List<Object> closeables = new ArrayList<>();
  private final PendingLoads pendingLoads;
  private final AsyncCalls.Scope asyncCalls;
  private final CacheContext<K, V> context;
  private final Operations<K, V> operations;

  /** Set by {@link #joinCluster}: this cache's share of the event stream, and its near cache. */
  private ClusterEvents cluster;

  private RemoteEvents remote;
  private NearCache<StoredEntry> near;

  MooncakeCache(
      String name,
      MooncakeCacheManager manager,
      MutableConfiguration<K, V> configuration,
      EntryStorage storage,
      KeyNamespace keys,
      KeyLocks locks,
      Lanes lanes,
      Executor eventExecutor,
      Ticker ticker) {
    this.name = name;
    this.manager = manager;
    this.configuration = configuration;
    this.keys = keys;
    this.dispatcher = new EventDispatcher<>(eventExecutor);
    CacheListeners<K, V> listeners = new CacheListeners<>(this, dispatcher, statistics);
    this.entries = new EntryMap<>(storage, locks, ticker, this::cacheKey, listeners);
    statistics.observeReads(storage::integrityMismatches, storage::unreachableReads);
    this.pendingLoads = new PendingLoads(name);
    this.asyncCalls = manager.asyncCalls().scope(name);
    ExpiryTimes expiry = new ExpiryTimes(configuration.getExpiryPolicyFactory().create());
    closeables.add(expiry.policy());
    LoaderCalls<K, V> loader = null;
    if (configuration.getCacheLoaderFactory() != null) {
      javax.cache.integration.CacheLoader<K, V> created =
          configuration.getCacheLoaderFactory().create();
      closeables.add(created);
      loader = new LoaderCalls<>(created);
    }
    javax.cache.integration.CacheWriter<? super K, ? super V> createdWriter =
        configuration.isWriteThrough() && configuration.getCacheWriterFactory() != null
            ? configuration.getCacheWriterFactory().create()
            : null;
    closeables.add(createdWriter);
    this.context =
        new CacheContext<>(
            name,
            configuration,
            keys,
            entries,
            ticker,
            expiry,
            loader,
            new WriterCalls<>(createdWriter),
            listeners,
            statistics,
            manager.clusterWideLocks());
    this.operations = new Operations<>(context, pendingLoads, lanes);
    for (CacheEntryListenerConfiguration<K, V> listener :
        configuration.getCacheEntryListenerConfigurations()) {
      dispatcher.register(listener);
    }
    this.configurationBean = new CacheConfigurationBean(() -> this.configuration);
    if (configuration.isStatisticsEnabled()) {
      setStatisticsEnabled(true);
    }
    if (configuration.isManagementEnabled()) {
      setManagementEnabled(true);
    }
  }

  /**
   * Joins the cluster's event stream (the manager has {@code events_endpoint}): listeners hear of
   * other JVMs' changes, and with {@code nearCache} settings reads are kept in a near cache.
   */
  void joinCluster(ClusterEvents events, CacheDefinition.NearCacheSettings nearCache) {
    this.near = nearCache == null ? null : new NearCache<>(nearCache.maxEntries());
    context.useNearCache(near);
    this.cluster = events;
    this.remote =
        events.attach(
            keys.prefixPattern().substring(1),
            near,
            new RemoteListenerEvents<>(
                this,
                dispatcher,
                storeKey -> entries.get(cacheKey(storeKey), storeKey, deadline()),
                this::cacheKey,
                context::now));
  }

  /** The near cache, or null (for tests and statistics). */
  NearCache<StoredEntry> nearCache() {
    return near;
  }

  /** This cache's share of the event stream, or null (for tests). */
  RemoteEvents remoteEvents() {
    return remote;
  }

  /** The operations the asynchronous view issues. */
  Operations<K, V> operations() {
    return operations;
  }

  // ---------------------------------------------------------------------------------------------
  // JCache operations: each starts its deadline and calls its one body

  @Override
  public V get(K key) {
    return operations.reads.get(key, deadline());
  }

  @Override
  public Map<K, V> getAll(Set<? extends K> keySet) {
    return operations.reads.getAll(keySet, deadline());
  }

  @Override
  public boolean containsKey(K key) {
    return operations.reads.containsKey(key, deadline());
  }

  @Override
  public void loadAll(
      Set<? extends K> keySet, boolean replaceExistingValues, CompletionListener listener) {
    operations.loads.loadAll(keySet, replaceExistingValues, listener);
  }

  @Override
  public void put(K key, V value) {
    operations.keys.put(key, value, deadline());
  }

  @Override
  public V getAndPut(K key, V value) {
    return operations.keys.getAndPut(key, value, deadline());
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    operations.batches.putAll(map, deadline());
  }

  @Override
  public boolean putIfAbsent(K key, V value) {
    return operations.keys.putIfAbsent(key, value, deadline());
  }

  @Override
  public boolean remove(K key) {
    return operations.keys.remove(key, deadline());
  }

  @Override
  public boolean remove(K key, V oldValue) {
    return operations.keys.remove(key, oldValue, deadline());
  }

  @Override
  public V getAndRemove(K key) {
    return operations.keys.getAndRemove(key, deadline());
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    return operations.keys.replace(key, oldValue, newValue, deadline());
  }

  @Override
  public boolean replace(K key, V value) {
    return operations.keys.replace(key, value, deadline());
  }

  @Override
  public V getAndReplace(K key, V value) {
    return operations.keys.getAndReplace(key, value, deadline());
  }

  @Override
  public void removeAll(Set<? extends K> keySet) {
    operations.batches.removeAll(keySet);
  }

  @Override
  public void removeAll() {
    operations.batches.removeAll();
  }

  @Override
  public void clear() {
    operations.batches.clear();
  }

  @Override
  public <T> T invoke(K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    return operations.keys.invoke(key, processor, arguments, deadline());
  }

  @Override
  public <T> Map<K, EntryProcessorResult<T>> invokeAll(
      Set<? extends K> keySet, EntryProcessor<K, V, T> processor, Object... arguments) {
    return operations.batches.invokeAll(keySet, processor, arguments);
  }

  @Override
  public Iterator<Cache.Entry<K, V>> iterator() {
    return new EntryIterator<>(context, operations.reads, this::remove);
  }

  /**
   * Several gets as one batch read ({@link dev.mooncake.jcache.internal.operation.Reads#getEach}).
   */
  List<AsyncCalls.Answer<V>> getEach(List<K> keys, Deadline deadline) {
    return operations.reads.getEach(keys, deadline);
  }

  /** Several puts as one batch ({@link dev.mooncake.jcache.internal.operation.Batches#putEach}). */
  List<AsyncCalls.Answer<Void>> putEach(List<K> keys, List<V> values, Deadline deadline) {
    return operations.batches.putEach(keys, values, deadline);
  }

  // ---------------------------------------------------------------------------------------------
  // Active expiry

  /** Called by the manager's sweeper: removes entries whose expiry time has passed. */
  @Override
  public int sweepExpired(long nowMillis) {
    if (context.isClosed()) {
      return 0;
    }
    int examined = entries.sweep(nowMillis, SWEEP_BATCH);
    try {
      dispatcher.awaitSynchronous();
    } catch (RuntimeException e) {
      LOG.warn("a listener failed on an expiry event of cache '{}'", name, e);
    }
    return examined;
  }

  private K cacheKey(String storeKey) {
    return context.cacheKey(storeKey);
  }

  /** The deadline of a JCache operation starting now ({@link CacheContext#deadline}). */
  private Deadline deadline() {
    return entries.storage().deadline();
  }

  private void requireOpen() {
    context.requireOpen();
  }

  // ---------------------------------------------------------------------------------------------
  // Configuration, management, lifecycle

  @Override
  public <C extends Configuration<K, V>> C getConfiguration(Class<C> clazz) {
    synchronized (configuration) {
      if (clazz.isInstance(configuration)) {
        return clazz.cast(new MutableConfiguration<>(configuration));
      }
    }
    throw new IllegalArgumentException(
        "cache '" + name + "' has no configuration of type " + clazz.getName());
  }

  CompleteConfiguration<K, V> configuration() {
    return configuration;
  }

  @Override
  public void registerCacheEntryListener(CacheEntryListenerConfiguration<K, V> listener) {
    requireOpen();
    Objects.requireNonNull(listener, "listener configuration");
    synchronized (configuration) {
      configuration.addCacheEntryListenerConfiguration(listener);
      dispatcher.register(listener);
    }
  }

  @Override
  public void deregisterCacheEntryListener(CacheEntryListenerConfiguration<K, V> listener) {
    requireOpen();
    Objects.requireNonNull(listener, "listener configuration");
    synchronized (configuration) {
      configuration.removeCacheEntryListenerConfiguration(listener);
      closeQuietly(dispatcher.deregister(listener));
    }
  }

  void setStatisticsEnabled(boolean enabled) {
    synchronized (configuration) {
      configuration.setStatisticsEnabled(enabled);
      statistics.setEnabled(enabled);
      ObjectName objectName = objectName(JmxRegistration.Type.STATISTICS);
      if (enabled) {
        JmxRegistration.register(statistics, objectName);
      } else {
        JmxRegistration.unregister(objectName);
      }
    }
  }

  void setManagementEnabled(boolean enabled) {
    synchronized (configuration) {
      configuration.setManagementEnabled(enabled);
      ObjectName objectName = objectName(JmxRegistration.Type.CONFIGURATION);
      if (enabled) {
        JmxRegistration.register(configurationBean, objectName);
      } else {
        JmxRegistration.unregister(objectName);
      }
    }
  }

  private ObjectName objectName(JmxRegistration.Type type) {
    return JmxRegistration.objectName(manager.getURI().toString(), name, type);
  }

  /** The statistics bean, whether or not it is registered. */
  public CacheStatistics statistics() {
    return statistics;
  }

  @Override
  public String getName() {
    return name;
  }

  @Override
  public CacheManager getCacheManager() {
    return manager;
  }

  @Override
  public boolean isClosed() {
    return context.isClosed();
  }

  /**
   * Destroys the cache ({@link MooncakeCacheManager#destroyCache}): background loads end first, so
   * none writes an entry after the clear.
   */
  void destroy() {
    endAsyncCalls();
    endPendingLoads();
    clear();
    close();
  }

  /**
   * Queued asynchronous operations fail, running ones are awaited (up to the operation timeout):
   * they may call the writer or loader, which close after them.
   */
  private void endAsyncCalls() {
    asyncCalls.end(entries.storage().operationTimeout());
  }

  /** Queued loads fail their listeners, running ones are awaited (up to the operation timeout). */
  private void endPendingLoads() {
    pendingLoads.end(entries.storage().operationTimeout());
  }

  @Override
  public void close() {
    if (context.isClosed()) {
      return;
    }
    synchronized (configuration) {
      if (context.isClosed()) {
        return;
      }
      context.close();
      if (cluster != null) {
        cluster.detach(keys.prefixPattern().substring(1), remote);
      }
      manager.forget(name, this);
      JmxRegistration.unregister(objectName(JmxRegistration.Type.STATISTICS));
      JmxRegistration.unregister(objectName(JmxRegistration.Type.CONFIGURATION));
    }
    // Outside the monitor (a running loader or listener may read the configuration), and before
    // the loader and listeners close: a load or delivery after that would reopen what they held.
    endAsyncCalls();
    endPendingLoads();
    dispatcher.retire(entries.storage().operationTimeout());
    for (Object closeable : closeables) {
      closeQuietly(closeable);
    }
    for (Object listenerOrFilter : dispatcher.listenersAndFilters()) {
      closeQuietly(listenerOrFilter);
    }
  }

  private static void closeQuietly(Object resource) {
    if (resource instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        LOG.warn("failed to close {}", resource, e);
      }
    }
  }

  @Override
  public <T> T unwrap(Class<T> clazz) {
    if (clazz.isInstance(this)) {
      return clazz.cast(this);
    }
    if (clazz == ZeroCopyCache.class) {
      return clazz.cast(ZeroCopyAccess.of(context));
    }
    if (clazz == MooncakeCacheAsync.class) {
      requireOpen();
      return clazz.cast(new AsyncCacheView<>(this, asyncCalls, null));
    }
    throw new IllegalArgumentException("cannot unwrap cache '" + name + "' to " + clazz.getName());
  }

  @Override
  public String toString() {
    return "MooncakeCache[" + name + "]";
  }
}
