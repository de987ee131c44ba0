package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.CacheEntry;
import dev.mooncake.jcache.internal.entry.Decision;
import dev.mooncake.jcache.internal.entry.EntryMap;
import dev.mooncake.jcache.internal.entry.KeyNamespace;
import dev.mooncake.jcache.internal.entry.StoredEntry;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.integration.LoaderCalls;
import dev.mooncake.jcache.internal.integration.WriterCalls;
import dev.mooncake.jcache.internal.management.CacheStatistics;
import dev.mooncake.jcache.internal.near.NearCache;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.util.Objects;
import javax.cache.configuration.CompleteConfiguration;

/**
 * What every operation of one cache works with: its entries, expiry policy, loader, writer,
 * listeners and statistics, and the small pieces the operations share (the argument checks, the
 * write and remove decisions). Written once here so that each operation class holds only what is
 * its own.
 */
public final class CacheContext<K, V> {
  final String name;
  final CompleteConfiguration<K, V> configuration;
  final KeyNamespace keys;
  final EntryMap<K> entries;
  final Ticker ticker;
  final ExpiryTimes expiry;
  final LoaderCalls<K, V> loader; // null: no loader configured
  final WriterCalls<K, V> writer;
  final CacheListeners<K, V> listeners;
  final CacheStatistics statistics;

  /** Whether the key locks reach every JVM (consistency cluster): see Reads.presenceAnswers. */
  final boolean clusterWideLocks;

  /** Set once when the cache joins the cluster's event stream with a near cache, before use. */
  NearCache<StoredEntry> near;

  private volatile boolean closed;

  /**
   * @param configuration read for the key and value types and read-through, live (it may change)
   * @param loader null when no loader is configured
   */
  public CacheContext(
      String name,
      CompleteConfiguration<K, V> configuration,
      KeyNamespace keys,
      EntryMap<K> entries,
      Ticker ticker,
      ExpiryTimes expiry,
      LoaderCalls<K, V> loader,
      WriterCalls<K, V> writer,
      CacheListeners<K, V> listeners,
      CacheStatistics statistics,
      boolean clusterWideLocks) {
    this.name = name;
    this.configuration = configuration;
    this.keys = keys;
    this.entries = entries;
    this.ticker = ticker;
    this.expiry = expiry;
    this.loader = loader;
    this.writer = writer;
    this.listeners = listeners;
    this.statistics = statistics;
    this.clusterWideLocks = clusterWideLocks;
  }

  /** Gives reads a near cache (the cache joined the cluster's events with one). */
  public void useNearCache(NearCache<StoredEntry> near) {
    this.near = near;
  }

  /** Closes the cache for operations: from now on they throw IllegalStateException. */
  public void close() {
    closed = true;
  }

  public boolean isClosed() {
    return closed;
  }

  // ---------------------------------------------------------------------------------------------
  // Checks

  public void requireOpen() {
    if (closed) {
      throw new IllegalStateException("cache '" + name + "' is closed");
    }
  }

  /** The store key of an operation's key, after the checks every operation starts with. */
  String openKey(K key) {
    requireOpen();
    return storeKey(key);
  }

  String storeKey(K key) {
    Objects.requireNonNull(key, "a cache key cannot be null");
    requireType(configuration.getKeyType(), key, "keys");
    return keys.storeKey(key);
  }

  @SuppressWarnings("unchecked")
  public K cacheKey(String storeKey) {
    return (K) keys.cacheKey(storeKey);
  }

  void checkValue(V value) {
    Objects.requireNonNull(value, "a cache value cannot be null");
    requireType(configuration.getValueType(), value, "values");
  }

  /** The configured type check of JSR-107 (a ClassCastException naming both types). */
  private void requireType(Class<?> type, Object instance, String what) {
    if (type != Object.class && !type.isInstance(instance)) {
      throw new ClassCastException(
          "cache '"
              + name
              + "' holds "
              + what
              + " of type "
              + type.getName()
              + ", not "
              + instance.getClass().getName());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Values, time, policy

  /** A copy of the entry's value, for the caller to keep. */
  @SuppressWarnings("unchecked")
  static <V> V value(StoredEntry entry) {
    return (V) entry.copyOfValue();
  }

  @SuppressWarnings("unchecked")
  static <T> T typed(Object value) {
    return (T) value;
  }

  /** The old value an outcome found, or null: what the getAnd… operations answer. */
  V previous(dev.mooncake.jcache.internal.entry.Outcome outcome) {
    return outcome.found() ? value(outcome.previous()) : null;
  }

  boolean readThrough() {
    return loader != null && configuration.isReadThrough();
  }

  /**
   * The deadline of a JCache operation starting now: {@code operation_timeout_ms} on the cache's
   * ticker, passed to every lock, entry and store call the operation makes.
   */
  public Deadline deadline() {
    return entries.storage().deadline();
  }

  /** The cache's clock, in epoch milliseconds (expiry times). */
  public long now() {
    return ticker.epochMillis();
  }

  /**
   * Whether no entry of this cache can expire, known from its policy alone (the expiry time is only
   * in the value's header): {@link ExpiryTimes#neverExpires}.
   */
  boolean entriesNeverExpire() {
    return expiry.neverExpires();
  }

  /**
   * Whether a put may skip reading the old entry: nothing depends on it when entries never expire
   * and no listener wants updated or expired events. Saves Mooncake one round trip per put.
   */
  boolean blindWritesAllowed() {
    return entriesNeverExpire() && listeners.needNoOldEntry();
  }

  // ---------------------------------------------------------------------------------------------
  // Decisions

  /** A write-through put of {@code value}: the writer first, then the write decision. */
  EntryMap.Remapping writing(K key, V value) {
    return current -> {
      writer.write(new CacheEntry<>(key, value));
      return writeDecision(value, current);
    };
  }

  /** A put that did not read the old entry ({@link #blindWritesAllowed}): eternal. */
  EntryMap.Remapping writingBlind(K key, V value) {
    return absent -> {
      writer.write(new CacheEntry<>(key, value));
      return Decision.write(value, ExpiryTimes.ETERNAL);
    };
  }

  /** A write-through removal: the writer first, then the remove decision. */
  EntryMap.Remapping removing(K key) {
    return current -> {
      writer.delete(key);
      return Decision.REMOVE;
    };
  }

  /** {@code act} where an entry is live; nothing where none is (replace's condition). */
  static EntryMap.Remapping ifPresent(EntryMap.Remapping act) {
    return current -> current == null ? Decision.KEEP : act.remap(current);
  }

  /**
   * The decision to write {@code value} over {@code current} (null when absent) with the creation
   * or update expiry; a creation that expires at once is not stored.
   */
  Decision writeDecision(V value, StoredEntry current) {
    long expireAt = expiryForWrite(current, now());
    return expireAt == ExpiryTimes.NOT_STORED ? Decision.KEEP : Decision.write(value, expireAt);
  }

  /** The expiry time of a value written over {@code current}, or NOT_STORED. */
  long expiryForWrite(StoredEntry current, long now) {
    if (current == null) {
      long expireAt = expiry.forCreation(now);
      return expireAt == ExpiryTimes.EXPIRED_NOW ? ExpiryTimes.NOT_STORED : expireAt;
    }
    long expireAt = expiry.forUpdate(now);
    return expireAt == ExpiryTimes.UNCHANGED ? current.expireAt() : expireAt;
  }
}
