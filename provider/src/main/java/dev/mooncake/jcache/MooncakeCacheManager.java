package dev.mooncake.jcache;

import dev.mooncake.jcache.config.CacheDefinition;
import dev.mooncake.jcache.config.CacheDefinitions;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.async.AsyncCalls;
import dev.mooncake.jcache.internal.async.CpuRoom;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.codec.Codec;
import dev.mooncake.jcache.internal.codec.DeserializationFilter;
import dev.mooncake.jcache.internal.codec.SerializationCodec;
import dev.mooncake.jcache.internal.codec.TypedCodec;
import dev.mooncake.jcache.internal.codec.ValueCodecs;
import dev.mooncake.jcache.internal.connection.StoreConnection;
import dev.mooncake.jcache.internal.connection.StoreGate;
import dev.mooncake.jcache.internal.entry.EntryStorage;
import dev.mooncake.jcache.internal.entry.KeyNamespace;
import dev.mooncake.jcache.internal.event.Unwrap;
import dev.mooncake.jcache.internal.event.remote.ClusterEvents;
import dev.mooncake.jcache.internal.expiry.ExpirySweeper;
import dev.mooncake.jcache.internal.lane.Lanes;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.ClusterKeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.WantEvents;
import dev.mooncake.jcache.internal.time.Ticker;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One provider URI (a Mooncake JSON config) and class loader: one store connection (or in-process
 * store), its lanes, and the caches on it. Closing the manager closes its caches and the store.
 */
public final class MooncakeCacheManager implements CacheManager {
  private static final Logger LOG = LoggerFactory.getLogger(MooncakeCacheManager.class);
  private static final AtomicInteger MANAGER_IDS = new AtomicInteger();

  /** How often expired entries nobody reads are looked for and removed. */
  static final long SWEEP_INTERVAL_MILLIS = 1000;

  private final CachingProvider provider;

  /** Told when this manager closes (the provider forgets it), so the manager needs no spi. */
  private final Consumer<? super MooncakeCacheManager> onClose;

  private final URI uri;
  private final ClassLoader classLoader;
  private final Properties properties;
  private final MooncakeConfig config;
  private final StoreConnection connection;
  private final StoreGate store;
  private final Ticker ticker;
  private final Lanes lanes;

  /** The asynchronous API's operations: their bound, order per key, threads (docs/async.md). */
  private final AsyncCalls async;

  private final KeyLocks locks;

  /** Whether {@link #locks} reach every JVM of the cluster (consistency cluster). */
  private final boolean clusterWideLocks;

  /** Keys, and the values of caches without a codec setting. */
  private final TypedCodec codec;

  private final SerializationCodec serialization;
  private final ExecutorService events;
  private final ExpirySweeper sweeper;

  /** The cluster's event stream, when {@code events_endpoint} is set; else null. */
  private final ClusterEvents cluster;

  /** Wakes kept cluster locks on other JVMs' wants (events and keeping on); else null. */
  private final ClusterEvents.Watch wantWakeUps;

  private final ConcurrentMap<String, MooncakeCache<?, ?>> caches = new ConcurrentHashMap<>();

  /** Caches the config file declares that no one has created (or destroyed) yet. */
  private final Set<String> declared = ConcurrentHashMap.newKeySet();

  private volatile boolean closed;

  public MooncakeCacheManager(
      CachingProvider provider,
      Consumer<? super MooncakeCacheManager> onClose,
      URI uri,
      ClassLoader classLoader,
      Properties properties,
      MooncakeConfig config) {
    this(
        provider,
        onClose,
        uri,
        classLoader,
        properties,
        config,
        StoreConnection.open(config, Ticker.from(properties)));
  }

