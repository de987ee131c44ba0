package dev.mooncake.jcache.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig.Backend;
import dev.mooncake.jcache.internal.config.parse.ConfigWarnings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every URI form resolves; a URI that names nothing is an error naming the URI. */
class ConfigUriTest {
  private static final String CONFIG = "{\"tenant_id\": \"%s\"}";

  @TempDir Path dir;
  private Path file;

  @BeforeEach
  void writeConfig() {
    file = ConfigTestSupport.write(dir, "conf/mooncake.json", CONFIG.formatted("from-file"));
  }

  private static String tenant(URI uri) {
    return ConfigTestSupport.load(uri).tenantId();
  }

  @Test
  void fileUri() {
    URI uri = file.toUri();
    MooncakeConfig config = ConfigTestSupport.load(uri);

    assertEquals("from-file", config.tenantId());
    assertEquals(uri.toString(), config.source());
  }

  @Test
  void plainAbsolutePath() {
    assertEquals("from-file", tenant(URI.create(file.toString())));
  }

  @Test
  void plainRelativePathResolvesAgainstTheWorkingDirectory() {
    Path relative = Path.of("").toAbsolutePath().relativize(file);

    assertEquals("from-file", tenant(URI.create(relative.toString().replace('\\', '/'))));
  }

  @Test
  void opaqueFileUriWithARelativePath() {
    Path relative = Path.of("").toAbsolutePath().relativize(file);

    assertEquals("from-file", tenant(URI.create("file:" + relative.toString().replace('\\', '/'))));
  }

  @Test
  void classpathUriUsesTheGivenClassLoader() throws IOException {
    ConfigTestSupport.write(dir, "cp/mooncake.json", CONFIG.formatted("from-classpath"));
    ConfigTestSupport.write(dir, "cp/conf/other.json", CONFIG.formatted("from-classpath-dir"));
    try (URLClassLoader loader = loaderOver(dir.resolve("cp"))) {
      ConfigWarnings warnings = new ConfigWarnings(m -> {});
      assertEquals(
          "from-classpath",
          ConfigLoader.load(URI.create("classpath:mooncake.json"), loader, warnings).tenantId());
      assertEquals(
          "from-classpath",
          ConfigLoader.load(URI.create("classpath:/mooncake.json"), loader, warnings).tenantId());
      assertEquals(
          "from-classpath-dir",
          ConfigLoader.load(URI.create("classpath:conf/other.json"), loader, warnings).tenantId());
    }
  }

