package dev.mooncake.jcache.config;

/** The class loader to use when the caller gives none (cache definitions and config sources). */
public final class ClassLoaders {
  private ClassLoaders() {}

  /** The given loader, else the thread's context loader, else the provider's own. */
  public static ClassLoader orDefault(ClassLoader classLoader) {
    if (classLoader != null) {
      return classLoader;
    }
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : ClassLoaders.class.getClassLoader();
  }
}
