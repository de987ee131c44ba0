package dev.mooncake.jcache.config;

import java.time.Duration;
import java.util.List;

/**
 * One cache declared in the {@code caches} section of the config. Every field but {@code name} may
 * be {@code null}, meaning "not set in the file": JCache's default (or the configuration passed to
 * {@code createCache}) applies.
 *
 * @param name the cache's name (the key in {@code caches})
 * @param keyType fully qualified class name of the keys
 * @param valueType fully qualified class name of the values
 * @param expiry the expiry policy
 * @param statisticsEnabled whether statistics are collected
 * @param managementEnabled whether the configuration MXBean is registered
 * @param readThrough whether {@code get} misses call the loader
 * @param writeThrough whether mutations call the writer
 * @param loaderFactory class name of a {@code Factory<CacheLoader>} or of a {@code CacheLoader}
 * @param writerFactory class name of a {@code Factory<CacheWriter>} or of a {@code CacheWriter}
 * @param listeners listener registrations
 * @param codec value codec name ({@code auto}, {@code java}, {@code string}, {@code bytes})
 * @param nearCache the near cache's settings, or {@code null}: none
 */
public record CacheDefinition(
    String name,
    String keyType,
    String valueType,
    ExpirySettings expiry,
    Boolean statisticsEnabled,
    Boolean managementEnabled,
    Boolean readThrough,
    Boolean writeThrough,
    String loaderFactory,
    String writerFactory,
    List<ListenerDefinition> listeners,
    String codec,
    NearCacheSettings nearCache) {

  /**
   * A near cache: a bounded on-heap copy of recently read entries, invalidated by the master's
   * event stream.
   *
   * @param maxEntries the most entries it holds (least recently/frequently used go first)
   */
  public record NearCacheSettings(long maxEntries) {}

  /** A cache the file says nothing about. */
  public static CacheDefinition unset(String name) {
    return new CacheDefinition(
        name, null, null, null, null, null, null, null, null, null, List.of(), null, null);
  }

  /**
   * An expiry policy: one of JCache's five standard policies and its duration.
   *
   * @param policy {@code eternal}, {@code created}, {@code accessed}, {@code modified}, {@code
   *     touched}
   * @param duration the policy's duration ({@code null} for eternal)
   */
  public record ExpirySettings(String policy, Duration duration) {}

  /**
   * A listener registration.
   *
   * @param factory class name of a {@code Factory<CacheEntryListener>} or of a listener
   * @param filterFactory class name of a {@code Factory<CacheEntryEventFilter>} or a filter, or
   *     null
   * @param oldValueRequired whether events carry the old value
   * @param synchronous whether the mutating call waits for the listener
   */
  public record ListenerDefinition(
      String factory, String filterFactory, boolean oldValueRequired, boolean synchronous) {}
}
