package dev.mooncake.jcache.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mooncake.jcache.internal.config.source.DefaultConfigUri;
import java.io.IOException;
import java.net.URI;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Default URI precedence: system property > environment > classpath:mooncake.json > built-in. */
class DefaultConfigUriTest {
  private static final Function<String, String> NONE = name -> null;

  @TempDir Path dir;

  private static Function<String, String> only(String name, String value) {
    return Map.of(name, value)::get;
  }

  private URLClassLoader loaderWithMooncakeJson() throws IOException {
    ConfigTestSupport.write(dir, "cp/mooncake.json", "{}");
    return ConfigUriTest.loaderOver(dir.resolve("cp"));
  }

  private URLClassLoader emptyLoader() throws IOException {
    return ConfigUriTest.loaderOver(dir.resolve("empty"));
  }

  @Test
  void systemPropertyWinsOverEverything() throws IOException {
    try (URLClassLoader loader = loaderWithMooncakeJson()) {
      URI uri =
          DefaultConfigUri.resolve(
              loader,
              only(ConfigLoader.SYSTEM_PROPERTY, "classpath:tck-in-process.json"),
              only(ConfigLoader.ENV_VARIABLE, "/etc/mooncake.json"));

      assertEquals(URI.create("classpath:tck-in-process.json"), uri);
    }
  }

  @Test
  void systemPropertyMayBeAPath() throws IOException {
    try (URLClassLoader loader = emptyLoader()) {
      Path path = dir.resolve("conf/mooncake.json");
      URI uri =
          DefaultConfigUri.resolve(
              loader, only(ConfigLoader.SYSTEM_PROPERTY, path.toString()), NONE);

      assertEquals(path.toUri(), uri);
    }
  }

  @Test
  void environmentComesNextAsAFileUri() throws IOException {
    try (URLClassLoader loader = loaderWithMooncakeJson()) {
      Path path = dir.resolve("vllm/mooncake.json");
      URI uri =
          DefaultConfigUri.resolve(loader, NONE, only(ConfigLoader.ENV_VARIABLE, path.toString()));

      assertEquals(path.toUri(), uri);
      assertEquals("file", uri.getScheme());
    }
  }

  @Test
  void relativeEnvironmentPathBecomesAbsolute() throws IOException {
    try (URLClassLoader loader = emptyLoader()) {
      URI uri =
          DefaultConfigUri.resolve(
              loader, NONE, only(ConfigLoader.ENV_VARIABLE, "conf/mooncake.json"));

      assertEquals(Path.of("conf/mooncake.json").toAbsolutePath().toUri(), uri);
    }
  }

  @Test
  void blankValuesCountAsUnset() throws IOException {
    try (URLClassLoader loader = emptyLoader()) {
      URI uri =
          DefaultConfigUri.resolve(
              loader,
              only(ConfigLoader.SYSTEM_PROPERTY, "  "),
              only(ConfigLoader.ENV_VARIABLE, ""));

      assertEquals(ConfigLoader.BUILT_IN_URI, uri);
    }
  }

  @Test
  void classpathResourceComesNext() throws IOException {
    try (URLClassLoader loader = loaderWithMooncakeJson()) {
      assertEquals(
          URI.create("classpath:mooncake.json"), DefaultConfigUri.resolve(loader, NONE, NONE));
    }
  }

  @Test
  void builtInIsTheLastResort() throws IOException {
    try (URLClassLoader loader = emptyLoader()) {
      assertEquals(ConfigLoader.BUILT_IN_URI, DefaultConfigUri.resolve(loader, NONE, NONE));
    }
  }

  @Test
  void aMissingFileFromTheEnvironmentIsNotSkipped() throws IOException {
    try (URLClassLoader loader = loaderWithMooncakeJson()) {
      URI uri =
          DefaultConfigUri.resolve(
              loader, NONE, only(ConfigLoader.ENV_VARIABLE, dir.resolve("gone.json").toString()));

      ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(uri, loader));
      assertTrue(e.getMessage().contains("gone.json"), e.getMessage());
    }
  }

  @Test
  void invalidUriInTheSystemPropertyIsAnError() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                DefaultConfigUri.resolve(
                    null, only(ConfigLoader.SYSTEM_PROPERTY, "classpath:my config.json"), NONE));

    assertTrue(e.getMessage().contains(ConfigLoader.SYSTEM_PROPERTY), e.getMessage());
  }

  @Test
  void publicOverloadTakesTheEnvironment() throws IOException {
    assumeTrue(
        System.getProperty(ConfigLoader.SYSTEM_PROPERTY) == null,
        "system property set outside the test");
    try (URLClassLoader loader = emptyLoader()) {
      Path path = dir.resolve("env.json");
      assertEquals(
          path.toUri(),
          ConfigLoader.defaultUri(loader, only(ConfigLoader.ENV_VARIABLE, path.toString())));
      assertEquals(ConfigLoader.BUILT_IN_URI, ConfigLoader.defaultUri(loader, NONE));
    }
  }

  @Test
  void publicOverloadReadsTheSystemProperty() throws IOException {
    assumeTrue(
        System.getProperty(ConfigLoader.SYSTEM_PROPERTY) == null,
        "system property set outside the test");
    System.setProperty(ConfigLoader.SYSTEM_PROPERTY, "classpath:from-property.json");
    try (URLClassLoader loader = emptyLoader()) {
      assertEquals(
          URI.create("classpath:from-property.json"),
          ConfigLoader.defaultUri(loader, only(ConfigLoader.ENV_VARIABLE, "/etc/mooncake.json")));
    } finally {
      System.clearProperty(ConfigLoader.SYSTEM_PROPERTY);
    }
  }
}
