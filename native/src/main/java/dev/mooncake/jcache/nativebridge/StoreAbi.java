package dev.mooncake.jcache.nativebridge;

import java.util.Locale;

/**
 * The layout of {@code struct mooncake_replicate_config} in the loaded library (the config key
 * {@code abi}). Mooncake's {@code store_c.h} has no version symbol and no exported function tells
 * the layouts apart, so the bridge cannot find out by itself: without a named layout it passes only
 * what all three read alike (replica count and preferred segments, no pin) and refuses a config
 * that needs more. See {@code docs/native-bridge.md} for which Mooncake has which.
 */
public enum StoreAbi {
  /** {@code with_soft_pin}, no hard pin, no TTL (32 bytes). */
  V1,
  /** {@code with_soft_pin} and {@code with_hard_pin} (32 bytes). */
  V2,
  /** {@code with_hard_pin}, {@code soft_pin_action}, optional soft pin TTL (48 bytes). */
  V3;

  /** The native code: 0 for "not named", else 1, 2, 3. */
  static int code(StoreAbi abi) {
    return abi == null ? 0 : abi.ordinal() + 1;
  }

  /** "v1", "v2" or "v3" (case-insensitive); anything else throws, naming the choices. */
  public static StoreAbi parse(String value) {
    String text = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    switch (text) {
      case "v1":
        return V1;
      case "v2":
        return V2;
      case "v3":
        return V3;
      default:
        throw new IllegalArgumentException(
            "abi '" + value + "': expected v1, v2 or v3 (see docs/native-bridge.md)");
    }
  }

  /** The config value: "v1", "v2" or "v3". */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
