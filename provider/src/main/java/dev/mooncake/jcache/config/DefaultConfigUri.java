package dev.mooncake.jcache.config;

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
 *   <li>system property {@value ConfigLoader#SYSTEM_PROPERTY} (a URI or a path);
 *   <li>environment variable {@value ConfigLoader#ENV_VARIABLE} (a path, as vLLM reads it),
 *       as an absolute {@code file:} URI;
 *   <li>{@code classpath:mooncake.json} when the class loader has that resource;
 *   <li>{@link ConfigLoader#BUILT_IN_URI}: the built-in defaults (the in-process store).
 * </ol>
 *
 * Blank values count as unset. A property or variable that names a missing file is not skipped:
 * loading it fails and says so.
 */
final class DefaultConfigUri {
  /** A scheme of two or more letters; one letter is a Windows drive, not a scheme. */
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]+:.*");

  private DefaultConfigUri() {}

  static URI resolve(
      ClassLoader classLoader, Function<String, String> systemProperties, Function<String, String> environment) {
    String property = systemProperties.apply(ConfigLoader.SYSTEM_PROPERTY);
    if (property != null && !property.isBlank()) {
      return toUri(property.strip(), "system property " + ConfigLoader.SYSTEM_PROPERTY);
    }
    String path = environment.apply(ConfigLoader.ENV_VARIABLE);
    if (path != null && !path.isBlank()) {
      return toFileUri(path.strip(), "environment variable " + ConfigLoader.ENV_VARIABLE);
    }
    if (ClassLoaders.orDefault(classLoader).getResource(ConfigLoader.CLASSPATH_RESOURCE) != null) {
      return URI.create("classpath:" + ConfigLoader.CLASSPATH_RESOURCE);
    }
    return ConfigLoader.BUILT_IN_URI;
  }

  /** A URI as given when it has a scheme, else a path made absolute. */
  static URI toUri(String value, String origin) {
    if (SCHEME.matcher(value).matches()) {
      try {
        return new URI(value);
      } catch (URISyntaxException e) {
        throw new ConfigException(origin + " is not a valid URI: '" + value + "': " + e.getReason(), e);
      }
    }
    return toFileUri(value, origin);
  }

  private static URI toFileUri(String path, String origin) {
    try {
      return Path.of(path).toAbsolutePath().normalize().toUri();
    } catch (InvalidPathException e) {
      throw new ConfigException(origin + " is not a valid path: '" + path + "': " + e.getReason(), e);
    }
  }
}
