package dev.mooncake.jcache.internal.codec;

import java.nio.ByteBuffer;

/**
 * Turns objects into bytes and back. Every stored key and value goes through one: the store only
 * ever sees bytes, which is what makes the provider store-by-value.
 */
public interface Codec {

  /** Encodes a non-null object; the result may be the object itself for {@code byte[]}. */
  Encoded encode(Object value);

  /**
   * Decodes what {@link #encode} produced. {@code payload} holds exactly the encoded bytes between
   * its position and limit.
   */
  Object decode(byte format, ByteBuffer payload);

  /**
   * One encoded object.
   *
   * @param format which encoding was used (stored in the value header, or as the key's first byte)
   * @param bytes the encoded bytes; callers must not modify them
   */
  record Encoded(byte format, byte[] bytes) {}
}
