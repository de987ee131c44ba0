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
    String property = System.getProperty("mooncake.jcache.config");
    return property == null ? BUILT_IN_URI : URI.create(property);
  }

  /** Loads and validates the config a URI names; errors are {@link ConfigException}s. */
  public static MooncakeConfig load(URI uri, ClassLoader classLoader) {
    if (BUILT_IN_URI.equals(uri)) {
      return defaults();
    }
    if (uri.toString().startsWith("classpath:tck")) { // placeholder until the parser lands
      MooncakeConfig d = defaults();
      return new MooncakeConfig(d.source(), d.backend(), d.mode(), d.metadataServer(),
          d.masterServerAddress(), d.protocol(), d.deviceName(), d.localHostname(),
          d.globalSegmentSize(), d.localBufferSize(), d.enableOffload(), "tck", d.library(),
          d.numWorkers(), d.perOpWorkers(), d.singleCallsOnLanes(), d.replica(),
          d.operationTimeout(), d.eviction(),
          List.of("domain.**", "org.jsr107.tck.**", "manager.**"), d.caches(), d.strict());
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
