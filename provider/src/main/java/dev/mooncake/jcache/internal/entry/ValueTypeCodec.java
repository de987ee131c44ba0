package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.codec.Codec;
import java.nio.ByteBuffer;
import javax.cache.CacheException;

/**
 * Decodes only values of the cache's value type. A shared store can hold, under a cache's key,
 * another cache's or program's object that decodes fine but as another type (a String where a Long
 * is expected): returned, it would fail far from here with a ClassCastException, or worse pass as a
 * valid value. Keys and encoding go through unchanged.
 */
final class ValueTypeCodec implements Codec {
  private final Codec codec;
  private final Class<?> valueType;
  private final String cacheName;

  private ValueTypeCodec(Codec codec, Class<?> valueType, String cacheName) {
    this.codec = codec;
    this.valueType = valueType;
    this.cacheName = cacheName;
  }

  static Codec of(Codec codec, Class<?> valueType, String cacheName) {
    return valueType == Object.class ? codec : new ValueTypeCodec(codec, valueType, cacheName);
  }

  @Override
  public Encoded encode(Object value) {
    return codec.encode(value);
  }

  @Override
  public Object decode(byte format, ByteBuffer payload) {
    Object value = codec.decode(format, payload);
    if (!valueType.isInstance(value)) {
      throw wrongType(null, cacheName, value.getClass());
    }
    return value;
  }

  static CacheException wrongType(String key, String cacheName, Class<?> found) {
    return new CacheException(
        "stored object "
            + (key == null ? "" : "'" + key + "' ")
            + "holds a "
            + found.getTypeName()
            + ", not a value of cache '"
            + cacheName
            + "' (written by another cache or program under this cache's key)");
  }
}
