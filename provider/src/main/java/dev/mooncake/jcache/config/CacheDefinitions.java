package dev.mooncake.jcache.config;

import dev.mooncake.jcache.config.CacheDefinition.ExpirySettings;
import dev.mooncake.jcache.config.CacheDefinition.ListenerDefinition;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryListener;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.expiry.TouchedExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;

/**
 * Turns a {@link CacheDefinition} from the config file into JCache configuration, and merges it
 * with the configuration an application passes to {@code createCache}.
 *
 * <p>Class names are resolved with {@code Class.forName(name, false, classLoader)}: the cache
 * manager's class loader (else the thread's context loader, else the provider's). A loader, writer,
 * listener or filter name may name a {@link Factory} (instantiated now, through its public no-arg
 * constructor) or the loader/writer/listener/filter class itself (instantiated by the factory on
 * each {@code create()}).
 */
public final class CacheDefinitions {
  private CacheDefinitions() {}

  /**
   * The file's settings of a cache as a JCache configuration; unset settings keep JCache's
   * defaults.
   */
  public static MutableConfiguration<Object, Object> toConfiguration(
      CacheDefinition def, ClassLoader classLoader) {
    Objects.requireNonNull(def, "def");
    ClassLoader loader = ClassLoaders.orDefault(classLoader);
    MutableConfiguration<Object, Object> config = new MutableConfiguration<>();
    config.setTypes(
        type(def, "key_type", def.keyType(), loader),
        type(def, "value_type", def.valueType(), loader));
    if (def.expiry() != null) {
      config.setExpiryPolicyFactory(expiryFactory(def.expiry()));
    }
    if (def.statisticsEnabled() != null) {
      config.setStatisticsEnabled(def.statisticsEnabled());
    }
    if (def.managementEnabled() != null) {
      config.setManagementEnabled(def.managementEnabled());
    }
    if (def.readThrough() != null) {
      config.setReadThrough(def.readThrough());
    }
    if (def.writeThrough() != null) {
      config.setWriteThrough(def.writeThrough());
    }
    if (def.loaderFactory() != null) {
      Factory<CacheLoader<Object, Object>> factory =
          factory(def, "loader", def.loaderFactory(), CacheLoader.class, loader);
      config.setCacheLoaderFactory(factory);
    }
    if (def.writerFactory() != null) {
      Factory<CacheWriter<Object, Object>> factory =
          factory(def, "writer", def.writerFactory(), CacheWriter.class, loader);
      config.setCacheWriterFactory(factory);
    }
    List<ListenerDefinition> listeners = def.listeners() == null ? List.of() : def.listeners();
    for (int i = 0; i < listeners.size(); i++) {
      ListenerDefinition listener = listeners.get(i);
      String key = "listeners[" + i + "]";
      Factory<CacheEntryListener<Object, Object>> listenerFactory =
          factory(def, key + ".factory", listener.factory(), CacheEntryListener.class, loader);
      Factory<CacheEntryEventFilter<Object, Object>> filterFactory =
          listener.filterFactory() == null
              ? null
              : factory(
                  def,
                  key + ".filter",
                  listener.filterFactory(),
                  CacheEntryEventFilter.class,
                  loader);
      config.addCacheEntryListenerConfiguration(
          new MutableCacheEntryListenerConfiguration<>(
              listenerFactory, filterFactory, listener.oldValueRequired(), listener.synchronous()));
    }
    return config;
  }

  /**
   * The configuration of a cache declared in the file and created with {@code passed}: the file's
   * settings, overridden by every property of {@code passed} that differs from a fresh {@code new
   * MutableConfiguration<>()}'s default; listeners are the file's plus the passed ones. Of a plain
   * {@link Configuration} (not a {@link CompleteConfiguration}) only the types and store-by-value
   * are taken.
   */
  @SuppressWarnings("unchecked")
  public static <K, V> MutableConfiguration<K, V> merge(
      CacheDefinition fileDef, Configuration<K, V> passed, ClassLoader classLoader) {
    MutableConfiguration<K, V> file =
        (MutableConfiguration<K, V>)
            (MutableConfiguration<?, ?>) toConfiguration(fileDef, classLoader);
    if (passed == null) {
      return file;
    }
    MutableConfiguration<K, V> defaults = new MutableConfiguration<>();
    MutableConfiguration<K, V> merged = new MutableConfiguration<>();
    merged.setTypes(
        passed.getKeyType() != null && passed.getKeyType() != defaults.getKeyType()
            ? passed.getKeyType()
            : file.getKeyType(),
        passed.getValueType() != null && passed.getValueType() != defaults.getValueType()
            ? passed.getValueType()
            : file.getValueType());
    merged.setStoreByValue(
        passed.isStoreByValue() != defaults.isStoreByValue()
            ? passed.isStoreByValue()
            : file.isStoreByValue());

    CompleteConfiguration<K, V> complete =
        passed instanceof CompleteConfiguration<K, V> c ? c : defaults;
    merged.setExpiryPolicyFactory(
        differs(complete.getExpiryPolicyFactory(), defaults.getExpiryPolicyFactory())
            ? complete.getExpiryPolicyFactory()
            : file.getExpiryPolicyFactory());
    merged.setCacheLoaderFactory(
        orFile(complete.getCacheLoaderFactory(), file.getCacheLoaderFactory()));
    merged.setCacheWriterFactory(
        orFile(complete.getCacheWriterFactory(), file.getCacheWriterFactory()));
    // a flag passed as other than the default wins over the file's
    Function<Predicate<CompleteConfiguration<K, V>>, Boolean> flag =
        is -> is.test(complete) != is.test(defaults) ? is.test(complete) : is.test(file);
    merged.setReadThrough(flag.apply(CompleteConfiguration::isReadThrough));
    merged.setWriteThrough(flag.apply(CompleteConfiguration::isWriteThrough));
    merged.setStatisticsEnabled(flag.apply(CompleteConfiguration::isStatisticsEnabled));
    merged.setManagementEnabled(flag.apply(CompleteConfiguration::isManagementEnabled));

    Set<CacheEntryListenerConfiguration<K, V>> listeners = new HashSet<>();
    for (Iterable<CacheEntryListenerConfiguration<K, V>> from :
        List.of(
            file.getCacheEntryListenerConfigurations(),
            complete.getCacheEntryListenerConfigurations())) {
      for (CacheEntryListenerConfiguration<K, V> listener : from) {
        // the same registration twice would make addCache…Configuration throw
        if (listeners.add(listener)) {
          merged.addCacheEntryListenerConfiguration(listener);
        }
      }
    }
    return merged;
  }

