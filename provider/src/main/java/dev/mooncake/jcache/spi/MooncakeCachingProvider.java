package dev.mooncake.jcache.spi;

import dev.mooncake.jcache.MooncakeCacheManager;
import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.config.MooncakeConfig;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.WeakHashMap;
import javax.cache.CacheManager;
import javax.cache.configuration.OptionalFeature;
import javax.cache.spi.CachingProvider;

/**
 * The JCache entry point, found by {@code Caching.getCachingProvider()} through ServiceLoader. A
 * provider URI names a Mooncake JSON config; there is one {@link CacheManager} per (URI, class
 * loader) until it is closed.
 */
public final class MooncakeCachingProvider implements CachingProvider {
  private final Map<ClassLoader, Map<URI, MooncakeCacheManager>> managers = new WeakHashMap<>();

  @Override
  public CacheManager getCacheManager(URI uri, ClassLoader classLoader, Properties properties) {
    URI managerUri = uri == null ? getDefaultURI() : uri;
    ClassLoader loader = classLoader == null ? getDefaultClassLoader() : classLoader;
    Properties props = properties == null ? new Properties() : properties;
    synchronized (managers) {
      Map<URI, MooncakeCacheManager> byUri = managers.computeIfAbsent(loader, l -> new HashMap<>());
      MooncakeCacheManager manager = byUri.get(managerUri);
      if (manager == null) {
        // Config errors surface here, when the manager is created, naming source and key.
        MooncakeConfig config = ConfigLoader.load(managerUri, loader);
        manager = new MooncakeCacheManager(this, this::forget, managerUri, loader, props, config);
        byUri.put(managerUri, manager);
      }
      return manager;
    }
  }

  @Override
  public CacheManager getCacheManager(URI uri, ClassLoader classLoader) {
    return getCacheManager(uri, classLoader, getDefaultProperties());
  }

  @Override
  public CacheManager getCacheManager() {
    return getCacheManager(getDefaultURI(), getDefaultClassLoader(), getDefaultProperties());
  }

  @Override
  public ClassLoader getDefaultClassLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : MooncakeCachingProvider.class.getClassLoader();
  }

  @Override
  public URI getDefaultURI() {
    return ConfigLoader.defaultUri(getDefaultClassLoader());
  }

  @Override
  public Properties getDefaultProperties() {
    return new Properties();
  }

  @Override
  public void close() {
    for (MooncakeCacheManager manager : snapshot(null)) {
      manager.close();
    }
  }

  @Override
  public void close(ClassLoader classLoader) {
    ClassLoader loader = classLoader == null ? getDefaultClassLoader() : classLoader;
    for (MooncakeCacheManager manager : snapshot(loader)) {
      manager.close();
    }
  }

  @Override
  public void close(URI uri, ClassLoader classLoader) {
    URI managerUri = uri == null ? getDefaultURI() : uri;
    ClassLoader loader = classLoader == null ? getDefaultClassLoader() : classLoader;
    MooncakeCacheManager manager;
    synchronized (managers) {
      Map<URI, MooncakeCacheManager> byUri = managers.get(loader);
      manager = byUri == null ? null : byUri.get(managerUri);
    }
    if (manager != null) {
      manager.close();
    }
  }

  /** Called by a closing manager so that the next request makes a new one. */
  public void forget(MooncakeCacheManager manager) {
    synchronized (managers) {
      Map<URI, MooncakeCacheManager> byUri = managers.get(manager.getClassLoader());
      if (byUri != null) {
        byUri.remove(manager.getURI(), manager);
        if (byUri.isEmpty()) {
          managers.remove(manager.getClassLoader());
        }
      }
    }
  }

  private java.util.List<MooncakeCacheManager> snapshot(ClassLoader onlyLoader) {
    java.util.List<MooncakeCacheManager> all = new java.util.ArrayList<>();
    synchronized (managers) {
      for (Map.Entry<ClassLoader, Map<URI, MooncakeCacheManager>> e : managers.entrySet()) {
        if (onlyLoader == null || e.getKey() == onlyLoader) {
          all.addAll(e.getValue().values());
        }
      }
    }
    return all;
  }

  @Override
  public boolean isSupported(OptionalFeature feature) {
    // Everything is stored by value, as bytes in the store.
    return false;
  }
}
