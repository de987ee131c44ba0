package dev.mooncake.jcache.internal.codec;

import java.nio.ByteBuffer;

/**
 * The value codec a cache's {@code codec} setting names. Every stored value carries its format
 * byte, so all of them decode whatever format they find (a value written by another JVM with
 * another setting still reads); the setting decides how values are written:
 *
 * <ul>
 *   <li>{@code auto} (or unset): compact forms for {@code String}, {@code byte[]} and boxed
 *       primitives, Java serialization for the rest ({@link TypedCodec});
 *   <li>{@code java}: Java serialization for every value, {@code String}s included;
 *   <li>{@code string}: {@code String} values only, UTF-8; anything else is refused;
 *   <li>{@code bytes}: {@code byte[]} values only, as they are; anything else is refused.
 * </ul>
 */
public final class ValueCodecs {
  private ValueCodecs() {}

  /**
   * The codec for {@code setting} ({@code null} means {@code auto}).
   *
   * @throws IllegalArgumentException for a name that is none of the four (the config reader refuses
   *     those already)
   */
  public static Codec forSetting(
      String setting, String cacheName, TypedCodec typed, SerializationCodec java) {
    if (setting == null || setting.equals("auto")) {
      return typed;
    }
    return switch (setting) {
      case "java" ->
          new Restricted(typed, cacheName, setting, Object.class) {
            @Override
            public Encoded encode(Object value) {
              return java.encode(value);
            }
          };
      case "string" -> new Restricted(typed, cacheName, setting, String.class);
      case "bytes" -> new Restricted(typed, cacheName, setting, byte[].class);
      default ->
          throw new IllegalArgumentException(
              "cache '"
                  + cacheName
                  + "': unknown codec '"
                  + setting
                  + "' (auto, java, string or bytes)");
    };
  }

  /** Writes only values of one type; reads every format. */
  private static class Restricted implements Codec {
    private final TypedCodec typed;
    private final String cacheName;
    private final String setting;
    private final Class<?> type;

    Restricted(TypedCodec typed, String cacheName, String setting, Class<?> type) {
      this.typed = typed;
      this.cacheName = cacheName;
      this.setting = setting;
      this.type = type;
    }

    @Override
    public Encoded encode(Object value) {
      if (!type.isInstance(value)) {
        throw new ClassCastException(
            "cache '"
                + cacheName
                + "' has codec '"
                + setting
                + "', which stores "
                + type.getSimpleName()
                + " values only, not "
                + value.getClass().getName());
      }
      return typed.encode(value);
    }

    @Override
    public Object decode(byte format, ByteBuffer payload) {
      return typed.decode(format, payload);
    }
  }
}