  /**
   * A manager on a store connection made elsewhere: tests choose its locks this way, and share one
   * store between tenants ({@link StoreConnection#of(ObjectStore)}).
   */
  MooncakeCacheManager(
      CachingProvider provider,
      Consumer<? super MooncakeCacheManager> onClose,
      URI uri,
      ClassLoader classLoader,
      Properties properties,
      MooncakeConfig config,
      StoreConnection connection) {
    this.provider = provider;
    this.onClose = onClose;
    this.uri = uri;
    this.classLoader = classLoader;
    this.properties = properties;
    this.config = config;
    try {
      for (CacheDefinition definition : config.caches().values()) {
        // Fails now, naming the cache and key, if a declared class cannot be loaded; before any
        // thread is started, and giving the store connection back.
        CacheDefinitions.toConfiguration(definition, classLoader);
        declared.add(definition.name());
      }
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
    String id = "m" + MANAGER_IDS.incrementAndGet();
    this.serialization =
        new SerializationCodec(
            new DeserializationFilter(config.deserializationAllowList()), classLoader);
    this.codec = new TypedCodec(serialization);
    this.connection = connection;
    this.ticker = Ticker.from(properties);
    this.events = Executors.newCachedThreadPool(daemonThreads("mooncake-" + id + "-events"));
    this.cluster =
        config.eventsEndpoint() == null
            ? null
            : ClusterEvents.open(config.eventsEndpoint(), connection.store(), events);
    // With events on, the caches write through the observed store (their own changes recognised).
    this.store =
        new StoreGate(
            cluster == null ? connection.store() : cluster.store(), "cache manager " + uri);
    this.locks = store.locks(connection.locks());
    this.clusterWideLocks = connection.clusterWide();
    this.wantWakeUps =
        cluster != null && connection.locks() instanceof ClusterKeyLocks cl && cl.keepsLocks()
            ? wakeOnWants(cluster, cl.openWantFeed())
            : null;
    // A store without I/O gains nothing from splitting batches across threads, unless the
    // configuration asks for every call on the lanes.
    this.lanes =
        new Lanes(
            config.numWorkers(),
            Lanes.perOpWorkers(config),
            config.singleCallsOnLanes(),
            !store.inProcess() || config.singleCallsOnLanes(),
            config.asyncWorkers(),
            id);
    this.async =
        new AsyncCalls(
            config.asyncMaxInFlight(),
            config.operationTimeout(),
            ticker,
            lanes::executeAsync,
            lanes::onAsyncThread,
            "mooncake-" + id + "-async-timer",
            "cache manager " + uri,
            CpuRoom.ofThisProcess(ticker));
    this.sweeper = new ExpirySweeper("mooncake-" + id + "-expiry", SWEEP_INTERVAL_MILLIS, ticker);
    LOG.info("cache manager {} on {} ({})", uri, store.describe(), config.source());
  }

  @Override
  public <K, V, C extends Configuration<K, V>> Cache<K, V> createCache(
      String cacheName, C configuration) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cache name");
    Objects.requireNonNull(configuration, "cache configuration");
    if (!configuration.isStoreByValue()) {
      throw new UnsupportedOperationException(
          "cache '"
              + cacheName
              + "': store-by-reference is"
              + " not supported; every entry is stored as bytes in Mooncake (use setStoreByValue(true))");
    }
    synchronized (caches) {
      if (caches.containsKey(cacheName)) {
        throw new CacheException("cache '" + cacheName + "' already exists in " + uri);
      }
      return newCache(cacheName, effectiveConfiguration(cacheName, configuration));
    }
  }

  /**
   * The configuration a cache gets: the file's settings for that name, overridden by the call's.
   */
  private <K, V> MutableConfiguration<K, V> effectiveConfiguration(
      String cacheName, Configuration<K, V> given) {
    CacheDefinition definition = config.caches().get(cacheName);
    if (definition != null) {
      return CacheDefinitions.merge(definition, given, classLoader);
    }
    if (given instanceof CompleteConfiguration<K, V> complete) {
      return new MutableConfiguration<>(complete);
    }
    MutableConfiguration<K, V> copy = new MutableConfiguration<>();
    copy.setTypes(given.getKeyType(), given.getValueType());
    copy.setStoreByValue(given.isStoreByValue());
    return copy;
  }

  private <K, V> MooncakeCache<K, V> newCache(String cacheName, MutableConfiguration<K, V> c) {
    KeyNamespace namespace = new KeyNamespace(config.tenantId(), cacheName, codec);
    EntryStorage storage =
        new EntryStorage(
            cacheName,
            store,
            lanes,
            valueCodec(cacheName, c),
            ticker,
            config.operationTimeout(),
            c.getValueType());
    MooncakeCache<K, V> cache =
        new MooncakeCache<>(cacheName, this, c, storage, namespace, locks, lanes, events, ticker);
    if (cluster != null) {
      CacheDefinition declaredAs = config.caches().get(cacheName);
      cache.joinCluster(cluster, declaredAs == null ? null : declaredAs.nearCache());
    }
    caches.put(cacheName, cache);
    declared.remove(cacheName);
    sweeper.register(cache);
    return cache;
  }

  /**
   * The value codec the file's {@code codec} setting names for the cache (docs/configuration.md).
   */
  private Codec valueCodec(String cacheName, Configuration<?, ?> c) {
    CacheDefinition definition = config.caches().get(cacheName);
    String setting = definition == null ? null : definition.codec();
    Class<?> required =
        "string".equals(setting)
            ? String.class
            : "bytes".equals(setting) ? byte[].class : Object.class;
    Class<?> valueType = c.getValueType();
    if (valueType != Object.class && !required.isAssignableFrom(valueType)) {
      throw new CacheException(
          "cache '"
              + cacheName
              + "' has codec '"
              + setting
              + "', which"
              + " stores "
              + required.getSimpleName()
              + " values only, but its value type is "
              + valueType.getName()
              + " ("
              + config.source()
              + ")");
    }
    return ValueCodecs.forSetting(setting, cacheName, codec, serialization);
  }

