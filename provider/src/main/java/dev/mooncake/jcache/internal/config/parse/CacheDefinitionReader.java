package dev.mooncake.jcache.internal.config.parse;

import dev.mooncake.jcache.config.CacheDefinition;
import dev.mooncake.jcache.config.CacheDefinition.ExpirySettings;
import dev.mooncake.jcache.config.CacheDefinition.ListenerDefinition;
import dev.mooncake.jcache.config.CacheDefinition.NearCacheSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads one entry of the {@code caches} section into a {@link CacheDefinition}. */
final class CacheDefinitionReader {
  static final List<String> EXPIRY_POLICIES =
      List.of("eternal", "created", "accessed", "modified", "touched");
  static final List<String> CODECS = List.of("auto", "java", "string", "bytes");

  private CacheDefinitionReader() {}

  static CacheDefinition read(String name, ConfigObject cache) {
    String keyType = className(cache, "key_type");
    String valueType = className(cache, "value_type");
    ExpirySettings expiry = cache.object("expiry").map(CacheDefinitionReader::expiry).orElse(null);
    Boolean statistics = cache.bool("statistics").orElse(null);
    Boolean management = cache.bool("management").orElse(null);
    Boolean readThrough = cache.bool("read_through").orElse(null);
    Boolean writeThrough = cache.bool("write_through").orElse(null);
    String loader = className(cache, "loader");
    String writer = className(cache, "writer");
    List<ListenerDefinition> listeners = new ArrayList<>();
    for (ConfigObject listener : cache.objectList("listeners").orElse(List.of())) {
      listeners.add(listener(listener));
    }
    String codec = cache.string("codec").map(v -> oneOf(cache, "codec", v, CODECS)).orElse(null);
    NearCacheSettings near =
        cache.object("near_cache").map(CacheDefinitionReader::near).orElse(null);
    cache.finish();
    return new CacheDefinition(
        name,
        keyType,
        valueType,
        expiry,
        statistics,
        management,
        readThrough,
        writeThrough,
        loader,
        writer,
        List.copyOf(listeners),
        codec,
        near);
  }

  private static NearCacheSettings near(ConfigObject near) {
    long max =
        near.integer("max_entries")
            .orElseThrow(
                () ->
                    near.error(
                        "max_entries",
                        "is required: the most entries the near cache holds, e.g. 10000"));
    near.finish();
    if (max <= 0) {
      throw near.error("max_entries", "must be > 0, not " + max);
    }
    return new NearCacheSettings(max);
  }

  private static String className(ConfigObject object, String key) {
    return object
        .string(key)
        .map(
            v ->
                MooncakeConfigReader.check(
                    object.context(), object.path(key), ClassNames::validate, v.strip()))
        .orElse(null);
  }

  private static ExpirySettings expiry(ConfigObject expiry) {
    String policy =
        expiry
            .string("policy")
            .map(v -> oneOf(expiry, "policy", v, EXPIRY_POLICIES))
            .orElseThrow(
                () ->
                    expiry.error(
                        "policy", "is required; use one of " + String.join(", ", EXPIRY_POLICIES)));
    Optional<Long> millis = expiry.durationMillis("duration");
    expiry.finish();
    if (policy.equals("eternal")) {
      if (millis.isPresent()) {
        throw expiry.error(
            "duration", "an eternal policy takes no duration; remove it or choose another policy");
      }
      return new ExpirySettings(policy, null);
    }
    long duration =
        millis.orElseThrow(
            () ->
                expiry.error(
                    "duration",
                    "is required for policy '" + policy + "'; " + DurationParser.FORMS));
    if (duration <= 0) {
      throw expiry.error("duration", "must be > 0 (for no expiry use policy \"eternal\")");
    }
    return new ExpirySettings(policy, Duration.ofMillis(duration));
  }

  private static ListenerDefinition listener(ConfigObject listener) {
    String factory = className(listener, "factory");
    String listenerClass = className(listener, "listener");
    if (factory != null && listenerClass != null) {
      throw listener.error("listener", "give either factory or listener, not both");
    }
    if (factory == null && listenerClass == null) {
      throw listener.error(
          "factory",
          "is required: the class name of a Factory<CacheEntryListener> (or give \"listener\": a listener class)");
    }
    String filter = className(listener, "filter");
    boolean oldValueRequired = listener.bool("old_value_required", false);
    boolean synchronous = listener.bool("synchronous", false);
    listener.finish();
    return new ListenerDefinition(
        factory != null ? factory : listenerClass, filter, oldValueRequired, synchronous);
  }

  private static String oneOf(ConfigObject object, String key, String value, List<String> allowed) {
    String trimmed = value.strip();
    if (!allowed.contains(trimmed)) {
      throw object.error(
          key, "unknown value '" + value + "'; use one of " + String.join(", ", allowed));
    }
    return trimmed;
  }
}