  @Test
  void classpathUriFallsBackToTheContextClassLoader() throws IOException {
    ConfigTestSupport.write(dir, "cp/mooncake.json", CONFIG.formatted("from-context"));
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    try (URLClassLoader loader = loaderOver(dir.resolve("cp"))) {
      thread.setContextClassLoader(loader);
      assertEquals("from-context", tenant(URI.create("classpath:mooncake.json")));
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  @Test
  void missingClasspathResourceIsAnError() throws IOException {
    try (URLClassLoader loader = loaderOver(dir)) {
      URI uri = URI.create("classpath:nowhere.json");
      ConfigException e =
          assertThrows(
              ConfigException.class,
              () -> ConfigLoader.load(uri, loader, new ConfigWarnings(m -> {})));
      assertTrue(e.getMessage().contains("classpath:nowhere.json"), e.getMessage());
      assertTrue(e.getMessage().contains("not found"), e.getMessage());
    }
  }

  @Test
  void jarEntry() throws IOException {
    Path jar = jar(dir.resolve("app.jar"), Map.of("mooncake.json", CONFIG.formatted("from-jar")));

    assertEquals("from-jar", tenant(URI.create("jar:" + jar.toUri() + "!/mooncake.json")));
  }

  @Test
  void springBootLegacyNestedDirectory() throws IOException {
    Path jar =
        jar(
            dir.resolve("app.jar"),
            Map.of("BOOT-INF/classes/mooncake.json", CONFIG.formatted("boot-classes")));

    assertEquals(
        "boot-classes",
        tenant(URI.create("jar:" + jar.toUri() + "!/BOOT-INF/classes!/mooncake.json")));
  }

  @Test
  void springBootNestedUris() throws IOException {
    byte[] innerJar = jarBytes(Map.of("mooncake.json", CONFIG.formatted("boot-lib")));
    Path jar =
        jar(
            dir.resolve("my app.jar"),
            Map.of(
                "BOOT-INF/classes/mooncake.json",
                CONFIG.formatted("boot-classes"),
                "BOOT-INF/lib/conf.jar",
                innerJar));
    String outer = jar.toUri().getRawPath(); // percent-encoded: the name has a space

    assertEquals(
        "boot-classes",
        tenant(URI.create("jar:nested:" + outer + "/!BOOT-INF/classes/!/mooncake.json")));
    assertEquals(
        "boot-lib",
        tenant(URI.create("jar:nested:" + outer + "/!BOOT-INF/lib/conf.jar!/mooncake.json")));
    assertEquals(
        "boot-lib",
        tenant(URI.create("jar:" + jar.toUri() + "!/BOOT-INF/lib/conf.jar!/mooncake.json")));
  }

  @Test
  void missingJarEntryIsAnError() throws IOException {
    Path jar = jar(dir.resolve("app.jar"), Map.of("other.json", "{}"));
    for (String spec :
        new String[] {
          "jar:" + jar.toUri() + "!/mooncake.json",
          "jar:" + jar.toUri() + "!/BOOT-INF/classes!/mooncake.json",
          "jar:nested:" + jar.toUri().getRawPath() + "/!BOOT-INF/classes/!/mooncake.json",
          "jar:" + dir.resolve("missing.jar").toUri() + "!/mooncake.json",
          "jar:nested:"
              + dir.resolve("missing.jar").toUri().getRawPath()
              + "/!BOOT-INF/classes/!/mooncake.json"
        }) {
      URI uri = URI.create(spec);
      ConfigException e =
          assertThrows(ConfigException.class, () -> ConfigTestSupport.load(uri), spec);
      assertTrue(e.getMessage().contains(spec), e.getMessage());
    }
  }

  @Test
  void missingFileIsAnErrorNamingTheUri() {
    URI uri = dir.resolve("absent.json").toUri();

    ConfigException e = assertThrows(ConfigException.class, () -> ConfigTestSupport.load(uri));

    assertTrue(e.getMessage().contains(uri.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("file not found"), e.getMessage());
  }

  @Test
  void missingPlainPathIsAnError() {
    URI uri = URI.create("no/such/dir/mooncake.json");

    ConfigException e = assertThrows(ConfigException.class, () -> ConfigTestSupport.load(uri));

    assertTrue(e.getMessage().contains("no/such/dir/mooncake.json"), e.getMessage());
  }

  @Test
  void directoryIsAnError() {
    ConfigException e =
        assertThrows(ConfigException.class, () -> ConfigTestSupport.load(dir.toUri()));

    assertTrue(e.getMessage().contains("is a directory"), e.getMessage());
  }

  @Test
  void unsupportedSchemeIsAnError() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigTestSupport.load(URI.create("http://config.example/mooncake.json")));

    assertTrue(e.getMessage().contains("unsupported URI scheme 'http'"), e.getMessage());
  }

  @Test
  void invalidJsonNamesTheSourceAndLocation() {
    URI uri =
        ConfigTestSupport.write(
                dir, "broken.json", "{\n  \"mode\": \"embedded\",\n  \"protocol\" \"tcp\"\n}")
            .toUri();

    ConfigException e = assertThrows(ConfigException.class, () -> ConfigTestSupport.load(uri));

    assertTrue(e.getMessage().contains(uri.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("invalid JSON at line 3, column"), e.getMessage());
  }

  @Test
  void emptyFileAndNonObjectsAreErrors() {
    URI empty = ConfigTestSupport.write(dir, "empty.json", "  \n").toUri();
    URI array = ConfigTestSupport.write(dir, "array.json", "[]").toUri();
    URI trailing = ConfigTestSupport.write(dir, "trailing.json", "{} {}").toUri();

    assertTrue(
        assertThrows(ConfigException.class, () -> ConfigTestSupport.load(empty))
            .getMessage()
            .contains("empty"));
    assertTrue(
        assertThrows(ConfigException.class, () -> ConfigTestSupport.load(array))
            .getMessage()
            .contains("top level must be a JSON object"));
    assertTrue(
        assertThrows(ConfigException.class, () -> ConfigTestSupport.load(trailing))
            .getMessage()
            .contains("invalid JSON"));
  }

  @Test
  void builtInUriGivesTheDefaults() {
    MooncakeConfig config = ConfigLoader.load(ConfigLoader.BUILT_IN_URI, null);

    assertEquals(ConfigLoader.defaults(), config);
    assertEquals(Backend.IN_PROCESS, config.backend());
  }

  @Test
  void tckRunnerConfigLoads() {
    Path tck = ProjectFiles.find("tck-runner/src/test/resources/tck-in-process.json");

    MooncakeConfig config = ConfigTestSupport.load(tck.toUri());

    assertEquals(Backend.IN_PROCESS, config.backend());
    assertEquals("tck", config.tenantId());
    assertEquals(256L << 20, config.globalSegmentSize());
  }

  static URLClassLoader loaderOver(Path root) throws IOException {
    return new URLClassLoader(
        new URL[] {root.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
  }

  private static Path jar(Path path, Map<String, ?> entries) throws IOException {
    Files.write(path, jarBytes(entries));
    return path;
  }

  private static byte[] jarBytes(Map<String, ?> entries) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JarOutputStream jar = new JarOutputStream(bytes)) {
      for (Map.Entry<String, ?> entry : entries.entrySet()) {
        jar.putNextEntry(new JarEntry(entry.getKey()));
        Object content = entry.getValue();
        OutputStream out = jar;
        out.write(
            content instanceof byte[] b ? b : content.toString().getBytes(StandardCharsets.UTF_8));
        jar.closeEntry();
      }
    }
    return bytes.toByteArray();
  }
}
