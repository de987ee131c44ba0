package dev.mooncake.jcache.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.CacheDefinition.ExpirySettings;
import dev.mooncake.jcache.config.CacheDefinition.ListenerDefinition;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.Factory;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.expiry.TouchedExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CacheDefinitionsTest {
  private static final String PREFIX = CacheDefinitionsTest.class.getName() + "$";
  private static final ClassLoader LOADER = CacheDefinitionsTest.class.getClassLoader();

  @TempDir Path dir;

  // ---- classes the definitions name ----

  public static class TestLoader implements CacheLoader<Object, Object> {
    @Override
    public Object load(Object key) {
      return "loaded:" + key;
    }

    @Override
    public Map<Object, Object> loadAll(Iterable<?> keys) {
      return Map.of();
    }
  }

  public static class TestLoaderFactory implements Factory<CacheLoader<Object, Object>> {
    @Override
    public CacheLoader<Object, Object> create() {
      return new TestLoader();
    }
  }

  public static class TestWriter implements CacheWriter<Object, Object> {
    @Override
    public void write(javax.cache.Cache.Entry<?, ?> entry) {}

    @Override
    public void writeAll(java.util.Collection<javax.cache.Cache.Entry<?, ?>> entries) {}

    @Override
    public void delete(Object key) {}

    @Override
    public void deleteAll(java.util.Collection<?> keys) {}
  }

  public static class TestListener implements CacheEntryCreatedListener<Object, Object> {
    @Override
    public void onCreated(Iterable<CacheEntryEvent<?, ?>> events) {}
  }

  public static class TestFilter implements CacheEntryEventFilter<Object, Object> {
    @Override
    public boolean evaluate(CacheEntryEvent<?, ?> event) {
      return true;
    }
  }

  public abstract static class AbstractLoader implements CacheLoader<Object, Object> {}

  public static class LoaderWithoutDefaultConstructor extends TestLoader {
    public LoaderWithoutDefaultConstructor(String unused) {}
  }

  private static CacheDefinition def(
      String keyType,
      String valueType,
      ExpirySettings expiry,
      String loader,
      String writer,
      List<ListenerDefinition> listeners) {
    return new CacheDefinition(
        "users", keyType, valueType, expiry, true, true, true, true, loader, writer, listeners,
        "java", null);
  }

  // ---- toConfiguration ----

  @Test
  void unsetDefinitionGivesJCacheDefaults() {
    assertEquals(
        new MutableConfiguration<>(),
        CacheDefinitions.toConfiguration(CacheDefinition.unset("c"), LOADER));
  }

  @Test
  void everySettingIsTranslated() {
    CacheDefinition def =
        def(
            "java.lang.String",
            "java.lang.Long",
            new ExpirySettings("created", java.time.Duration.ofSeconds(10)),
            PREFIX + "TestLoader",
            PREFIX + "TestWriter",
            List.of(
                new ListenerDefinition(
                    PREFIX + "TestListener", PREFIX + "TestFilter", true, true)));

    MutableConfiguration<Object, Object> config = CacheDefinitions.toConfiguration(def, LOADER);

    assertEquals(String.class, config.getKeyType());
    assertEquals(Long.class, config.getValueType());
    assertEquals(
        CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, 10_000)),
        config.getExpiryPolicyFactory());
    assertTrue(config.isStatisticsEnabled());
    assertTrue(config.isManagementEnabled());
    assertTrue(config.isReadThrough());
    assertTrue(config.isWriteThrough());
    assertInstanceOf(TestLoader.class, config.getCacheLoaderFactory().create());
    assertInstanceOf(TestWriter.class, config.getCacheWriterFactory().create());
    List<CacheEntryListenerConfiguration<Object, Object>> listeners = new ArrayList<>();
    config.getCacheEntryListenerConfigurations().forEach(listeners::add);
    assertEquals(1, listeners.size());
    CacheEntryListenerConfiguration<Object, Object> listener = listeners.get(0);
    assertInstanceOf(TestListener.class, listener.getCacheEntryListenerFactory().create());
    assertInstanceOf(TestFilter.class, listener.getCacheEntryEventFilterFactory().create());
    assertTrue(listener.isOldValueRequired());
    assertTrue(listener.isSynchronous());
  }

  @Test
  void aFactoryClassIsInstantiatedAsTheFactory() {
    CacheDefinition def =
        def(
            null,
            null,
            null,
            PREFIX + "TestLoaderFactory",
            null,
            List.of(new ListenerDefinition(PREFIX + "TestListener", null, false, false)));

    MutableConfiguration<Object, Object> config = CacheDefinitions.toConfiguration(def, LOADER);

    assertInstanceOf(TestLoaderFactory.class, config.getCacheLoaderFactory());
    assertNull(
        config
            .getCacheEntryListenerConfigurations()
            .iterator()
            .next()
            .getCacheEntryEventFilterFactory());
  }

  @ParameterizedTest
  @CsvSource({"created", "accessed", "modified", "touched"})
  void expiryPolicies(String policy) {
    CacheDefinition def =
        def(
            null,
            null,
            new ExpirySettings(policy, java.time.Duration.ofMillis(250)),
            null,
            null,
            List.of());
    Duration duration = new Duration(TimeUnit.MILLISECONDS, 250);
    Factory<?> expected =
        switch (policy) {
          case "created" -> CreatedExpiryPolicy.factoryOf(duration);
          case "accessed" -> AccessedExpiryPolicy.factoryOf(duration);
          case "modified" -> ModifiedExpiryPolicy.factoryOf(duration);
          default -> TouchedExpiryPolicy.factoryOf(duration);
        };

    assertEquals(expected, CacheDefinitions.toConfiguration(def, LOADER).getExpiryPolicyFactory());
  }

  @Test
  void eternalExpiry() {
    CacheDefinition def =
        def(null, null, new ExpirySettings("eternal", null), null, null, List.of());

    assertEquals(
        EternalExpiryPolicy.factoryOf(),
        CacheDefinitions.toConfiguration(def, LOADER).getExpiryPolicyFactory());
  }

  @Test
  void arrayTypes() {
    CacheDefinition def = def("byte[]", "[Ljava.lang.String;", null, null, null, List.of());

    MutableConfiguration<Object, Object> config = CacheDefinitions.toConfiguration(def, LOADER);

    assertEquals(byte[].class, config.getKeyType());
    assertEquals(String[].class, config.getValueType());
  }

  @Test
  void unknownClassNamesTheCacheAndKey() {
    CacheDefinition def =
        def("java.lang.String", null, null, "com.acme.MissingLoader", null, List.of());

    ConfigException e =
        assertThrows(ConfigException.class, () -> CacheDefinitions.toConfiguration(def, LOADER));

    assertTrue(e.getMessage().contains("cache 'users'"), e.getMessage());
    assertTrue(e.getMessage().contains("caches.users.loader"), e.getMessage());
    assertTrue(e.getMessage().contains("com.acme.MissingLoader not found"), e.getMessage());
  }

  @Test
  void badClassesAreErrors() {
    assertMessage(
        def("com.acme.Missing", null, null, null, null, List.of()),
        "caches.users.key_type",
        "not found");
    assertMessage(
        def("int", null, null, null, null, List.of()), "caches.users.key_type", "primitive");
    assertMessage(
        def(null, null, null, "java.lang.String", null, List.of()),
        "caches.users.loader",
        "neither a javax.cache.configuration.Factory nor a javax.cache.integration.CacheLoader");
    assertMessage(
        def(null, null, null, PREFIX + "AbstractLoader", null, List.of()),
        "caches.users.loader",
        "abstract");
    assertMessage(
        def(null, null, null, PREFIX + "LoaderWithoutDefaultConstructor", null, List.of()),
        "caches.users.loader",
        "no public no-argument constructor");
    assertMessage(
        def(null, null, null, null, PREFIX + "TestLoader", List.of()),
        "caches.users.writer",
        "CacheWriter");
    assertMessage(
        def(
            null,
            null,
            null,
            null,
            null,
            List.of(new ListenerDefinition(PREFIX + "TestFilter", null, false, false))),
        "caches.users.listeners[0].factory",
        "CacheEntryListener");
    assertMessage(
        def(
            null,
            null,
            null,
            null,
            null,
            List.of(
                new ListenerDefinition(
                    PREFIX + "TestListener", "com.acme.NoFilter", false, false))),
        "caches.users.listeners[0].filter",
        "not found");
  }

  private static void assertMessage(CacheDefinition def, String key, String fragment) {
    ConfigException e =
        assertThrows(ConfigException.class, () -> CacheDefinitions.toConfiguration(def, LOADER));
    assertTrue(e.getMessage().contains(key) && e.getMessage().contains(fragment), e.getMessage());
  }

  @Test
  void classesVisibleOnlyToTheManagersLoaderStillInstantiate() throws Exception {
    Path sources = dir.resolve("src/acme");
    ConfigTestSupport.write(
        dir,
        "src/acme/HiddenLoader.java",
        """
        package acme;
        public class HiddenLoader implements javax.cache.integration.CacheLoader<Object, Object> {
          public Object load(Object key) { return "hidden"; }
          public java.util.Map<Object, Object> loadAll(Iterable<?> keys) { return java.util.Map.of(); }
        }
        """);
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    int status =
        compiler.run(
            null,
            null,
            null,
            "-d",
            dir.resolve("classes").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            sources.resolve("HiddenLoader.java").toString());
    assertEquals(0, status);

    try (URLClassLoader managerLoader =
        new URLClassLoader(new URL[] {dir.resolve("classes").toUri().toURL()}, LOADER)) {
      CacheDefinition def = def(null, null, null, "acme.HiddenLoader", null, List.of());
      Factory<CacheLoader<Object, Object>> factory =
          CacheDefinitions.toConfiguration(def, managerLoader).getCacheLoaderFactory();

      // The thread's context loader cannot see the class; FactoryBuilder's ClassFactory would fail
      // here.
      assertSame(LOADER, Thread.currentThread().getContextClassLoader());
      assertThrows(
          RuntimeException.class, () -> FactoryBuilder.factoryOf("acme.HiddenLoader").create());
      assertEquals("hidden", factory.create().load("k"));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  // ---- merge ----

  private static CacheDefinition fileDefinition() {
    return new CacheDefinition(
        "users",
        "java.lang.String",
        "java.lang.String",
        new ExpirySettings("created", java.time.Duration.ofSeconds(10)),
        true,
        null,
        true,
        null,
        PREFIX + "TestLoader",
        null,
        List.of(new ListenerDefinition(PREFIX + "TestListener", null, false, true)),
        "string",
        null);
  }

  @Test
  void mergeWithDefaultsKeepsTheFilesSettings() {
    MutableConfiguration<String, String> merged =
        CacheDefinitions.merge(fileDefinition(), new MutableConfiguration<>(), LOADER);

    assertEquals(
        CacheDefinitions.toConfiguration(fileDefinition(), LOADER).getExpiryPolicyFactory(),
        merged.getExpiryPolicyFactory());
    assertEquals(String.class, merged.getKeyType());
    assertEquals(String.class, merged.getValueType());
    assertTrue(merged.isStatisticsEnabled());
    assertTrue(merged.isReadThrough());
    assertFalse(merged.isWriteThrough());
    assertFalse(merged.isManagementEnabled());
    assertTrue(merged.isStoreByValue());
    assertInstanceOf(TestLoader.class, merged.getCacheLoaderFactory().create());
    assertEquals(1, count(merged.getCacheEntryListenerConfigurations()));
  }

  @Test
  void passedSettingsThatDifferFromDefaultsOverrideTheFile() {
    Factory<CacheLoader<String, Long>> loader = () -> null;
    Factory<CacheWriter<? super String, ? super Long>> writer = () -> null;
    MutableCacheEntryListenerConfiguration<String, Long> passedListener =
        new MutableCacheEntryListenerConfiguration<>(
            FactoryBuilder.factoryOf(TestListener.class), null, true, false);
    MutableConfiguration<String, Long> passed =
        new MutableConfiguration<String, Long>()
            .setTypes(String.class, Long.class)
            .setExpiryPolicyFactory(AccessedExpiryPolicy.factoryOf(Duration.ONE_MINUTE))
            .setCacheLoaderFactory(loader)
            .setCacheWriterFactory(writer)
            .setWriteThrough(true)
            .setManagementEnabled(true)
            .setStoreByValue(false)
            .addCacheEntryListenerConfiguration(passedListener);

    MutableConfiguration<String, Long> merged =
        CacheDefinitions.merge(fileDefinition(), passed, LOADER);

    assertEquals(Long.class, merged.getValueType());
    assertEquals(
        AccessedExpiryPolicy.factoryOf(Duration.ONE_MINUTE), merged.getExpiryPolicyFactory());
    assertSame(loader, merged.getCacheLoaderFactory());
    assertSame(writer, merged.getCacheWriterFactory());
    assertTrue(merged.isWriteThrough());
    assertTrue(merged.isManagementEnabled());
    assertFalse(merged.isStoreByValue());
    assertTrue(merged.isReadThrough(), "a default false cannot turn off what the file turns on");
    assertTrue(merged.isStatisticsEnabled());
    assertEquals(
        2,
        count(merged.getCacheEntryListenerConfigurations()),
        "the file's listener plus the passed one");
  }

  @Test
  void passedTypesOverrideOneByOne() {
    MutableConfiguration<Object, Integer> passed =
        new MutableConfiguration<Object, Integer>().setTypes(Object.class, Integer.class);

    MutableConfiguration<Object, Integer> merged =
        CacheDefinitions.merge(fileDefinition(), passed, LOADER);

    assertEquals(
        String.class,
        merged.getKeyType(),
        "the file's key type stays when the passed one is the default");
    assertEquals(Integer.class, merged.getValueType());
  }

  @Test
  void aPlainConfigurationGivesOnlyTypesAndStoreByValue() {
    Configuration<String, Integer> plain =
        new Configuration<>() {
          @Override
          public Class<String> getKeyType() {
            return String.class;
          }

          @Override
          public Class<Integer> getValueType() {
            return Integer.class;
          }

          @Override
          public boolean isStoreByValue() {
            return false;
          }
        };

    MutableConfiguration<String, Integer> merged =
        CacheDefinitions.merge(fileDefinition(), plain, LOADER);

    assertEquals(Integer.class, merged.getValueType());
    assertFalse(merged.isStoreByValue());
    assertEquals(
        CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, 10_000)),
        merged.getExpiryPolicyFactory());
    assertTrue(merged.isStatisticsEnabled());
    assertTrue(merged.isReadThrough());
    assertInstanceOf(TestLoader.class, merged.getCacheLoaderFactory().create());
    assertEquals(1, count(merged.getCacheEntryListenerConfigurations()));
  }

  @Test
  void mergeOfAnUndeclaredCacheIsThePassedConfiguration() {
    MutableConfiguration<String, Long> passed =
        new MutableConfiguration<String, Long>()
            .setTypes(String.class, Long.class)
            .setStatisticsEnabled(true)
            .setExpiryPolicyFactory(TouchedExpiryPolicy.factoryOf(Duration.ONE_HOUR));

    assertEquals(passed, CacheDefinitions.merge(CacheDefinition.unset("x"), passed, LOADER));
  }

  @Test
  void theSameListenerRegistrationIsNotAddedTwice() {
    MutableConfiguration<String, String> file =
        CacheDefinitions.merge(fileDefinition(), new MutableConfiguration<>(), LOADER);
    MutableConfiguration<String, String> passed = new MutableConfiguration<String, String>();
    file.getCacheEntryListenerConfigurations().forEach(passed::addCacheEntryListenerConfiguration);

    assertEquals(
        1,
        count(
            CacheDefinitions.merge(fileDefinition(), passed, LOADER)
                .getCacheEntryListenerConfigurations()));
  }

  private static int count(Iterable<?> items) {
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }
}
