package dev.mooncake.jcache.config;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Config warnings (unknown keys, doubtful settings), each given once per (source, key): a manager
 * re-created from the same file (every test, every redeploy) should not repeat the same warning.
 */
final class ConfigWarnings {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigLoader.class);

  /** The warnings {@link ConfigLoader} gives: WARN through SLF4J. */
  static final ConfigWarnings SHARED = new ConfigWarnings(LOG::warn);

  private final Set<String> given = ConcurrentHashMap.newKeySet();
  private final Consumer<String> sink;

  ConfigWarnings(Consumer<String> sink) {
    this.sink = sink;
  }

  void warnOnce(String source, String key, String message) {
    if (given.add(source + '\u0000' + key)) {
      sink.accept(message);
    }
  }
}