  /** The passed setting, or the file's where the passed one is null (not set). */
  private static <T> T orFile(T passed, T file) {
    return passed != null ? passed : file;
  }

  private static boolean differs(Object passed, Object defaultValue) {
    return passed != null && !passed.equals(defaultValue);
  }

  private static Factory<? extends ExpiryPolicy> expiryFactory(ExpirySettings expiry) {
    if ("eternal".equals(expiry.policy()) || expiry.duration() == null) {
      return EternalExpiryPolicy.factoryOf();
    }
    Duration duration = new Duration(TimeUnit.MILLISECONDS, expiry.duration().toMillis());
    return switch (expiry.policy()) {
      case "created" -> CreatedExpiryPolicy.factoryOf(duration);
      case "accessed" -> AccessedExpiryPolicy.factoryOf(duration);
      case "modified" -> ModifiedExpiryPolicy.factoryOf(duration);
      case "touched" -> TouchedExpiryPolicy.factoryOf(duration);
      default ->
          throw new ConfigException(
              message(null, "expiry.policy", "unknown expiry policy '" + expiry.policy() + "'"));
    };
  }

  @SuppressWarnings("unchecked")
  private static Class<Object> type(
      CacheDefinition def, String key, String name, ClassLoader loader) {
    return name == null ? Object.class : (Class<Object>) loadClass(def, key, name, loader);
  }

  /** A Factory named by the config, or a factory of the named product class. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static <F> Factory<F> factory(
      CacheDefinition def, String key, String name, Class<?> product, ClassLoader loader) {
    Class<?> type = loadClass(def, key, name, loader);
    if (Factory.class.isAssignableFrom(type)) {
      try {
        return (Factory<F>) type.getConstructor().newInstance();
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        throw new ConfigException(
            message(
                def,
                key,
                "cannot instantiate factory "
                    + name
                    + " (it needs a public no-argument constructor): "
                    + e),
            e);
      }
    }
    if (!product.isAssignableFrom(type)) {
      throw new ConfigException(
          message(
              def,
              key,
              name + " is neither a javax.cache.configuration.Factory nor a " + product.getName()));
    }
    if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
      throw new ConfigException(
          message(def, key, name + " is abstract; name a concrete class or a Factory"));
    }
    try {
      // checked now so a bad class fails at config time, not at the first load or write
      java.lang.reflect.Constructor<?> unused = type.getConstructor();
    } catch (NoSuchMethodException e) {
      throw new ConfigException(
          message(def, key, name + " has no public no-argument constructor"), e);
    }
    return new ClassInstanceFactory(type);
  }

  private static Class<?> loadClass(
      CacheDefinition def, String key, String name, ClassLoader loader) {
    String component = name;
    int dimensions = 0;
    while (component.endsWith("[]")) {
      component = component.substring(0, component.length() - 2);
      dimensions++;
    }
    Class<?> type = primitive(component);
    if (type == null) {
      try {
        type = Class.forName(component, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        throw new ConfigException(
            message(def, key, "class " + name + " not found by class loader " + loader), e);
      }
    } else if (dimensions == 0) {
      throw new ConfigException(
          message(
              def,
              key,
              name
                  + " is a primitive type; use its wrapper class (e.g. java.lang.Integer for int)"));
    }
    for (int i = 0; i < dimensions; i++) {
      type = type.arrayType();
    }
    return type;
  }

  private static Class<?> primitive(String name) {
    return switch (name) {
      case "boolean" -> boolean.class;
      case "byte" -> byte.class;
      case "char" -> char.class;
      case "short" -> short.class;
      case "int" -> int.class;
      case "long" -> long.class;
      case "float" -> float.class;
      case "double" -> double.class;
      default -> null;
    };
  }

  private static String message(CacheDefinition def, String key, String problem) {
    String cache = def == null ? "" : "cache '" + def.name() + "': caches." + def.name() + ".";
    return "Mooncake " + cache + key + ": " + problem;
  }
}
