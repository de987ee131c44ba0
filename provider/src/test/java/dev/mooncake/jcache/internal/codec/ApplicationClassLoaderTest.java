package dev.mooncake.jcache.internal.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Constructor;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cache manager created with an application's class loader (Spring DevTools' restart loader, an
 * application server's per-deployment loader) decodes values with that loader, whatever the calling
 * thread's context loader is. The value class is compiled here, at test time, into a directory only
 * a child class loader reads: the provider's own loader cannot see it.
 */
class ApplicationClassLoaderTest {
  private static final String PARCEL = "dev.mooncake.childonly.Parcel";
  private static final String PARCEL_SOURCE =
      """
      package dev.mooncake.childonly;

      public final class Parcel implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        private final String label;

        public Parcel(String label) {
          this.label = label;
        }

        @Override
        public String toString() {
          return "Parcel[" + label + "]";
        }
      }
      """;
  private static final String CONFIG =
      """
      {"tenant_id": "loaders",
       "deserialization_allow_list": ["dev.mooncake.childonly.*"],
       "caches": {
         "parcels": {"key_type": "java.lang.String", "value_type": "%s"}}}
      """
          .formatted(PARCEL);

  @TempDir Path dir;
  private final MooncakeCachingProvider provider = new MooncakeCachingProvider();
  private final ClassLoader parent = getClass().getClassLoader();
  private URLClassLoader child;
  private Class<?> parcelClass;
  private URI configUri;

  @BeforeEach
  void compileParcelIntoAChildLoader() throws Exception {
    Path classes = Files.createDirectories(dir.resolve("classes"));
    compile(PARCEL_SOURCE, dir.resolve("src/Parcel.java"), classes);
    child = new URLClassLoader("application", new URL[] {classes.toUri().toURL()}, parent);
    parcelClass = Class.forName(PARCEL, false, child);
    assertSame(child, parcelClass.getClassLoader());
    assertThrows(
        ClassNotFoundException.class,
        () -> Class.forName(PARCEL, false, parent),
        "the test is void if the provider's loader can see the class");

    configUri = dir.resolve("mooncake.json").toUri();
    Files.writeString(dir.resolve("mooncake.json"), CONFIG);
  }

  @AfterEach
  void close() throws Exception {
    provider.close();
    child.close();
  }

  @Test
  void declaredCacheOfAChildOnlyTypeStoresAndDecodesIt() throws Exception {
    CacheManager manager = provider.getCacheManager(configUri, child);
    assertSame(child, manager.getClassLoader());
    Cache<String, Object> parcels = manager.getCache("parcels");
    assertNotNull(parcels, "declared cache");
    // The file's value_type was resolved with the manager's loader.
    assertSame(parcelClass, parcels.getConfiguration(CompleteConfiguration.class).getValueType());

    parcels.put("a", parcel("first"));
    parcels.putAll(Map.of("b", parcel("second")));

    // The thread's context loader cannot see Parcel: only the manager's loader can decode it.
    Object a = onThreadWithContextLoader(parent, () -> parcels.get("a"));
    assertSame(parcelClass, a.getClass());
    assertEquals("Parcel[first]", a.toString());

    Map<String, Object> both =
        onThreadWithContextLoader(parent, () -> parcels.getAll(Set.of("a", "b")));
    assertSame(parcelClass, both.get("b").getClass());
    assertEquals("Parcel[second]", both.get("b").toString());

    Object old = onThreadWithContextLoader(parent, () -> parcels.getAndReplace("a", parcel("3")));
    assertEquals("Parcel[first]", old.toString());

    Object seen =
        onThreadWithContextLoader(
            parent, () -> parcels.invoke("b", (entry, args) -> entry.getValue()));
    assertSame(parcelClass, seen.getClass());

    int entries =
        onThreadWithContextLoader(
            parent,
            () -> {
              int n = 0;
              for (Cache.Entry<String, Object> entry : parcels) {
                assertSame(parcelClass, entry.getValue().getClass());
                n++;
              }
              return n;
            });
    assertEquals(2, entries);
  }

  @Test
  void keysOfAChildOnlyTypeComeBackAsThatType() throws Exception {
    CacheManager manager = provider.getCacheManager(configUri, child);
    Cache<Object, String> byParcel =
        manager.createCache("byParcel", new MutableConfiguration<Object, String>());
    byParcel.put(parcel("key"), "value");

    Object key = onThreadWithContextLoader(parent, () -> byParcel.iterator().next().getKey());

    assertSame(parcelClass, key.getClass());
    assertEquals("Parcel[key]", key.toString());
  }

  @Test
  void managerOnTheProvidersLoaderCannotResolveTheChildOnlyType() {
    CacheException refused =
        assertThrows(CacheException.class, () -> provider.getCacheManager(configUri, parent));
    assertTrue(String.valueOf(refused.getMessage()).contains(PARCEL), refused.getMessage());
  }

  private Object parcel(String label) throws Exception {
    Constructor<?> constructor = parcelClass.getConstructor(String.class);
    return constructor.newInstance(label);
  }

  /** Runs on a fresh thread whose context class loader is {@code loader}; rethrows its failure. */
  private static <T> T onThreadWithContextLoader(ClassLoader loader, Callable<T> call)
      throws Exception {
    FutureTask<T> task = new FutureTask<>(call);
    Thread thread = new Thread(task, "context-loader-" + loader.getName());
    thread.setContextClassLoader(loader);
    thread.start();
    try {
      return task.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw (Exception) e.getCause();
    }
  }

  private static void compile(String source, Path sourceFile, Path classes) throws Exception {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "a JDK is needed to build and test this project (no system compiler)");
    Files.createDirectories(sourceFile.getParent());
    Files.writeString(sourceFile, source, StandardCharsets.UTF_8);
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int status =
        javac.run(
            null, null, errors, "--release", "17", "-d", classes.toString(), sourceFile.toString());
    assertEquals(0, status, "javac: " + errors.toString(StandardCharsets.UTF_8));
  }
}
