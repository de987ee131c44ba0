package dev.mooncake.jcache.internal.integration;

import java.util.Map;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;

/** Calls a {@link CacheLoader}, wrapping its failures as the spec says. */
public final class LoaderCalls<K, V> {
  private final CacheLoader<K, V> loader;

  public LoaderCalls(CacheLoader<K, V> loader) {
    this.loader = loader;
  }

  public V load(K key) {
    try {
      return loader.load(key);
    } catch (CacheLoaderException e) {
      throw e;
    } catch (Exception e) {
      throw new CacheLoaderException("the cache loader failed to load " + key, e);
    }
  }

  public Map<K, V> loadAll(Iterable<? extends K> keys) {
    try {
      Map<K, V> loaded = loader.loadAll(keys);
      return loaded == null ? Map.of() : loaded;
    } catch (CacheLoaderException e) {
      throw e;
    } catch (Exception e) {
      throw new CacheLoaderException("the cache loader failed in loadAll", e);
    }
  }
}
