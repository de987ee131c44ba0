package dev.mooncake.jcache.internal.config.source;

import dev.mooncake.jcache.config.ClassLoaders;
import dev.mooncake.jcache.config.ConfigException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Chooses the provider's default URI, first match wins:
 *
 * <ol>
 *   <li>system property {@value #SYSTEM_PROPERTY} (a URI or a path);
 *   <li>environment variable {@value #ENV_VARIABLE} (a path, as vLLM reads it), as an absolute
 *       {@code file:} URI;
 *   <li>{@code classpath:mooncake.json} when the class loader has that resource;
 *   <li>{@link #BUILT_IN_URI}: the built-in defaults (the in-process store).
 * </ol>
 *
 * Blank values count as unset. A property or variable that names a missing file is not skipped:
 * loading it fails and says so.
 */
public final class DefaultConfigUri {
  /** A scheme of two or more letters; one letter is a Windows drive, not a scheme. */
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]+:.*");

  /** The URI that stands for the built-in defaults (the in-process store). */
  public static final URI BUILT_IN_URI = URI.create("mooncake:in-process");

  /** System property naming the default config (a URI or a path); the TCK runner sets it. */
  public static final String SYSTEM_PROPERTY = "mooncake.jcache.config";

  /** Environment variable naming the default config file, as vLLM reads it. */
  public static final String ENV_VARIABLE = "MOONCAKE_CONFIG_PATH";

  /** Class path resource used as the default config when present. */
  public static final String CLASSPATH_RESOURCE = "mooncake.json";

  private DefaultConfigUri() {}

  public static URI resolve(
      ClassLoader classLoader,
      Function<String, String> systemProperties,
      Function<String, String> environment) {
    String property = systemProperties.apply(SYSTEM_PROPERTY);
    if (property != null && !property.isBlank()) {
      return toUri(property.strip(), "system property " + SYSTEM_PROPERTY);
    }
    String path = environment.apply(ENV_VARIABLE);
    if (path != null && !path.isBlank()) {
      return toFileUri(path.strip(), "environment variable " + ENV_VARIABLE);
    }
    if (ClassLoaders.orDefault(classLoader).getResource(CLASSPATH_RESOURCE) != null) {
      return URI.create("classpath:" + CLASSPATH_RESOURCE);
    }
    return BUILT_IN_URI;
  }

  /** A URI as given when it has a scheme, else a path made absolute. */
  static URI toUri(String value, String origin) {
    if (SCHEME.matcher(value).matches()) {
      try {
        return new URI(value);
      } catch (URISyntaxException e) {
        throw new ConfigException(
            origin + " is not a valid URI: '" + value + "': " + e.getReason(), e);
      }
    }
    return toFileUri(value, origin);
  }

  private static URI toFileUri(String path, String origin) {
    try {
      return Path.of(path).toAbsolutePath().normalize().toUri();
    } catch (InvalidPathException e) {
      throw new ConfigException(
          origin + " is not a valid path: '" + path + "': " + e.getReason(), e);
    }
  }
}
