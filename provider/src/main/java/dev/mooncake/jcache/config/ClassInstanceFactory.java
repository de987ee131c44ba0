package dev.mooncake.jcache.config;

import java.util.Objects;
import javax.cache.CacheException;
import javax.cache.configuration.Factory;

/**
 * A factory that makes a new instance of a class resolved when the cache was configured.
 *
 * <p>Used instead of {@code FactoryBuilder.factoryOf(Class)}: that factory keeps only the class
 * name and re-loads it through the calling thread's context class loader in {@code create()}, which
 * fails when the class is visible only to the cache manager's class loader (application servers,
 * Spring Boot's nested jars, the TCK's own loaders). This one keeps the {@code Class}.
 */
final class ClassInstanceFactory<T> implements Factory<T> {
  private static final long serialVersionUID = 1L;

  private final Class<? extends T> type;

  ClassInstanceFactory(Class<? extends T> type) {
    this.type = Objects.requireNonNull(type);
  }

  @Override
  public T create() {
    try {
      return type.getConstructor().newInstance();
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new CacheException("cannot create an instance of " + type.getName() + ": " + e, e);
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ClassInstanceFactory<?> that && type.equals(that.type);
  }

  @Override
  public int hashCode() {
    return type.hashCode();
  }

  @Override
  public String toString() {
    return "ClassInstanceFactory[" + type.getName() + "]";
  }
}
