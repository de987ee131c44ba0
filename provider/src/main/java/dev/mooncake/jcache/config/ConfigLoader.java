package dev.mooncake.jcache.config;

import dev.mooncake.jcache.lane.Lane;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Turns a provider URI into validated {@link MooncakeConfig}. (Placeholder: the full parser and
 * validation live here once written.)
 */
public final class ConfigLoader {

  /** The URI that stands for the built-in defaults (the in-process store). */
  public static final URI BUILT_IN_URI = URI.create("mooncake:in-process");

  private ConfigLoader() {}

  /** The provider's default URI. */
  public static URI defaultUri(ClassLoader classLoader) {
    return BUILT_IN_URI;
  }

  /** Loads and validates the config a URI names; errors are {@link ConfigException}s. */
  public static MooncakeConfig load(URI uri, ClassLoader classLoader) {
    if (BUILT_IN_URI.equals(uri)) {
      return defaults();
    }
    throw new ConfigException("config not found: " + uri);
  }

  /** The built-in defaults: the in-process store. */
  public static MooncakeConfig defaults() {
    return new MooncakeConfig(
        "built-in defaults",
        MooncakeConfig.Backend.IN_PROCESS,
        MooncakeConfig.Mode.EMBEDDED,
        "",
        "",
        "tcp",
        "",
        "127.0.0.1",
        4L << 30,
        4L << 30,
        false,
        "default",
        null,
        4,
        Map.<Lane, Integer>of(),
        false,
        MooncakeConfig.ReplicaSettings.DEFAULT,
        Duration.ofSeconds(30),
        MooncakeConfig.EvictionSettings.DEFAULT,
        List.of(),
        Map.of(),
        false);
  }
}
