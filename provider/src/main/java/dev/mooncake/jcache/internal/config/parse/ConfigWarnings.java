package dev.mooncake.jcache.internal.config.parse;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Config warnings (unknown keys, doubtful settings), each given once per (source, key): a manager
 * re-created from the same file (every test, every redeploy) should not repeat the same warning.
 */
public final class ConfigWarnings {
  private static final Logger LOG =
      LoggerFactory.getLogger("dev.mooncake.jcache.config.ConfigLoader");

  /** The warnings {@code ConfigLoader} gives: WARN through SLF4J. */
  public static final ConfigWarnings SHARED = new ConfigWarnings(LOG::warn);

  private final Set<String> given = ConcurrentHashMap.newKeySet();
  private final Consumer<String> sink;

  public ConfigWarnings(Consumer<String> sink) {
    this.sink = sink;
  }

  void warnOnce(String source, String key, String message) {
    if (given.add(source + '\u0000' + key)) {
      sink.accept(message);
    }
  }
}
