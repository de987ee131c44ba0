package dev.mooncake.jcache.config;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.mooncake.jcache.internal.config.parse.ConfigJsonParser;
import dev.mooncake.jcache.internal.config.parse.ConfigWarnings;
import dev.mooncake.jcache.internal.config.parse.MooncakeConfigReader;
import dev.mooncake.jcache.internal.config.source.ConfigSourceReader;
import dev.mooncake.jcache.internal.config.source.DefaultConfigUri;
import java.net.URI;
import java.util.function.Function;

/**
 * Turns a provider URI into a validated {@link MooncakeConfig}. Every problem of a config — a URI
 * that names nothing, invalid JSON, a bad value, a broken rule — surfaces here, when the cache
 * manager is created, as a {@link ConfigException} naming the source, the key and the problem.
 *
 * <p>The keys, defaults and rules are documented in {@code docs/configuration.md}.
 */
public final class ConfigLoader {

  /** The URI that stands for the built-in defaults (the in-process store). */
  public static final URI BUILT_IN_URI = DefaultConfigUri.BUILT_IN_URI;

  /** System property naming the default config (a URI or a path); the TCK runner sets it. */
  public static final String SYSTEM_PROPERTY = DefaultConfigUri.SYSTEM_PROPERTY;

  /** Environment variable naming the default config file, as vLLM reads it. */
  public static final String ENV_VARIABLE = DefaultConfigUri.ENV_VARIABLE;

  /** Class path resource used as the default config when present. */
  public static final String CLASSPATH_RESOURCE = DefaultConfigUri.CLASSPATH_RESOURCE;

  /** The {@code source} of {@link #defaults()}. */
  public static final String BUILT_IN_SOURCE = "built-in defaults";

  private ConfigLoader() {}

  /**
   * The provider's default URI: system property {@value #SYSTEM_PROPERTY}, else the file named by
   * {@value #ENV_VARIABLE}, else {@code classpath:mooncake.json} if the class loader has it, else
   * {@link #BUILT_IN_URI}.
   */
  public static URI defaultUri(ClassLoader classLoader) {
    return defaultUri(classLoader, System::getenv);
  }

  /** {@link #defaultUri(ClassLoader)} with the environment given (for tests and embedding). */
  public static URI defaultUri(ClassLoader classLoader, Function<String, String> environment) {
    return DefaultConfigUri.resolve(classLoader, System::getProperty, environment);
  }

  /**
   * Loads and validates the config a URI names; {@code null} means {@link
   * #defaultUri(ClassLoader)}. {@code classpath:} URIs use the class loader (else the thread's
   * context loader, else the provider's). Errors are {@link ConfigException}s.
   */
  public static MooncakeConfig load(URI uri, ClassLoader classLoader) {
    return load(uri, classLoader, ConfigWarnings.SHARED);
  }

  static MooncakeConfig load(URI uri, ClassLoader classLoader, ConfigWarnings warnings) {
    URI target = uri != null ? uri : defaultUri(classLoader);
    if (BUILT_IN_URI.equals(target)) {
      return defaults();
    }
    String source = target.toString();
    byte[] bytes = ConfigSourceReader.read(target, classLoader);
    return MooncakeConfigReader.read(ConfigJsonParser.parse(bytes, source), source, warnings);
  }

  /**
   * Reads config JSON given as text (for tests and programmatic use); {@code source} names it in
   * messages.
   */
  static MooncakeConfig parse(String json, String source, ConfigWarnings warnings) {
    byte[] bytes = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return MooncakeConfigReader.read(ConfigJsonParser.parse(bytes, source), source, warnings);
  }

  /** The built-in defaults: the in-process store, exactly what an empty JSON object gives. */
  public static MooncakeConfig defaults() {
    return MooncakeConfigReader.read(
        JsonNodeFactory.instance.objectNode(), BUILT_IN_SOURCE, ConfigWarnings.SHARED);
  }
}
