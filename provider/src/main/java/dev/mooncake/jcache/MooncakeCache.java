package dev.mooncake.jcache;

import dev.mooncake.jcache.event.EventDispatcher;
import dev.mooncake.jcache.expiry.ExpiryQueue;
import dev.mooncake.jcache.expiry.ExpirySweeper;
import dev.mooncake.jcache.expiry.ExpiryTimes;
import dev.mooncake.jcache.integration.LoaderCalls;
import dev.mooncake.jcache.integration.WriterCalls;
import dev.mooncake.jcache.lane.Lane;
import dev.mooncake.jcache.lane.Lanes;
import dev.mooncake.jcache.lock.KeyLocks;
import dev.mooncake.jcache.management.CacheConfigurationBean;
import dev.mooncake.jcache.management.CacheStatistics;
import dev.mooncake.jcache.management.JmxRegistration;
import dev.mooncake.jcache.processor.ProcessorEntry;
import dev.mooncake.jcache.entry.EntryStorage;
import dev.mooncake.jcache.entry.KeyIndex;
import dev.mooncake.jcache.entry.KeyNamespace;
import dev.mooncake.jcache.entry.StoredEntry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
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
 * A JCache {@link Cache} whose entries live in a Mooncake-contract store. This is the one place
 * where JCache's semantics meet the store: expiry, read-through and write-through, events,
 * entry processors and statistics.
 *
 * <p>Every mutation runs with the key's lock held (see {@link KeyLocks}): it reads the live entry,
 * calls the writer, computes the expiry, writes the store (remove then create-only put: Mooncake
 * never overwrites) and publishes events, all as one atomic step per key. Synchronous listeners
 * are awaited after the lock is released. Plain reads take no lock; a read that finds nothing
 * while the key is being rewritten waits for the writer and reads again, so no reader of this JVM
 * sees the gap between the remove and the put.
 */
public final class MooncakeCache<K, V> implements Cache<K, V>, ExpirySweeper.Sweepable {
  private static final Logger LOG = LoggerFactory.getLogger(MooncakeCache.class);

  private final String name;
  private final MooncakeCacheManager manager;
  private final MutableConfiguration<K, V> configuration;
  private final EntryStorage storage;
  private final KeyNamespace keys;
  private final KeyIndex index = new KeyIndex();
  private final ExpiryQueue expiring = new ExpiryQueue();
  private final KeyLocks locks;
  private final ExpiryTimes expiry;
  private final LoaderCalls<K, V> loader;
  private final WriterCalls<K, V> writer;
  private final EventDispatcher<K, V> dispatcher;
  private final CacheStatistics statistics = new CacheStatistics();
  private final CacheConfigurationBean configurationBean;
  private final Lanes lanes;
  private final List<Object> closeables = new ArrayList<>();
  private volatile boolean closed;

