package dev.mooncake.jcache.internal.doctor;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mooncake.jcache.config.MooncakeConfig;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Every setting of a resolved {@link MooncakeConfig} with where it came from: the file (the key, or
 * one of its spellings, is in the JSON), the environment, or the default. Read off the record's
 * components, so a setting added to the config shows up here without a change.
 */
final class EffectiveSettings {
  /** Settings read from more than one key, or from a key whose name is not the component's. */
  private static final Map<String, List<String>> KEYS =
      Map.of(
          "masterServerAddress",
          List.of("master_server_address", "master_server_addr"),
          "deviceName",
          List.of("device_name", "rdma_devices"),
          "operationTimeout",
          List.of("operation_timeout_ms"),
          "consistency",
          List.of("consistency", "lock_lease_ms", "client_ttl_ms", "lock_keep_idle_ms"),
          "replica",
          List.of(
              "replica_num",
              "with_soft_pin",
              "with_hard_pin",
              "preferred_segments",
              "soft_pin_ttl",
              "value_placement"),
          "nativeSettings",
          List.of("abi", "etcd_tls"));

  /** One setting: its config key, its effective value, where that came from. */
  record Setting(String key, String value, String origin) {}

  private EffectiveSettings() {}

  /**
   * @param file the parsed JSON the config was read from, or null for the built-in defaults
   * @param environment the process environment (System::getenv in production)
   */
  static List<Setting> of(
      MooncakeConfig config, ObjectNode file, Function<String, String> environment) {
    List<Setting> settings = new ArrayList<>();
    for (RecordComponent component : MooncakeConfig.class.getRecordComponents()) {
      String name = component.getName();
      if (name.equals("source")) {
        continue;
      }
      List<String> keys = KEYS.getOrDefault(name, List.of(snakeCase(name)));
      Object value = read(component, config);
      settings.add(
          new Setting(
              String.join("/", keys),
              String.valueOf(value),
              origin(name, keys, value, file, environment)));
    }
    return settings;
  }

  private static String origin(
      String name,
      List<String> keys,
      Object value,
      ObjectNode file,
      Function<String, String> environment) {
    if (file != null) {
      for (String key : keys) {
        if (file.has(key)) {
          return "file (" + key + ")";
        }
      }
    }
    if (name.equals("library")) {
      String fromEnvironment = environment.apply("MOONCAKE_STORE_LIBRARY");
      return fromEnvironment == null || fromEnvironment.isBlank()
          ? "default (libmooncake_store.so on the loader's search path)"
          : "environment (MOONCAKE_STORE_LIBRARY=" + fromEnvironment + ")";
    }
    return "default";
  }

  private static Object read(RecordComponent component, MooncakeConfig config) {
    try {
      return component.getAccessor().invoke(config);
    } catch (IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot read setting " + component.getName(), e);
    }
  }

  /** {@code globalSegmentSize} → {@code global_segment_size}. */
  static String snakeCase(String camel) {
    StringBuilder out = new StringBuilder();
    for (char c : camel.toCharArray()) {
      if (Character.isUpperCase(c)) {
        out.append('_').append(Character.toLowerCase(c));
      } else {
        out.append(c);
      }
    }
    return out.toString().toLowerCase(Locale.ROOT);
  }
}
