package dev.mooncake.jcache.internal.config.parse;

import dev.mooncake.jcache.config.ConfigException;

/**
 * What every part of the reader needs to report a problem: the config's source (for messages),
 * whether unknown keys are errors, and where warnings go.
 *
 * @param source names the config in messages
 * @param strict whether unknown keys are errors
 * @param warnings where warnings go
 */
record ConfigContext(String source, boolean strict, ConfigWarnings warnings) {

  /** An error about one key: {@code Mooncake config <source>: <key>: <problem>}. */
  ConfigException error(String key, String problem) {
    return new ConfigException(message(source, key, problem));
  }

  static String message(String source, String key, String problem) {
    return "Mooncake config " + source + ": " + key + ": " + problem;
  }

  /** A warning about a setting that works but is probably not what was meant (once per key). */
  void warn(String key, String problem) {
    warnings.warnOnce(source, key, message(source, key, problem));
  }

  /** An unknown key: an error in strict mode, else a warning (once per source and key). */
  void unknownKey(String key, String suggestion) {
    String hint = suggestion == null ? "" : " (did you mean '" + suggestion + "'?)";
    if (strict) {
      throw error(key, "unknown key" + hint + "; \"strict\": true makes unknown keys errors");
    }
    warnings.warnOnce(source, key, message(source, key, "unknown key ignored" + hint));
  }
}
