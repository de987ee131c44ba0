package dev.mooncake.jcache;

import dev.mooncake.jcache.async.AsyncCalls;
import dev.mooncake.jcache.config.CacheDefinition;
import dev.mooncake.jcache.entry.Decision;
import dev.mooncake.jcache.entry.EntryMap;
import dev.mooncake.jcache.entry.EntryStorage;
import dev.mooncake.jcache.entry.KeyNamespace;
import dev.mooncake.jcache.entry.Outcome;
import dev.mooncake.jcache.entry.StoredEntry;
import dev.mooncake.jcache.event.EventDispatcher;
import dev.mooncake.jcache.event.remote.ClusterEvents;
import dev.mooncake.jcache.event.remote.RemoteEvents;
import dev.mooncake.jcache.expiry.ExpirySweeper;
import dev.mooncake.jcache.expiry.ExpiryTimes;
import dev.mooncake.jcache.integration.LoaderCalls;
import dev.mooncake.jcache.integration.PendingLoads;
import dev.mooncake.jcache.integration.WriterCalls;
import dev.mooncake.jcache.lane.Lane;
import dev.mooncake.jcache.lane.Lanes;
import dev.mooncake.jcache.lock.KeyLocks;
import dev.mooncake.jcache.management.CacheConfigurationBean;
import dev.mooncake.jcache.management.CacheStatistics;
import dev.mooncake.jcache.management.JmxRegistration;
import dev.mooncake.jcache.near.NearCache;
import dev.mooncake.jcache.processor.ProcessorEntry;
import dev.mooncake.jcache.time.Deadline;
import dev.mooncake.jcache.time.Ticker;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.EventType;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CacheWriterException;
import javax.cache.integration.CompletionListener;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JCache {@link Cache} whose entries live in a Mooncake-contract store. This is where JCache's
 * semantics live: statistics, events, read-through and write-through, entry processors and the
 * expiry policy. The entries themselves, and what makes a step on them atomic, are the {@link
 * EntryMap}'s: every operation here is one {@link EntryMap#compute} (or a read through {@link
 * EntryMap#get}) whose remapping calls the writer, asks the expiry policy and returns a {@link
 * Decision}; the map applies it under the key's lock and reports the change back to {@link Events},
 * which publishes it. Synchronous listeners are awaited after the lock is released.
 */
public final class MooncakeCache<K, V> implements Cache<K, V>, ExpirySweeper.Sweepable {
  private static final Logger LOG = LoggerFactory.getLogger(MooncakeCache.class);

  /** The most keys one sweep of this cache examines. */
  private static final int SWEEP_BATCH = 10_000;

  private final String name;
  private final MooncakeCacheManager manager;

  /** Whether the key locks reach every JVM (consistency cluster): see {@link #presenceAnswers}. */
  private final boolean clusterWideLocks;