  MooncakeCache(
      String name,
      MooncakeCacheManager manager,
      MutableConfiguration<K, V> configuration,
      EntryStorage storage,
      KeyNamespace keys,
      KeyLocks locks,
      Lanes lanes,
      Executor eventExecutor) {
    this.name = name;
    this.manager = manager;
    this.configuration = configuration;
    this.storage = storage;
    this.keys = keys;
    this.locks = locks;
    this.lanes = lanes;
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

  // ---------------------------------------------------------------------------------------------
  // Reads

  @Override
  public V get(K key) {
    requireOpen();
    String storeKey = storeKey(key);
    long start = statistics.start();
    V value;
    try {
      value = getOrLoad(key, storeKey);
    } catch (RuntimeException e) {
      dispatcher.ignoreSynchronous();
      throw e;
    }
    dispatcher.awaitSynchronous();
    statistics.getTime(start);
    return value;
  }

  private V getOrLoad(K key, String storeKey) {
    StoredEntry entry = readUnlocked(key, storeKey);
    if (entry != null) {
      statistics.hits(1);
      return accessed(storeKey, entry);
    }
    statistics.misses(1);
    if (!readThrough()) {
      return null;
    }
    try (KeyLocks.Held held = locks.lock(storeKey)) {
      StoredEntry current = readLive(key, storeKey, now());
      if (current != null) {
        return value(current); // loaded by someone else meanwhile
      }
      V loaded = loader.load(key);
      if (loaded != null) {
        checkValue(loaded);
        storeLoaded(key, storeKey, loaded, null);
      }
      return loaded;
    }
  }

  /** Applies access expiry to an entry just read and returns its value. */
  private V accessed(String storeKey, StoredEntry entry) {
    long accessExpiry = expiry.forAccess(now());
    if (accessExpiry != ExpiryTimes.UNCHANGED && accessExpiry != entry.expireAt()) {
      try (KeyLocks.Held held = locks.lock(storeKey)) {
        StoredEntry current = storage.read(storeKey);
        if (current != null && current.expireAt() == entry.expireAt()) {
          storage.rewrite(storeKey, current, accessExpiry);
          expiring.add(storeKey, accessExpiry);
        }
      }
    }
    return value(entry);
  }

  @Override
  public Map<K, V> getAll(Set<? extends K> keySet) {
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
      long[] stamps = new long[count];
      for (int i = 0; i < count; i++) {
        stamps[i] = locks.readStamp(storeKeys[i]);
      }
      StoredEntry[] found = storage.readAll(storeKeys);
      long now = now();
      List<K> missing = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        StoredEntry entry = found[i];
        boolean expired = entry != null && entry.isExpired(now);
        if (expired || (entry == null && locks.mayHaveChanged(storeKeys[i], stamps[i]))) {
          entry = readLocked(keys.get(i), storeKeys[i]); // expires it, or waits out a writer
        }
        if (entry == null) {
          missing.add(keys.get(i));
        } else {
          result.put(keys.get(i), accessed(storeKeys[i], entry));
        }
      }
      statistics.hits(result.size());
      statistics.misses(missing.size());
      if (readThrough() && !missing.isEmpty()) {
        loadMissing(missing, result);
      }
    } catch (RuntimeException e) {
      dispatcher.ignoreSynchronous();
      throw e;
    }
    dispatcher.awaitSynchronous();
    statistics.getTime(start);
    return result;
  }

  private void loadMissing(List<K> missing, Map<K, V> result) {
    Map<K, V> loaded = loader.loadAll(missing);
    for (Map.Entry<K, V> e : loaded.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        continue;
      }
      String storeKey = storeKey(e.getKey());
      try (KeyLocks.Held held = locks.lock(storeKey)) {
        StoredEntry current = readLive(e.getKey(), storeKey, now());
        if (current == null) {
          storeLoaded(e.getKey(), storeKey, e.getValue(), null);
          result.put(e.getKey(), e.getValue());
        } else {
          result.put(e.getKey(), value(current));
        }
      }
    }
  }

  @Override
  public boolean containsKey(K key) {
    requireOpen();
    String storeKey = storeKey(key);
    boolean present = readUnlocked(key, storeKey) != null;
    dispatcher.awaitSynchronous();
    return present;
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
    // Asynchronous work runs on a lane (docs/lanes.md): loading is a retrieval.
    lanes.submit(Lane.RETRIEVE, () -> {
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
      return null;
    });
  }

  private List<K> absentKeys(List<K> candidates) {
    List<K> absent = new ArrayList<>();
    for (K key : candidates) {
      if (readUnlocked(key, storeKey(key)) == null) {
        absent.add(key);
      }
    }
    return absent;
  }

  private void loadOne(K key, V value, boolean replace) {
    checkValue(value);
    String storeKey = storeKey(key);
    try (KeyLocks.Held held = locks.lock(storeKey)) {
      StoredEntry current = readLive(key, storeKey, now());
      if (current == null || replace) {
        storeLoaded(key, storeKey, value, current);
      }
    }
  }

  /** Stores a loaded value: no writer call, no put statistics (loads are not puts). */
  private void storeLoaded(K key, String storeKey, V value, StoredEntry current) {
    writeEntry(key, storeKey, value, current, now());
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  @Override
  public void put(K key, V value) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(value);
    long start = statistics.start();
    boolean written = mutate(storeKey, () -> {
      if (blindWritesAllowed()) {
        writer.write(new CacheEntry<>(key, value));
        return blindWrite(key, storeKey, value);
      }
      StoredEntry current = readLive(key, storeKey, now());
      writer.write(new CacheEntry<>(key, value));
      return writeEntry(key, storeKey, value, current, now());
    });
    if (written) {
      statistics.put(start);
    }
  }

  /**
   * Whether a put may skip reading the old entry: nothing depends on it when entries never expire
   * and no listener wants updated or expired events. Saves Mooncake one round trip per put.
   */
  private boolean blindWritesAllowed() {
    return expiry.policy() instanceof EternalExpiryPolicy
        && !dispatcher.hasListenerFor(EventType.UPDATED)
        && !dispatcher.hasListenerFor(EventType.EXPIRED);
  }

  /** A put that learns from the remove whether the key existed, instead of reading it first. */
  private boolean blindWrite(K key, String storeKey, V value) {
    boolean existed = storage.delete(storeKey);
    storage.write(storeKey, value, ExpiryTimes.ETERNAL, true);
    index.add(storeKey);
    if (!existed) {
      dispatcher.created(this, key, value);
    }
    return true;
  }

  @Override
  public V getAndPut(K key, V value) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(value);
    long start = statistics.start();
    Object[] old = new Object[1];
    boolean written = mutate(storeKey, () -> {
      StoredEntry current = readLive(key, storeKey, now());
      writer.write(new CacheEntry<>(key, value));
      old[0] = current == null ? null : value(current);
      return writeEntry(key, storeKey, value, current, now());
    });
    statistics.lookup(old[0] != null);
    if (written) {
      statistics.put(start);
    }
    statistics.getTime(start);
    @SuppressWarnings("unchecked")
    V previous = (V) old[0];
    return previous;
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    requireOpen();
    Objects.requireNonNull(map, "map");
    Map<String, Map.Entry<? extends K, ? extends V>> byStoreKey = new LinkedHashMap<>();
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
      Map<String, Map.Entry<? extends K, ? extends V>> toWrite = new java.util.TreeMap<>();
      for (Map.Entry<String, Map.Entry<? extends K, ? extends V>> e : byStoreKey.entrySet()) {
        if (!notWritten.contains(e.getValue().getKey())) {
          toWrite.put(e.getKey(), e.getValue());
        }
      }
      puts = writeBatch(toWrite);
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

  /**
   * Writes many entries with one batch read and one batch put. The keys' locks are taken in store
   * key order (the map is sorted), so two batches never deadlock; single-key operations hold one
   * lock at a time. Answers how many entries were stored.
   */
  private int writeBatch(Map<String, Map.Entry<? extends K, ? extends V>> sorted) {
    if (sorted.isEmpty()) {
      return 0;
    }
    List<KeyLocks.Held> held = new ArrayList<>(sorted.size());
    try {
      for (String storeKey : sorted.keySet()) {
        held.add(locks.lock(storeKey));
      }
      boolean blind = blindWritesAllowed();
      StoredEntry[] current = blind
          ? new StoredEntry[sorted.size()]
          : storage.readAll(sorted.keySet().toArray(String[]::new));
      long now = now();
      List<EntryStorage.Write> writes = new ArrayList<>(sorted.size());
      List<StoredEntry> previous = new ArrayList<>(sorted.size());
      int next = 0;
      for (Map.Entry<String, Map.Entry<? extends K, ? extends V>> e : sorted.entrySet()) {
        K key = e.getValue().getKey();
        StoredEntry entry = current[next++];
        if (entry != null && entry.isExpired(now)) {
          expire(key, e.getKey(), entry);
          entry = null;
        }
        long expireAt = blind ? ExpiryTimes.ETERNAL : expiryForWrite(entry, now);
        if (expireAt == NOT_STORED) {
          continue;
        }
        writes.add(new EntryStorage.Write(
            e.getKey(), e.getValue().getValue(), expireAt, !blind && entry == null));
        previous.add(entry);
      }
      boolean[] replaced = storage.writeAll(writes);
      for (int i = 0; i < writes.size(); i++) {
        EntryStorage.Write write = writes.get(i);
        index.add(write.key());
        expiring.add(write.key(), write.expireAt());
        @SuppressWarnings("unchecked")
        K key = (K) sorted.get(write.key()).getKey();
        @SuppressWarnings("unchecked")
        V value = (V) write.value();
        publishWrite(key, value, blind ? null : previous.get(i), blind && replaced[i]);
      }
      return writes.size();
    } finally {
      for (int i = held.size() - 1; i >= 0; i--) {
        held.get(i).close();
      }
    }
  }

  @Override
  public boolean putIfAbsent(K key, V value) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(value);
    long start = statistics.start();
    boolean[] present = new boolean[1];
    boolean written = mutate(storeKey, () -> {
      StoredEntry current = readLive(key, storeKey, now());
      if (current != null) {
        present[0] = true;
        return false;
      }
      writer.write(new CacheEntry<>(key, value));
      return writeEntry(key, storeKey, value, null, now());
    });
    statistics.lookup(present[0]);
    if (written) {
      statistics.put(start);
    }
    return written;
  }

  @Override
  public boolean remove(K key) {
    requireOpen();
    String storeKey = storeKey(key);
    long start = statistics.start();
    boolean removed = mutate(storeKey, () -> {
      StoredEntry current = readLive(key, storeKey, now());
      writer.delete(key);
      return current != null && deleteEntry(key, storeKey, current);
    });
    if (removed) {
      statistics.removal(start);
    }
    return removed;
  }

  @Override
  public boolean remove(K key, V oldValue) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(oldValue);
    long start = statistics.start();
    boolean[] found = new boolean[1];
    boolean removed = mutate(storeKey, () -> {
      StoredEntry current = readLive(key, storeKey, now());
      if (current == null) {
        return false;
      }
      found[0] = true;
      if (!oldValue.equals(current.value())) {
        touch(storeKey, current);
        return false;
      }
      writer.delete(key);
      return deleteEntry(key, storeKey, current);
    });
    statistics.lookup(found[0]);
    if (removed) {
      statistics.removal(start);
    }
    return removed;
  }

  @Override
  public V getAndRemove(K key) {
    requireOpen();
    String storeKey = storeKey(key);
    long start = statistics.start();
    Object[] old = new Object[1];
    mutate(storeKey, () -> {
      StoredEntry current = readLive(key, storeKey, now());
      writer.delete(key);
      if (current == null) {
        return false;
      }
      old[0] = value(current);
      return deleteEntry(key, storeKey, current);
    });
    if (old[0] == null) {
      statistics.misses(1);
    } else {
      statistics.hits(1);
      statistics.removal(start);
    }
    statistics.getTime(start);
    @SuppressWarnings("unchecked")
    V previous = (V) old[0];
    return previous;
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(oldValue);
    checkValue(newValue);
    long start = statistics.start();
    boolean[] found = new boolean[1];
    boolean replaced = mutate(storeKey, () -> {
      StoredEntry current = readLive(key, storeKey, now());
      if (current == null) {
        return false;
      }
      found[0] = true;
      if (!oldValue.equals(current.value())) {
        touch(storeKey, current);
        return false;
      }
      writer.write(new CacheEntry<>(key, newValue));
      return writeEntry(key, storeKey, newValue, current, now());
    });
    statistics.lookup(found[0]);
    if (replaced) {
      statistics.put(start);
    }
    statistics.getTime(start);
    return replaced;
  }

  @Override
  public boolean replace(K key, V value) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(value);
    long start = statistics.start();
    boolean replaced = mutate(storeKey, () -> {
      StoredEntry current = readLive(key, storeKey, now());
      if (current == null) {
        return false;
      }
      writer.write(new CacheEntry<>(key, value));
      return writeEntry(key, storeKey, value, current, now());
    });
    statistics.lookup(replaced);
    if (replaced) {
      statistics.put(start);
    }
    statistics.getTime(start);
    return replaced;
  }

  @Override
  public V getAndReplace(K key, V value) {
    requireOpen();
    String storeKey = storeKey(key);
    checkValue(value);
    long start = statistics.start();
    Object[] old = new Object[1];
    mutate(storeKey, () -> {
      StoredEntry current = readLive(key, storeKey, now());
      if (current == null) {
        return false;
      }
      old[0] = value(current);
      writer.write(new CacheEntry<>(key, value));
      return writeEntry(key, storeKey, value, current, now());
    });
    if (old[0] == null) {
      statistics.misses(1);
    } else {
      statistics.hits(1);
      statistics.put(start);
    }
    statistics.getTime(start);
    @SuppressWarnings("unchecked")
    V previous = (V) old[0];
    return previous;
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
    Map<String, K> byStoreKey = new LinkedHashMap<>();
    for (String storeKey : index.snapshot()) {
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
        if (notDeleted.contains(e.getValue())) {
          continue;
        }
        try (KeyLocks.Held held = locks.lock(e.getKey())) {
          StoredEntry current = readLive(e.getValue(), e.getKey(), now());
          if (current != null && deleteEntry(e.getValue(), e.getKey(), current)) {
            removed++;
          }
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
    // No writer, no listeners, no statistics (the spec's clear); one regex call removes this
    // cache's objects written by any JVM.
    storage.deleteByPrefix(keys.prefixPattern());
    index.clear();
    expiring.clear();
  }

  // ---------------------------------------------------------------------------------------------
  // Entry processors

  @Override
  public <T> T invoke(K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    requireOpen();
    String storeKey = storeKey(key);
    Objects.requireNonNull(processor, "entry processor");
    Objects.requireNonNull(arguments, "arguments");
    Object[] result = new Object[1];
    mutate(storeKey, () -> {
      long now = now();
      StoredEntry current = readLive(key, storeKey, now);
      V value = current == null ? null : value(current);
      statistics.lookup(current != null);
      Function<K, V> load = readThrough() ? loader::load : null;
      ProcessorEntry<K, V> entry = new ProcessorEntry<>(key, value, load);
      try {
        result[0] = processor.process(entry, arguments);
        applyProcessed(key, storeKey, entry, current);
      } catch (EntryProcessorException e) {
        throw e;
      } catch (IllegalStateException e) {
        if (closed) {
          throw e; // closed under the call: JSR-107's failure for a closed cache, not the processor's
        }
        throw new EntryProcessorException(e);
      } catch (Exception e) {
        throw new EntryProcessorException(e);
      }
      return true;
    });
    @SuppressWarnings("unchecked")
    T typed = (T) result[0];
    return typed;
  }

  /** Applies what an entry processor did, inside the key's lock. */
  private void applyProcessed(K key, String storeKey, ProcessorEntry<K, V> entry, StoredEntry current) {
    switch (entry.action()) {
      case NONE -> { }
      case READ -> touch(storeKey, current);
      case LOADED -> {
        checkValue(entry.getValue());
        writeEntry(key, storeKey, entry.getValue(), null, now());
      }
      case CREATED -> {
        V value = entry.getValue();
        checkValue(value);
        writer.write(new CacheEntry<>(key, value));
        if (writeEntry(key, storeKey, value, null, now())) {
          statistics.puts(1);
        }
      }
      case UPDATED -> {
        V value = entry.getValue();
        checkValue(value);
        writer.write(new CacheEntry<>(key, value));
        statistics.puts(1);
        writeEntry(key, storeKey, value, current, now());
      }
      case DELETED -> {
        writer.delete(key);
        if (current != null) {
          statistics.removals(1);
          deleteEntry(key, storeKey, current);
        }
      }
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
        results.put(key, () -> {
          throw e;
        });
      } catch (RuntimeException e) {
        EntryProcessorException wrapped = new EntryProcessorException(e);
        results.put(key, () -> {
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
      throw new IllegalArgumentException("cache '" + name + "' holds " + valueType.getName()
          + " values; zero-copy access needs byte[] (or Object) values");
    }
    Object policy = expiry.policy();
    if (!(policy instanceof EternalExpiryPolicy) && !(policy instanceof ModifiedExpiryPolicy)) {
      throw new IllegalArgumentException("cache '" + name + "' expires entries with "
          + policy.getClass().getName() + "; zero-copy access needs an eternal or modified"
          + " expiry policy (others need the old entry read on every call)");
    }
    return new ZeroCopyCache<>() {
      @Override
      public ByteBuffer allocate(int size) {
        ByteBuffer buffer = storage.buffers().acquire(ZeroCopyCache.HEADER_BYTES + size);
        buffer.limit(ZeroCopyCache.HEADER_BYTES + size).position(ZeroCopyCache.HEADER_BYTES);
        return buffer;
      }

      @Override
      public void release(ByteBuffer buffer) {
        storage.buffers().release(buffer.clear());
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
        return storage.copiedBytes();
      }
    };
  }

  private void requireNoWriterOrListeners() {
    if (writer.enabled() || dispatcher.hasRegistrations()) {
      throw new UnsupportedOperationException("cache '" + name + "' has write-through or"
          + " listeners; zero-copy calls call no writer and publish no events");
    }
  }

  private void zeroCopyPut(K key, ByteBuffer value) {
    requireOpen();
    String storeKey = storeKey(key);
    Objects.requireNonNull(value, "value buffer");
    requireNoWriterOrListeners();
    long start = statistics.start();
    mutate(storeKey, () -> {
      // Eternal or modified expiry: the new expiry time does not depend on the old entry.
      long expireAt = expiry.forUpdate(now());
      if (expireAt == ExpiryTimes.UNCHANGED) {
        expireAt = ExpiryTimes.ETERNAL;
      }
      storage.writeInPlace(storeKey, value, expireAt, false);
      index.add(storeKey);
      expiring.add(storeKey, expireAt);
      return true;
    });
    statistics.put(start);
  }

  private int zeroCopyGet(K key, ByteBuffer destination) {
    requireOpen();
    String storeKey = storeKey(key);
    Objects.requireNonNull(destination, "destination buffer");
    requireNoWriterOrListeners();
    long start = statistics.start();
    int position = destination.position();
    int limit = destination.limit();
    long stamp = locks.readStamp(storeKey);
    long expireAt = storage.readInPlace(storeKey, destination);
    if (expireAt == EntryStorage.ABSENT && locks.mayHaveChanged(storeKey, stamp)) {
      try (KeyLocks.Held held = locks.lock(storeKey)) {
        expireAt = storage.readInPlace(storeKey, destination);
      }
    }
    if (expireAt != EntryStorage.ABSENT && expireAt != ExpiryTimes.ETERNAL && now() >= expireAt) {
      destination.limit(limit).position(position); // a miss leaves the destination as it was
      readLocked(key, storeKey);
      expireAt = EntryStorage.ABSENT;
    }
    boolean hit = expireAt != EntryStorage.ABSENT;
    statistics.lookup(hit);
    statistics.getTime(start);
    return hit ? destination.remaining() : -1;
  }

  // ---------------------------------------------------------------------------------------------
  // Active expiry

  /** Called by the manager's sweeper: removes entries whose expiry time has passed. */
  @Override
  public int sweepExpired(long nowMillis) {
    if (closed) {
      return 0;
    }
    List<String> due = expiring.pollDue(nowMillis, 10_000);
    for (String storeKey : due) {
      K key = cacheKey(storeKey);
      try (KeyLocks.Held held = locks.lock(storeKey)) {
        StoredEntry live = readLive(key, storeKey, now()); // expires it if it has expired
        if (live != null) {
          expiring.add(storeKey, live.expireAt()); // extended meanwhile: check again later
        }
      }
    }
    try {
      dispatcher.awaitSynchronous();
    } catch (RuntimeException e) {
      LOG.warn("a listener failed on an expiry event of cache '{}'", name, e);
    }
    return due.size();
  }

  // ---------------------------------------------------------------------------------------------
  // Iteration

  @Override
  public Iterator<Cache.Entry<K, V>> iterator() {
    requireOpen();
    return new EntryIterator(index.snapshot());
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
        StoredEntry entry = readUnlocked(key, storeKey);
        if (entry == null) {
          index.remove(storeKey); // evicted, expired or removed elsewhere
          continue;
        }
        next = new CacheEntry<>(key, accessed(storeKey, entry));
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
  // The atomic step and its parts

  /** A mutation run with the key's lock held; answers whether it changed the store. */
  @FunctionalInterface
  private interface Mutation {
    boolean run();
  }

  /** Runs a mutation atomically for its key, then waits for synchronous listeners. */
  private boolean mutate(String storeKey, Mutation mutation) {
    boolean changed;
    try (KeyLocks.Held held = locks.lock(storeKey)) {
      changed = mutation.run();
    } catch (RuntimeException e) {
      awaitSuppressing(e);
      throw e;
    }
    dispatcher.awaitSynchronous();
    return changed;
  }

  /**
   * Reads the live entry; an expired one is removed (publishing its expiry) and read as absent.
   * Callers hold the key's lock.
   */
  private StoredEntry readLive(K key, String storeKey, long now) {
    StoredEntry entry = storage.read(storeKey);
    if (entry != null && entry.isExpired(now)) {
      expire(key, storeKey, entry);
      return null;
    }
    return entry;
  }

  /** A read without the lock, falling back to a locked one only when it must. */
  private StoredEntry readUnlocked(K key, String storeKey) {
    long stamp = locks.readStamp(storeKey);
    StoredEntry entry = storage.read(storeKey);
    if (entry == null) {
      // Absent, or between the remove and the put of a writer of this JVM: wait for it.
      return locks.mayHaveChanged(storeKey, stamp) ? readLocked(key, storeKey) : null;
    }
    return entry.isExpired(now()) ? readLocked(key, storeKey) : entry;
  }

  /** Reads under the key's lock, expiring what has expired; what is live there afterwards. */
  private StoredEntry readLocked(K key, String storeKey) {
    try (KeyLocks.Held held = locks.lock(storeKey)) {
      return readLive(key, storeKey, now());
    }
  }

  private void expire(K key, String storeKey, StoredEntry entry) {
    if (storage.delete(storeKey)) {
      index.remove(storeKey);
      statistics.evictions(1);
      if (dispatcher.hasListenerFor(EventType.EXPIRED)) {
        dispatcher.expired(this, key, value(entry));
      }
    }
  }

  /**
   * Writes {@code value} over {@code current} (null when absent), with the creation or update
   * expiry; publishes the event. Answers false when a creation expires at once (not stored).
   */
  private boolean writeEntry(K key, String storeKey, V value, StoredEntry current, long now) {
    long expireAt = expiryForWrite(current, now);
    if (expireAt == NOT_STORED) {
      return false;
    }
    storage.write(storeKey, value, expireAt, current == null);
    index.add(storeKey);
    expiring.add(storeKey, expireAt);
    publishWrite(key, value, current, false);
    return true;
  }

  /** Returned by {@link #expiryForWrite} for a creation that expires at once (not stored). */
  private static final long NOT_STORED = Long.MIN_VALUE + 1;

  /** The expiry time of a value written over {@code current} (null when absent). */
  private long expiryForWrite(StoredEntry current, long now) {
    if (current == null) {
      long expireAt = expiry.forCreation(now);
      return expireAt == ExpiryTimes.EXPIRED_NOW ? NOT_STORED : expireAt;
    }
    long expireAt = expiry.forUpdate(now);
    return expireAt == ExpiryTimes.UNCHANGED ? current.expireAt() : expireAt;
  }

  /** Publishes CREATED or UPDATED for a write over {@code current}. */
  private void publishWrite(K key, V value, StoredEntry current, boolean replacedUnread) {
    if (current == null && !replacedUnread) {
      dispatcher.created(this, key, value);
    } else if (current != null && dispatcher.hasListenerFor(EventType.UPDATED)) {
      dispatcher.updated(this, key, value, value(current));
    }
  }

  private boolean deleteEntry(K key, String storeKey, StoredEntry current) {
    boolean removed = storage.delete(storeKey);
    index.remove(storeKey);
    if (removed && dispatcher.hasListenerFor(EventType.REMOVED)) {
      dispatcher.removed(this, key, value(current));
    }
    return removed;
  }

  /** Access expiry for an entry read under the lock by a conditional operation. */
  private void touch(String storeKey, StoredEntry current) {
    long accessExpiry = expiry.forAccess(now());
    if (accessExpiry != ExpiryTimes.UNCHANGED && accessExpiry != current.expireAt()) {
      storage.rewrite(storeKey, current, accessExpiry);
      expiring.add(storeKey, accessExpiry);
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
          "cache '" + name + "' holds keys of type " + keyType.getName() + ", not "
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
          "cache '" + name + "' holds values of type " + valueType.getName() + ", not "
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

  private static long now() {
    return System.currentTimeMillis();
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
      manager.forget(name, this);
      JmxRegistration.unregister(objectName(JmxRegistration.Type.STATISTICS));
      JmxRegistration.unregister(objectName(JmxRegistration.Type.CONFIGURATION));
      for (Object closeable : closeables) {
        closeQuietly(closeable);
      }
      for (Object listenerOrFilter : dispatcher.listenersAndFilters()) {
        closeQuietly(listenerOrFilter);
      }
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