  /** The cache under that name, creating a cache the config file declares on first use. */
  private MooncakeCache<?, ?> existingOrDeclared(String cacheName) {
    MooncakeCache<?, ?> cache = caches.get(cacheName);
    if (cache != null || !declared.contains(cacheName)) {
      return cache;
    }
    synchronized (caches) {
      cache = caches.get(cacheName);
      if (cache == null && declared.contains(cacheName)) {
        cache =
            newCache(
                cacheName,
                CacheDefinitions.toConfiguration(config.caches().get(cacheName), classLoader));
      }
      return cache;
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> Cache<K, V> getCache(String cacheName, Class<K> keyType, Class<V> valueType) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cache name");
    Objects.requireNonNull(keyType, "key type");
    Objects.requireNonNull(valueType, "value type");
    MooncakeCache<?, ?> cache = existingOrDeclared(cacheName);
    if (cache == null) {
      return null;
    }
    CompleteConfiguration<?, ?> c = cache.configuration();
    requireType(cacheName, "key", c.getKeyType(), keyType);
    requireType(cacheName, "value", c.getValueType(), valueType);
    return (Cache<K, V>) cache;
  }

  /** getCache's check of one type: the cache's own, or a ClassCastException naming both. */
  private static void requireType(String cacheName, String what, Class<?> has, Class<?> asked) {
    if (has != asked) {
      throw new ClassCastException(
          "cache '"
              + cacheName
              + "' has "
              + what
              + " type "
              + has.getName()
              + ", not "
              + asked.getName());
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> Cache<K, V> getCache(String cacheName) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cache name");
    return (Cache<K, V>) existingOrDeclared(cacheName);
  }

  @Override
  public Iterable<String> getCacheNames() {
    requireOpen();
    Set<String> names = new java.util.TreeSet<>(caches.keySet());
    names.addAll(declared);
    return List.copyOf(names);
  }

  @Override
  public void destroyCache(String cacheName) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cache name");
    declared.remove(cacheName); // a destroyed declared cache stays gone until created again
    MooncakeCache<?, ?> cache = caches.get(cacheName);
    if (cache != null) {
      cache.destroy();
    }
  }

  @Override
  public void enableManagement(String cacheName, boolean enabled) {
    ifCache(cacheName, cache -> cache.setManagementEnabled(enabled));
  }

  @Override
  public void enableStatistics(String cacheName, boolean enabled) {
    ifCache(cacheName, cache -> cache.setStatisticsEnabled(enabled));
  }

  /** Runs {@code action} on the cache named so (created, or declared in the config), if any. */
  private void ifCache(String cacheName, Consumer<MooncakeCache<?, ?>> action) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cache name");
    MooncakeCache<?, ?> cache = existingOrDeclared(cacheName);
    if (cache != null) {
      action.accept(cache);
    }
  }

  /** Called by a closing cache. */
  void forget(String cacheName, MooncakeCache<?, ?> cache) {
    caches.remove(cacheName, cache);
    sweeper.deregister(cache);
  }

  @Override
  public CachingProvider getCachingProvider() {
    return provider;
  }

  @Override
  public URI getURI() {
    return uri;
  }

  @Override
  public ClassLoader getClassLoader() {
    return classLoader;
  }

  @Override
  public Properties getProperties() {
    return properties;
  }

  /** The validated settings this manager runs on. */
  /** Whether this manager's key locks reach every JVM of the cluster (consistency cluster). */
  boolean clusterWideLocks() {
    return clusterWideLocks;
  }

  public MooncakeConfig config() {
    return config;
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    synchronized (caches) {
      if (closed) {
        return;
      }
      closed = true;
    }
    connection.closing(); // a JVM shutdown hook now waits for this close to end
    for (MooncakeCache<?, ?> cache : new ArrayList<>(caches.values())) {
      try {
        cache.close();
      } catch (RuntimeException e) {
        LOG.warn("failed to close cache {}", cache.getName(), e);
      }
    }
    caches.clear();
    onClose.accept(this);
    sweeper.close();
    async.close(); // the caches have ended their asynchronous operations: no deadline to watch
    drainStoreCalls(); // before the subscription goes: calls in flight still await their echoes
    if (wantWakeUps != null) {
      wantWakeUps.close(); // the kept locks poll again unless another manager's events are live
    }
    if (cluster != null) {
      cluster.close();
    }
    events.shutdown();
    lanes.close();
    connection.close();
  }

  /** The manager's asynchronous operations (its caches' views share their bound). */
  AsyncCalls asyncCalls() {
    return async;
  }

  /** Runs one expiry sweep now (tests that advance a fake ticker). */
  void sweepExpired() {
    sweeper.sweepNow();
  }

  /** Lock keeping's want events (docs/lock-keeping.md, "The wake-up"). */
  private static ClusterEvents.Watch wakeOnWants(ClusterEvents cluster, WantEvents.Feed feed) {
    return cluster.watch(ClusterKeyLocks.WANT_KEY_PREFIX, feed::stored, feed::flushed);
  }

  /** The cluster's event stream, or null without {@code events_endpoint} (for tests). */
  ClusterEvents cluster() {
    return cluster;
  }

  /** Lets calls that passed their cache's closed check finish before the store closes. */
  private void drainStoreCalls() {
    long timeout = config.operationTimeout().toMillis() + 1_000;
    try {
      if (!store.shutAndDrain(timeout)) {
        LOG.warn(
            "cache manager {}: store calls still in flight after {} ms; closing the store",
            uri,
            timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public <T> T unwrap(Class<T> clazz) {
    return Unwrap.as(this, clazz, "the cache manager");
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("cache manager " + uri + " is closed");
    }
  }

  static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