  private final MutableConfiguration<K, V> configuration;
  private final KeyNamespace keys;
  private final EntryMap<K> entries;
  private final Ticker ticker;
  private final ExpiryTimes expiry;
  private final LoaderCalls<K, V> loader;
  private final WriterCalls<K, V> writer;
  private final EventDispatcher<K, V> dispatcher;
  private final CacheStatistics statistics = new CacheStatistics();
  private final CacheConfigurationBean configurationBean;
  private final Lanes lanes;
  private final List<Object> closeables = new ArrayList<>();
  private final PendingLoads pendingLoads;
  private final AsyncCalls.Scope asyncCalls;
  private volatile boolean closed;

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
    this.clusterWideLocks = manager.clusterWideLocks();
    this.configuration = configuration;
    this.keys = keys;
    this.ticker = ticker;
    this.entries = new EntryMap<>(storage, locks, ticker, this::cacheKey, new Events());
    statistics.observeReads(storage::integrityMismatches, storage::unreachableReads);
    this.lanes = lanes;
    this.pendingLoads = new PendingLoads(name);
    this.asyncCalls = manager.asyncCalls().scope(name);
    this.expiry = new ExpiryTimes(configuration.getExpiryPolicyFactory().create());
    closeables.add(expiry.policy());
    if (configuration.getCacheLoaderFactory() == null) {
      this.loader = null;
    } else {
      javax.cache.integration.CacheLoader<K, V> created =
          configuration.getCacheLoaderFactory().create();
      closeables.add(created);
      this.loader = new LoaderCalls<>(created);
    }
    javax.cache.integration.CacheWriter<? super K, ? super V> createdWriter =
        configuration.isWriteThrough() && configuration.getCacheWriterFactory() != null
            ? configuration.getCacheWriterFactory().create()
            : null;
    closeables.add(createdWriter);
    this.writer = new WriterCalls<>(createdWriter);
    this.dispatcher = new EventDispatcher<>(eventExecutor);
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
                ticker::epochMillis));
  }

  /** The near cache, or null (for tests and statistics). */
  NearCache<StoredEntry> nearCache() {
    return near;
  }

  /** This cache's share of the event stream, or null (for tests). */
  RemoteEvents remoteEvents() {
    return remote;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  @Override
  public V get(K key) {
    return get(key, deadline());
  }

  /** As {@link #get}, under {@code deadline}: an asynchronous operation's, from its issue. */
  V get(K key, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    long start = statistics.start();
    V value;
    try {
      value = getOrLoad(key, storeKey, deadline);
    } catch (RuntimeException e) {
      dispatcher.ignoreSynchronous();
      throw e;
    }
    dispatcher.awaitSynchronous();
    statistics.getTime(start);
    return value;
  }

  /**
   * {@link #getEach} as the asynchronous view batches its gets: one object per cache, as reads are
   * batched only with reads of the same one.
   */
  @SuppressWarnings("unchecked") // the keys are the view's getAsync keys, so K
  private final AsyncCalls.BatchRead<V> batchedGets =
      (keys, deadline) -> getEach((List<K>) (List<?>) keys, deadline);

  AsyncCalls.BatchRead<V> batchedGets() {
    return batchedGets;
  }

  /**
   * Several plain gets of distinct keys, each answering what {@link #get} would (statistics, near
   * cache, expiry on access, read-through per key), with one batch read of the store (without a
   * near cache): asynchronous gets ready at the same time ({@link AsyncCalls.BatchRead}). Throws
   * only when that read fails, before any get has answered; a get whose own step fails (a load, an
   * expiry touch) answers its exception. Each get's time in the statistics is the batch's.
   */
  List<AsyncCalls.Answer<V>> getEach(List<K> keys, Deadline deadline) {
    requireOpen();
    int count = keys.size();
    String[] storeKeys = new String[count];
    for (int i = 0; i < count; i++) {
      storeKeys[i] = storeKey(keys.get(i));
    }
    long start = statistics.start();
    StoredEntry[] found;
    try {
      found = readEach(keys, storeKeys, deadline);
    } catch (RuntimeException e) {
      dispatcher.ignoreSynchronous();
      throw e;
    }
    List<AsyncCalls.Answer<V>> answers = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      try {
        answers.add(AsyncCalls.Answer.of(answer(keys.get(i), storeKeys[i], found[i], deadline)));
      } catch (RuntimeException e) {
        answers.add(AsyncCalls.Answer.failed(e));
      }
    }
    dispatcher.awaitSynchronous(); // the events of the gets that answered
    for (AsyncCalls.Answer<V> answer : answers) {
      if (answer.failure() == null) {
        statistics.getTime(start);
      }
    }
    return answers;
  }

  /**
   * {@link #getEach}'s reads: one batch read, or, with a near cache, each key as {@link #get} reads
   * it (a near cache already spares the round trips a batch would save).
   */
  private StoredEntry[] readEach(List<K> keys, String[] storeKeys, Deadline deadline) {
    if (near == null) {
      return entries.getAll(keys, storeKeys, deadline);
    }
    StoredEntry[] found = new StoredEntry[keys.size()];
    for (int i = 0; i < found.length; i++) {
      found[i] = readNear(keys.get(i), storeKeys[i], deadline);
    }
    return found;
  }

  private V getOrLoad(K key, String storeKey, Deadline deadline) {
    StoredEntry entry =
        near == null ? entries.get(key, storeKey, deadline) : readNear(key, storeKey, deadline);
    return answer(key, storeKey, entry, deadline);
  }

  /** A get's answer from what its read found: a hit, or a miss and maybe a load. */
  private V answer(K key, String storeKey, StoredEntry entry, Deadline deadline) {
    if (entry != null) {
      statistics.hits(1);
      return accessed(key, storeKey, entry, deadline);
    }
    statistics.misses(1);
    if (!readThrough()) {
      return null;
    }
    Outcome loaded =
        entries.compute(
            key,
            storeKey,
            current -> {
              if (current != null) {
                return Decision.KEEP; // loaded by someone else meanwhile
              }
              V value = loader.load(key);
              if (value == null) {
                return Decision.KEEP;
              }
              checkValue(value);
              return writeDecision(value, null)
                  .returning(value); // no writer call: loads are not puts
            },
            deadline);
    return loaded.found() ? value(loaded.previous()) : typed(loaded.result());
  }

  /**
   * A plain read through the near cache: a copy held is served (expiry in its header still
   * applies); otherwise the store is read and what it found kept, unless an invalidation of the key
   * arrived while the read was in flight (the token).
   */
  private StoredEntry readNear(K key, String storeKey, Deadline deadline) {
    StoredEntry held = near.get(storeKey, now());
    if (held != null) {
      return held.forAnotherReader();
    }
    long token = near.token(storeKey);
    StoredEntry entry = entries.get(key, storeKey, deadline);
    if (entry != null) {
      near.install(storeKey, entry.forAnotherReader(), entry.expireAt(), token);
    }
    return entry;
  }

  /** Applies access expiry to an entry just read and returns its value. */
  private V accessed(K key, String storeKey, StoredEntry entry, Deadline deadline) {
    long accessExpiry = expiry.forAccess(now());
    if (accessExpiry != ExpiryTimes.UNCHANGED && accessExpiry != entry.expireAt()) {
      entries.compute(
          key,
          storeKey,
          current ->
              current != null && current.expireAt() == entry.expireAt()
                  ? Decision.touch(accessExpiry)
                  : Decision.KEEP,
          deadline);
    }
    return value(entry);
  }

  @Override
  public Map<K, V> getAll(Set<? extends K> keySet) {
    return getAll(keySet, deadline());
  }

  /** As {@link #getAll}, under {@code deadline}: an asynchronous operation's, from its issue. */
  Map<K, V> getAll(Set<? extends K> keySet, Deadline deadline) {
    requireOpen();
    Objects.requireNonNull(keySet, "keys");
    // Parallel arrays, not maps: a set's keys are distinct, and so are their store keys.
    int count = keySet.size();
    List<K> keys = new ArrayList<>(count);
    String[] storeKeys = new String[count];
    for (K key : keySet) {
      storeKeys[keys.size()] = storeKey(key);
      keys.add(key);
    }
    long start = statistics.start();
    Map<K, V> result = new HashMap<>(Math.max(16, count * 4 / 3 + 1));
    try {
      StoredEntry[] found = entries.getAll(keys, storeKeys, deadline);
      List<K> missing = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        if (found[i] == null) {
          missing.add(keys.get(i));
        } else {
          result.put(keys.get(i), accessed(keys.get(i), storeKeys[i], found[i], deadline));
        }
      }
      statistics.hits(result.size());
      statistics.misses(missing.size());
      if (readThrough() && !missing.isEmpty()) {
        loadMissing(missing, result, deadline);
      }
    } catch (RuntimeException e) {
      dispatcher.ignoreSynchronous();
      throw e;
    }
    dispatcher.awaitSynchronous();
    statistics.getTime(start);
    return result;
  }

  private void loadMissing(List<K> missing, Map<K, V> result, Deadline deadline) {
    Map<K, V> loaded = loader.loadAll(missing);
    for (Map.Entry<K, V> e : loaded.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        continue;
      }
      V value = e.getValue();
      Outcome stored =
          entries.compute(
              e.getKey(),
              storeKey(e.getKey()),
              current -> current == null ? writeDecision(value, null) : Decision.KEEP,
              deadline);
      result.put(e.getKey(), stored.found() ? value(stored.previous()) : value);
    }
  }

  @Override
  public boolean containsKey(K key) {
    return containsKey(key, deadline());
  }

  /**
   * As {@link #containsKey}, under {@code deadline}: an asynchronous operation's, from its issue.
   */
  boolean containsKey(K key, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    // The near cache is not asked (configuration.md): containsKey goes to the store, which an
    // exists answers without moving the value.
    boolean present;
    if (presenceAnswers()) {
      present = entries.containsUnread(key, storeKey, deadline); // is_exist: no value moves
    } else {
      // the expiry time is in the stored value's header: read it (an expired entry is removed
      // and reported here, as a get would). No statistics and no access: JCache's containsKey is
      // neither a hit nor a miss, and does not touch the entry's access time.
      present = entries.get(key, storeKey, deadline) != null;
    }
    dispatcher.awaitSynchronous();
    return present;
  }

  /**
   * Whether presence alone ({@code is_exist}) answers containsKey: no entry of this cache can
   * expire (the expiry time that could say otherwise is only in the stored value's header; every
   * JVM of a cache must give it the same expiry policy, docs/lanes.md, "lookup"), and the cache
   * does not run {@code consistency: cluster}. There a present answer can be stale: for up to
   * {@code client_ttl} after a segment's owner dies the master still lists the objects in it, while
   * every read of them fails and answers absent, so a containsKey true after a get's absent would
   * break the per-key linearizability cluster promises (HistoryOnRealMooncakeTest, a JVM killed
   * with kill -9).
   */
  private boolean presenceAnswers() {
    return entriesNeverExpire() && !clusterWideLocks;
  }

  /**
   * Whether no entry of this cache can expire, known from its policy alone (the expiry time is only
   * in the value's header): {@link ExpiryTimes#neverExpires}.
   */
  private boolean entriesNeverExpire() {
    return expiry.neverExpires();
  }

  // ---------------------------------------------------------------------------------------------
  // Loading

  @Override
  public void loadAll(
      Set<? extends K> keySet, boolean replaceExistingValues, CompletionListener listener) {
    requireOpen();
    Objects.requireNonNull(keySet, "keys");
    for (K key : keySet) {
      Objects.requireNonNull(key, "a key in loadAll");
    }
    CompletionListener done = listener == null ? NoCompletionListener.INSTANCE : listener;
    if (loader == null) {
      done.onCompletion();
      return;
    }
    List<K> toLoad = new ArrayList<>(keySet);
    // Asynchronous work runs on a lane (docs/lanes.md): loading is a retrieval. Tracked, so that
    // close() ends it before closing the loader.
    pendingLoads.start(
        () -> {
          try {
            List<K> wanted = replaceExistingValues ? toLoad : absentKeys(toLoad);
            Map<K, V> loaded = wanted.isEmpty() ? Map.of() : loader.loadAll(wanted);
            for (Map.Entry<K, V> e : loaded.entrySet()) {
              if (e.getKey() != null && e.getValue() != null) {
                loadOne(e.getKey(), e.getValue(), replaceExistingValues);
              }
            }
            dispatcher.awaitSynchronous();
            done.onCompletion();
          } catch (Exception e) {
            dispatcher.ignoreSynchronous();
            done.onException(e instanceof CacheLoaderException ? e : new CacheLoaderException(e));
          }
        },
        done,
        task ->
            lanes.submit(
                Lane.RETRIEVE,
                () -> {
                  task.run();
                  return null;
                }));
  }

  private List<K> absentKeys(List<K> candidates) {
    List<K> absent = new ArrayList<>();
    if (entriesNeverExpire() && !candidates.isEmpty()) {
      // presence alone answers, batch is_exist on the lookup lane, no value read; under cluster
      // too: a stale present answer (a dead owner's segment, see presenceAnswers) only skips
      // loading that key, it never answers a value
      String[] storeKeys = new String[candidates.size()];
      for (int i = 0; i < storeKeys.length; i++) {
        storeKeys[i] = storeKey(candidates.get(i));
      }
      boolean[] present = entries.containsAllUnread(candidates, storeKeys, deadline());
      for (int i = 0; i < storeKeys.length; i++) {
        if (!present[i]) {
          absent.add(candidates.get(i));
        }
      }
      return absent;
    }
    for (K key : candidates) {
      if (entries.get(key, storeKey(key), deadline()) == null) { // a step each: not a caller's
        absent.add(key);
      }
    }
    return absent;
  }

  /** Stores a loaded value: no writer call, no put statistics (loads are not puts). */
  private void loadOne(K key, V value, boolean replace) {
    checkValue(value);
    entries.compute(
        key,
        storeKey(key),
        current -> current == null || replace ? writeDecision(value, current) : Decision.KEEP,
        deadline()); // loadAll runs in the background: a deadline per stored value
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  @Override
  public void put(K key, V value) {
    put(key, value, deadline());
  }

  /** As {@link #put}, under {@code deadline}: an asynchronous operation's, from its issue. */
  void put(K key, V value, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(value);
    long start = statistics.start();
    Outcome outcome;
    if (blindWritesAllowed()) {
      outcome =
          atomicallyUnread(
              key,
              storeKey,
              absent -> {
                writer.write(new CacheEntry<>(key, value));
                return Decision.write(value, ExpiryTimes.ETERNAL);
              },
              deadline);
    } else {
      outcome = atomically(key, storeKey, writing(key, value), deadline);
    }
    if (outcome.changed()) {
      statistics.put(start);
    }
  }

  /**
   * Whether a put may skip reading the old entry: nothing depends on it when entries never expire
   * and no listener wants updated or expired events. Saves Mooncake one round trip per put.
   */
  private boolean blindWritesAllowed() {
    return entriesNeverExpire()
        && !dispatcher.hasListenerFor(EventType.UPDATED)
        && !dispatcher.hasListenerFor(EventType.EXPIRED);
  }

  /**
   * {@link #putEach} as the asynchronous view batches its puts: one object per cache, as writes are
   * batched only with writes of the same one.
   */
  @SuppressWarnings("unchecked") // the keys and values are the view's putAsync ones, so K and V
  private final AsyncCalls.BatchWrite<Void> batchedPuts =
      (keys, values, deadline) -> putEach((List<K>) (List<?>) keys, (List<V>) values, deadline);

  /**
   * How the asynchronous view should batch its puts now: {@link #putEach}, or null for each put
   * alone. A write-through cache's puts run alone: a batch calls its writers one after another on
   * one thread, where puts alone call them in parallel (a writer is often a slow database call); so
   * do the puts of a cache with a synchronous listener, whose failure belongs to one put.
   */
  AsyncCalls.BatchWrite<Void> batchedPuts() {
    return writer.enabled() || dispatcher.hasSynchronousListener() ? null : batchedPuts;
  }

  /**
   * Several puts of distinct keys, each answering what {@link #put} would (its writer call, its
   * statistics, its events, its expiry, its exception), as one batch: the keys' locks in one {@link
   * dev.mooncake.jcache.lock.KeyLocks#lockAll}, the live entries in one batch read (none for blind
   * writes), the values in one batch put. Throws only before any put had an effect (a key's check,
   * the locks, the read failed; or a synchronous listener is registered, whose failure could not be
   * told apart): then each put runs alone. Each put's time in the statistics is the batch's.
   */
  List<AsyncCalls.Answer<Void>> putEach(List<K> keys, List<V> values, Deadline deadline) {
    requireOpen();
    if (dispatcher.hasSynchronousListener()) {
      throw new IllegalStateException("puts with a synchronous listener run alone");
    }
    int count = keys.size();
    List<EntryMap.Step<K>> steps = new ArrayList<>(count);
    Integer[] order = new Integer[count];
    String[] storeKeys = new String[count];
    boolean blind = blindWritesAllowed();
    for (int i = 0; i < count; i++) {
      K key = keys.get(i);
      V value = values.get(i);
      storeKeys[i] = storeKey(key);
      checkValue(value);
      order[i] = i;
    }
    // Sorted by store key: the batch takes the keys' locks in that order (see EntryMap.computeAll).
    Arrays.sort(order, Comparator.comparing(i -> storeKeys[i]));
    for (int i : order) {
      K key = keys.get(i);
      V value = values.get(i);
      steps.add(
          new EntryMap.Step<>(
              storeKeys[i],
              key,
              blind
                  ? absent -> {
                    writer.write(new CacheEntry<>(key, value));
                    return Decision.write(value, ExpiryTimes.ETERNAL);
                  }
                  : writing(key, value)));
    }
    long start = statistics.start();
    EntryMap.StepResult[] results;
    try {
      results = entries.computeAll(steps, blind, deadline);
    } catch (RuntimeException e) {
      awaitSuppressing(e);
      throw e;
    }
    dispatcher.awaitSynchronous(); // none: no synchronous listener
    List<AsyncCalls.Answer<Void>> answers = new ArrayList<>(Collections.nCopies(count, null));
    for (int s = 0; s < count; s++) {
      EntryMap.StepResult result = results[s];
      if (result.failure() != null) {
        answers.set(order[s], AsyncCalls.Answer.failed(result.failure()));
        continue;
      }
      if (result.outcome().changed()) {
        statistics.put(start);
      }
      answers.set(order[s], AsyncCalls.Answer.of(null));
    }
    return answers;
  }

  @Override
  public V getAndPut(K key, V value) {
    return getAndPut(key, value, deadline());
  }

  /** As {@link #getAndPut}, under {@code deadline}: an asynchronous operation's, from its issue. */
  V getAndPut(K key, V value, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(value);
    long start = statistics.start();
    Outcome outcome = atomically(key, storeKey, writing(key, value), deadline);
    statistics.lookup(outcome.found());
    if (outcome.changed()) {
      statistics.put(start);
    }
    statistics.getTime(start);
    return outcome.found() ? value(outcome.previous()) : null;
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    putAll(map, deadline());
  }

  /** As {@link #putAll}, under {@code deadline}: an asynchronous operation's, from its issue. */
  void putAll(Map<? extends K, ? extends V> map, Deadline deadline) {
    requireOpen();
    Objects.requireNonNull(map, "map");
    // Sorted by store key: the batch takes the keys' locks in that order (see EntryMap.putAll).
    Map<String, Map.Entry<? extends K, ? extends V>> byStoreKey = new TreeMap<>();
    for (Map.Entry<? extends K, ? extends V> e : map.entrySet()) {
      String storeKey = storeKey(e.getKey());
      checkValue(e.getValue());
      byStoreKey.put(storeKey, e);
    }
    long start = statistics.start();
    CacheWriterException writerFailure = null;
    Set<Object> notWritten = Set.of();
    if (writer.enabled() && !map.isEmpty()) {
      List<Cache.Entry<? extends K, ? extends V>> entries = new ArrayList<>();
      for (Map.Entry<? extends K, ? extends V> e : map.entrySet()) {
        entries.add(new CacheEntry<>(e.getKey(), e.getValue()));
      }
      try {
        writer.writeAll(entries);
      } catch (CacheWriterException e) {
        writerFailure = e;
        notWritten = new HashSet<>();
        for (Cache.Entry<? extends K, ? extends V> left : entries) {
          notWritten.add(left.getKey());
        }
      }
    }
    int puts;
    try {
      List<EntryMap.Put<K>> toWrite = new ArrayList<>(byStoreKey.size());
      for (Map.Entry<String, Map.Entry<? extends K, ? extends V>> e : byStoreKey.entrySet()) {
        if (!notWritten.contains(e.getValue().getKey())) {
          toWrite.add(
              new EntryMap.Put<>(e.getKey(), e.getValue().getKey(), e.getValue().getValue()));
        }
      }
      long now = now();
      puts =
          entries.putAll(
              toWrite, blindWritesAllowed(), current -> expiryForWrite(current, now), deadline);
    } catch (RuntimeException e) {
      awaitSuppressing(e);
      throw e;
    }
    awaitSynchronous(writerFailure);
    if (puts > 0) {
      statistics.puts(puts);
      statistics.putTime(start);
    }
    if (writerFailure != null) {
      throw writerFailure;
    }
  }

  @Override
  public boolean putIfAbsent(K key, V value) {
    return putIfAbsent(key, value, deadline());
  }

  /**
   * As {@link #putIfAbsent}, under {@code deadline}: an asynchronous operation's, from its issue.
   */
  boolean putIfAbsent(K key, V value, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(value);
    long start = statistics.start();
    Outcome outcome =
        atomically(
            key,
            storeKey,
            current -> current != null ? Decision.KEEP : writing(key, value).remap(null),
            deadline);
    statistics.lookup(outcome.found());
    if (outcome.changed()) {
      statistics.put(start);
    }
    return outcome.changed();
  }

  @Override
  public boolean remove(K key) {
    return remove(key, deadline());
  }

  /** As {@link #remove}, under {@code deadline}: an asynchronous operation's, from its issue. */
  boolean remove(K key, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    long start = statistics.start();
    Outcome outcome = atomically(key, storeKey, removing(key), deadline);
    if (outcome.changed()) {
      statistics.removal(start);
    }
    return outcome.changed();
  }

  @Override
  public boolean remove(K key, V oldValue) {
    return remove(key, oldValue, deadline());
  }

  /** As {@link #remove}, under {@code deadline}: an asynchronous operation's, from its issue. */
  boolean remove(K key, V oldValue, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(oldValue);
    long start = statistics.start();
    Outcome outcome = ifHolding(key, storeKey, oldValue, removing(key), deadline);
    if (outcome.changed()) {
      statistics.removal(start);
    }
    return outcome.changed();
  }

  @Override
  public V getAndRemove(K key) {
    return getAndRemove(key, deadline());
  }

  /**
   * As {@link #getAndRemove}, under {@code deadline}: an asynchronous operation's, from its issue.
   */
  V getAndRemove(K key, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    long start = statistics.start();
    Outcome outcome = atomically(key, storeKey, removing(key), deadline);
    if (outcome.found()) {
      statistics.hits(1);
      statistics.removal(start);
    } else {
      statistics.misses(1);
    }
    statistics.getTime(start);
    return outcome.found() ? value(outcome.previous()) : null;
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    return replace(key, oldValue, newValue, deadline());
  }

  /** As {@link #replace}, under {@code deadline}: an asynchronous operation's, from its issue. */
  boolean replace(K key, V oldValue, V newValue, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(oldValue);
    checkValue(newValue);
    long start = statistics.start();
    Outcome outcome = ifHolding(key, storeKey, oldValue, writing(key, newValue), deadline);
    if (outcome.changed()) {
      statistics.put(start);
    }
    statistics.getTime(start);
    return outcome.changed();
  }

  @Override
  public boolean replace(K key, V value) {
    return replace(key, value, deadline());
  }

  /** As {@link #replace}, under {@code deadline}: an asynchronous operation's, from its issue. */
  boolean replace(K key, V value, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(value);
    long start = statistics.start();
    Outcome outcome = atomically(key, storeKey, ifPresent(writing(key, value)), deadline);
    statistics.lookup(outcome.changed());
    if (outcome.changed()) {
      statistics.put(start);
    }
    statistics.getTime(start);
    return outcome.changed();
  }

  @Override
  public V getAndReplace(K key, V value) {
    return getAndReplace(key, value, deadline());
  }

  /**
   * As {@link #getAndReplace}, under {@code deadline}: an asynchronous operation's, from its issue.
   */
  V getAndReplace(K key, V value, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(value);
    long start = statistics.start();
    Outcome outcome = atomically(key, storeKey, ifPresent(writing(key, value)), deadline);
    if (outcome.found()) {
      statistics.hits(1);
      statistics.put(start);
    } else {
      statistics.misses(1);
    }
    statistics.getTime(start);
    return outcome.found() ? value(outcome.previous()) : null;
  }

  @Override
  public void removeAll(Set<? extends K> keySet) {
    requireOpen();
    Objects.requireNonNull(keySet, "keys");
    Map<String, K> byStoreKey = new LinkedHashMap<>();
    for (K key : keySet) {
      byStoreKey.put(storeKey(key), key);
    }
    removeKeys(byStoreKey);
  }

  @Override
  public void removeAll() {
    requireOpen();
    Deadline deadline = deadline();
    if (!writer.enabled()
        && !dispatcher.hasListenerFor(EventType.REMOVED)
        && !dispatcher.hasListenerFor(EventType.EXPIRED)) {
      // Nobody to tell key by key: one anchored regex removes every JVM's entries of this cache.
      long start = statistics.start();
      long removed = entries.clear(keys.prefixPattern(), deadline);
      if (removed > 0) {
        statistics.removals(removed);
        statistics.removeTime(start);
      }
      return;
    }
    // A writer or listeners need each key: those this JVM wrote (see docs/deviations.md).
    Map<String, K> byStoreKey = new LinkedHashMap<>();
    for (String storeKey : entries.keys()) {
      byStoreKey.put(storeKey, cacheKey(storeKey));
    }
    removeKeys(byStoreKey);
  }

  private void removeKeys(Map<String, K> byStoreKey) {
    long start = statistics.start();
    CacheWriterException writerFailure = null;
    Set<Object> notDeleted = Set.of();
    if (writer.enabled() && !byStoreKey.isEmpty()) {
      Collection<K> pending = new LinkedHashSet<>(byStoreKey.values());
      try {
        writer.deleteAll(pending);
      } catch (CacheWriterException e) {
        writerFailure = e;
        notDeleted = new HashSet<>(pending);
      }
    }
    int removed = 0;
    try {
      for (Map.Entry<String, K> e : byStoreKey.entrySet()) {
        if (!notDeleted.contains(e.getValue())
            && entries
                .compute(e.getValue(), e.getKey(), current -> Decision.REMOVE, deadline())
                .changed()) { // a deadline per key: see docs/lanes.md, Deadlines
          removed++;
        }
      }
    } catch (RuntimeException e) {
      awaitSuppressing(e);
      throw e;
    }
    awaitSynchronous(writerFailure);
    if (removed > 0) {
      statistics.removals(removed);
      statistics.removeTime(start);
    }
    if (writerFailure != null) {
      throw writerFailure;
    }
  }

  @Override
  public void clear() {
    requireOpen();
    Deadline deadline = deadline();
    // No writer, no listeners, no statistics (the spec's clear); one regex call removes this
    // cache's objects written by any JVM.
    entries.clear(keys.prefixPattern(), deadline);
  }

  // ---------------------------------------------------------------------------------------------
  // Entry processors

  @Override
  public <T> T invoke(K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    return invoke(key, processor, arguments, deadline());
  }

  /** As {@link #invoke}, under {@code deadline}: an asynchronous operation's, from its issue. */
  <T> T invoke(K key, EntryProcessor<K, V, T> processor, Object[] arguments, Deadline deadline) {
    requireOpen();
    String storeKey = storeKey(key);
    Objects.requireNonNull(processor, "entry processor");
    Objects.requireNonNull(arguments, "arguments");
    Outcome outcome =
        atomically(
            key,
            storeKey,
            current -> {
              statistics.lookup(current != null);
              Function<K, V> load = readThrough() ? loader::load : null;
              ProcessorEntry<K, V> entry =
                  new ProcessorEntry<>(key, current == null ? null : value(current), load);
              try {
                T result = processor.process(entry, arguments);
                return processed(key, entry, current).returning(result);
              } catch (EntryProcessorException e) {
                throw e;
              } catch (IllegalStateException e) {
                if (closed) {
                  throw e; // closed under the call: JSR-107's failure for a closed cache, not the
                  // processor's
                }
                throw new EntryProcessorException(e);
              } catch (Exception e) {
                throw new EntryProcessorException(e);
              }
            },
            deadline);
    return typed(outcome.result());
  }

  /** The decision for what an entry processor did; calls the writer, counts puts and removals. */
  private Decision processed(K key, ProcessorEntry<K, V> entry, StoredEntry current) {
    switch (entry.action()) {
      case NONE:
        return Decision.KEEP;
      case READ:
        return Decision.touch(expiry.forAccess(now()));
      case LOADED:
        checkValue(entry.getValue());
        return writeDecision(entry.getValue(), null); // a load: no writer, no put counted
      case CREATED:
        {
          V value = entry.getValue();
          checkValue(value);
          writer.write(new CacheEntry<>(key, value));
          Decision decision = writeDecision(value, null);
          if (decision != Decision.KEEP) {
            statistics.puts(1);
          }
          return decision;
        }
      case UPDATED:
        {
          V value = entry.getValue();
          checkValue(value);
          writer.write(new CacheEntry<>(key, value));
          statistics.puts(1);
          return writeDecision(value, current);
        }
      case DELETED:
        writer.delete(key);
        if (current == null) {
          return Decision.KEEP;
        }
        statistics.removals(1);
        return Decision.REMOVE;
      default:
        throw new AssertionError(entry.action());
    }
  }

  @Override
  public <T> Map<K, EntryProcessorResult<T>> invokeAll(
      Set<? extends K> keySet, EntryProcessor<K, V, T> processor, Object... arguments) {
    requireOpen();
    Objects.requireNonNull(keySet, "keys");
    Objects.requireNonNull(processor, "entry processor");
    Objects.requireNonNull(arguments, "arguments");
    for (K key : keySet) {
      Objects.requireNonNull(key, "a key in invokeAll");
    }
    Map<K, EntryProcessorResult<T>> results = new HashMap<>();
    for (K key : keySet) {
      try {
        T result = invoke(key, processor, arguments);
        if (result != null) {
          results.put(key, () -> result);
        }
      } catch (EntryProcessorException e) {
        results.put(
            key,
            () -> {
              throw e;
            });
      } catch (RuntimeException e) {
        EntryProcessorException wrapped = new EntryProcessorException(e);
        results.put(
            key,
            () -> {
              throw wrapped;
            });
      }
    }
    return results;
  }

  // ---------------------------------------------------------------------------------------------
  // Zero-copy access (see ZeroCopyCache)

  private ZeroCopyCache<K> zeroCopy() {
    Class<V> valueType = configuration.getValueType();
    if (valueType != Object.class && valueType != byte[].class) {
      throw new IllegalArgumentException(
          "cache '"
              + name
              + "' holds "
              + valueType.getName()
              + " values; zero-copy access needs byte[] (or Object) values");
    }
    Object policy = expiry.policy();
    if (!(policy instanceof EternalExpiryPolicy) && !(policy instanceof ModifiedExpiryPolicy)) {
      throw new IllegalArgumentException(
          "cache '"
              + name
              + "' expires entries with "
              + policy.getClass().getName()
              + "; zero-copy access needs an eternal or modified"
              + " expiry policy (others need the old entry read on every call)");
    }
    return new ZeroCopyCache<>() {
      @Override
      public ByteBuffer allocate(int size) {
        ByteBuffer buffer =
            entries
                .storage()
                .buffers()
                .acquireKept(ZeroCopyCache.HEADER_BYTES + size + ZeroCopyCache.TRAILER_BYTES);
        buffer.limit(ZeroCopyCache.HEADER_BYTES + size).position(ZeroCopyCache.HEADER_BYTES);
        return buffer;
      }

      @Override
      public void release(ByteBuffer buffer) {
        entries.storage().buffers().release(buffer.clear());
      }

      @Override
      public void put(K key, ByteBuffer value) {
        zeroCopyPut(key, value);
      }

      @Override
      public int get(K key, ByteBuffer destination) {
        return zeroCopyGet(key, destination);
      }

      @Override
      public long javaCopiedBytes() {
        return entries.storage().copiedBytes();
      }
    };
  }

  private void requireNoWriterOrListeners() {
    if (writer.enabled() || dispatcher.hasRegistrations()) {
      throw new UnsupportedOperationException(
          "cache '"
              + name
              + "' has write-through or"
              + " listeners; zero-copy calls call no writer and publish no events");
    }
  }

  private void zeroCopyPut(K key, ByteBuffer value) {
    requireOpen();
    Deadline deadline = deadline();
    String storeKey = storeKey(key);
    Objects.requireNonNull(value, "value buffer");
    requireNoWriterOrListeners();
    long start = statistics.start();
    // Eternal or modified expiry: the new expiry time does not depend on the old entry.
    long expireAt = expiry.forUpdate(now());
    entries.writeInPlace(
        storeKey,
        value,
        expireAt == ExpiryTimes.UNCHANGED ? ExpiryTimes.ETERNAL : expireAt,
        deadline);
    statistics.put(start);
  }

  private int zeroCopyGet(K key, ByteBuffer destination) {
    requireOpen();
    Deadline deadline = deadline();
    String storeKey = storeKey(key);
    Objects.requireNonNull(destination, "destination buffer");
    requireNoWriterOrListeners();
    long start = statistics.start();
    int length = entries.readInPlace(key, storeKey, destination, deadline);
    statistics.lookup(length >= 0);
    statistics.getTime(start);
    return length;
  }

  // ---------------------------------------------------------------------------------------------
  // Active expiry

  /** Called by the manager's sweeper: removes entries whose expiry time has passed. */
  @Override
  public int sweepExpired(long nowMillis) {
    if (closed) {
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

  // ---------------------------------------------------------------------------------------------
  // Iteration

  @Override
  public Iterator<Cache.Entry<K, V>> iterator() {
    requireOpen();
    return new EntryIterator(entries.keys());
  }

  private final class EntryIterator implements Iterator<Cache.Entry<K, V>> {
    private final Iterator<String> storeKeys;
    private Cache.Entry<K, V> next;
    private K last;

    EntryIterator(List<String> storeKeys) {
      this.storeKeys = storeKeys.iterator();
    }

    @Override
    public boolean hasNext() {
      while (next == null && storeKeys.hasNext()) {
        requireOpen();
        String storeKey = storeKeys.next();
        K key = cacheKey(storeKey);
        Deadline deadline = deadline(); // each entry read is a step of its own
        StoredEntry entry = entries.get(key, storeKey, deadline);
        if (entry == null) {
          entries.forget(storeKey); // evicted, expired or removed elsewhere
          continue;
        }
        next = new CacheEntry<>(key, accessed(key, storeKey, entry, deadline));
      }
      dispatcher.awaitSynchronous();
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
      statistics.hits(1);
      return entry;
    }

    @Override
    public void remove() {
      if (last == null) {
        throw new IllegalStateException("next() has not been called, or remove() already was");
      }
      MooncakeCache.this.remove(last);
      last = null;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The atomic step: decisions, events, listeners

  /** One step on the key, then a wait for synchronous listeners (the key's lock released). */
  private Outcome atomically(
      K key, String storeKey, EntryMap.Remapping remapping, Deadline deadline) {
    return awaitingListeners(key, storeKey, remapping, false, deadline);
  }

  /**
   * The step of {@code remove(k, v)} and {@code replace(k, v, w)}: {@code act} runs only when the
   * live entry holds {@code expected}. No entry: nothing happens; another value: the comparison
   * read it, so it is an access (the policy may give it a new expiry time). The lookup is counted
   * either way (a hit when an entry was there).
   */
  private Outcome ifHolding(
      K key, String storeKey, V expected, EntryMap.Remapping act, Deadline deadline) {
    Outcome outcome =
        atomically(
            key,
            storeKey,
            current -> {
              if (current == null) {
                return Decision.KEEP;
              }
              if (!expected.equals(current.value())) {
                return Decision.touch(expiry.forAccess(now()));
              }
              return act.remap(current);
            },
            deadline);
    statistics.lookup(outcome.found());
    return outcome;
  }

  /** {@link #atomically} without reading the old entry ({@link EntryMap#computeUnread}). */
  private Outcome atomicallyUnread(
      K key, String storeKey, EntryMap.Remapping remapping, Deadline deadline) {
    return awaitingListeners(key, storeKey, remapping, true, deadline);
  }

  private Outcome awaitingListeners(
      K key, String storeKey, EntryMap.Remapping remapping, boolean unread, Deadline deadline) {
    Outcome outcome;
    try {
      outcome =
          unread
              ? entries.computeUnread(key, storeKey, remapping, deadline)
              : entries.compute(key, storeKey, remapping, deadline);
    } catch (RuntimeException e) {
      awaitSuppressing(e);
      throw e;
    }
    dispatcher.awaitSynchronous();
    return outcome;
  }

  /** A write-through put of {@code value}: the writer first, then the write decision. */
  private EntryMap.Remapping writing(K key, V value) {
    return current -> {
      writer.write(new CacheEntry<>(key, value));
      return writeDecision(value, current);
    };
  }

  /** {@code act} where an entry is live; nothing where none is (replace's condition). */
  private static EntryMap.Remapping ifPresent(EntryMap.Remapping act) {
    return current -> current == null ? Decision.KEEP : act.remap(current);
  }

  /** A write-through removal: the writer first, then the remove decision. */
  private EntryMap.Remapping removing(K key) {
    return current -> {
      writer.delete(key);
      return Decision.REMOVE;
    };
  }

  /**
   * The decision to write {@code value} over {@code current} (null when absent) with the creation
   * or update expiry; a creation that expires at once is not stored.
   */
  private Decision writeDecision(V value, StoredEntry current) {
    long expireAt = expiryForWrite(current, now());
    return expireAt == ExpiryTimes.NOT_STORED ? Decision.KEEP : Decision.write(value, expireAt);
  }

  /** The expiry time of a value written over {@code current}, or NOT_STORED. */
  private long expiryForWrite(StoredEntry current, long now) {
    if (current == null) {
      long expireAt = expiry.forCreation(now);
      return expireAt == ExpiryTimes.EXPIRED_NOW ? ExpiryTimes.NOT_STORED : expireAt;
    }
    long expireAt = expiry.forUpdate(now);
    return expireAt == ExpiryTimes.UNCHANGED ? current.expireAt() : expireAt;
  }

  /** Publishes what the entry map did, under the key's lock: events stay in key order. */
  private final class Events implements EntryMap.Listener<K> {
    @Override
    public void written(K key, Object value, StoredEntry previous, boolean replacedUnread) {
      V typedValue = typed(value);
      if (previous == null && !replacedUnread) {
        dispatcher.created(MooncakeCache.this, key, typedValue);
      } else if (previous != null && dispatcher.hasListenerFor(EventType.UPDATED)) {
        dispatcher.updated(MooncakeCache.this, key, typedValue, value(previous));
      }
    }

    @Override
    public void removed(K key, StoredEntry previous) {
      if (dispatcher.hasListenerFor(EventType.REMOVED)) {
        dispatcher.removed(MooncakeCache.this, key, value(previous));
      }
    }

    @Override
    public void expired(K key, StoredEntry entry) {
      statistics.evictions(1);
      if (dispatcher.hasListenerFor(EventType.EXPIRED)) {
        dispatcher.expired(MooncakeCache.this, key, value(entry));
      }
    }
  }

  private void awaitSynchronous(RuntimeException failure) {
    try {
      dispatcher.awaitSynchronous();
    } catch (CacheEntryListenerException e) {
      if (failure == null) {
        throw e;
      }
      failure.addSuppressed(e);
    }
  }

  private void awaitSuppressing(RuntimeException failure) {
    try {
      dispatcher.awaitSynchronous();
    } catch (RuntimeException e) {
      if (e != failure) {
        failure.addSuppressed(e);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Keys, values, checks

  private String storeKey(K key) {
    Objects.requireNonNull(key, "a cache key cannot be null");
    Class<K> keyType = configuration.getKeyType();
    if (keyType != Object.class && !keyType.isInstance(key)) {
      throw new ClassCastException(
          "cache '"
              + name
              + "' holds keys of type "
              + keyType.getName()
              + ", not "
              + key.getClass().getName());
    }
    return keys.storeKey(key);
  }

  @SuppressWarnings("unchecked")
  private K cacheKey(String storeKey) {
    return (K) keys.cacheKey(storeKey);
  }

  private void checkValue(V value) {
    Objects.requireNonNull(value, "a cache value cannot be null");
    Class<V> valueType = configuration.getValueType();
    if (valueType != Object.class && !valueType.isInstance(value)) {
      throw new ClassCastException(
          "cache '"
              + name
              + "' holds values of type "
              + valueType.getName()
              + ", not "
              + value.getClass().getName());
    }
  }

  @SuppressWarnings("unchecked")
  private V value(StoredEntry entry) {
    return (V) entry.copyOfValue();
  }

  private boolean readThrough() {
    return loader != null && configuration.isReadThrough();
  }

  /**
   * The deadline of a JCache operation starting now: {@code operation_timeout_ms} on the cache's
   * ticker, passed to every lock, entry and store call the operation makes.
   */
  private Deadline deadline() {
    return entries.storage().deadline();
  }

  private long now() {
    return ticker.epochMillis();
  }

  @SuppressWarnings("unchecked")
  private static <T> T typed(Object value) {
    return (T) value;
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("cache '" + name + "' is closed");
    }
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
    return closed;
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
    if (closed) {
      return;
    }
    synchronized (configuration) {
      if (closed) {
        return;
      }
      closed = true;
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
      return clazz.cast(zeroCopy());
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

  /** Stands in for a missing completion listener. */
  private enum NoCompletionListener implements CompletionListener {
    INSTANCE;

    @Override
    public void onCompletion() {}

    @Override
    public void onException(Exception e) {}
  }
}
