package dev.mooncake.jcache.internal.codec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.cache.CacheException;

/**
 * The default codec: compact, allocation-light encodings for {@code String}, {@code byte[]} and the
 * boxed primitives, and filtered Java serialization for everything else. The format byte tells the
 * decoder which one was used, so a cache may hold values of mixed types.
 */
public final class TypedCodec implements Codec {
  /** The format of {@code byte[]} values: the zero-copy API stores values in this format. */
  public static final byte BYTES_FORMAT = Formats.BYTES;

  private final SerializationCodec serialization;

  public TypedCodec(SerializationCodec serialization) {
    this.serialization = serialization;
  }

  @Override
  public Encoded encode(Object value) {
    if (value instanceof String s) {
      return new Encoded(Formats.STRING, s.getBytes(StandardCharsets.UTF_8));
    } else if (value instanceof byte[] b) {
      return new Encoded(Formats.BYTES, b);
    } else if (value instanceof Long l) {
      return new Encoded(Formats.LONG, ByteBuffer.allocate(8).putLong(l).array());
    } else if (value instanceof Integer i) {
      return new Encoded(Formats.INTEGER, ByteBuffer.allocate(4).putInt(i).array());
    } else if (value instanceof Double d) {
      return new Encoded(Formats.DOUBLE, ByteBuffer.allocate(8).putDouble(d).array());
    } else if (value instanceof Float f) {
      return new Encoded(Formats.FLOAT, ByteBuffer.allocate(4).putFloat(f).array());
    } else if (value instanceof Short s) {
      return new Encoded(Formats.SHORT, ByteBuffer.allocate(2).putShort(s).array());
    } else if (value instanceof Byte b) {
      return new Encoded(Formats.BYTE, new byte[] {b});
    } else if (value instanceof Boolean b) {
      return new Encoded(Formats.BOOLEAN, new byte[] {(byte) (b ? 1 : 0)});
    } else if (value instanceof Character c) {
      return new Encoded(Formats.CHARACTER, ByteBuffer.allocate(2).putChar(c).array());
    }
    return serialization.encode(value);
  }

  @Override
  public Object decode(byte format, ByteBuffer payload) {
    ByteBuffer in = payload.duplicate();
    switch (format) {
      case Formats.STRING:
        if (in.hasArray()) { // one allocation, with the JDK's ASCII fast path
          return new String(
              in.array(), in.arrayOffset() + in.position(), in.remaining(), StandardCharsets.UTF_8);
        }
        return StandardCharsets.UTF_8.decode(in).toString();
      case Formats.BYTES:
        byte[] bytes = new byte[in.remaining()];
        in.get(bytes);
        return bytes;
      case Formats.LONG:
        return requireLength(in, 8).getLong();
      case Formats.INTEGER:
        return requireLength(in, 4).getInt();
      case Formats.DOUBLE:
        return requireLength(in, 8).getDouble();
      case Formats.FLOAT:
        return requireLength(in, 4).getFloat();
      case Formats.SHORT:
        return requireLength(in, 2).getShort();
      case Formats.BYTE:
        return requireLength(in, 1).get();
      case Formats.BOOLEAN:
        return requireLength(in, 1).get() != 0;
      case Formats.CHARACTER:
        return requireLength(in, 2).getChar();
      default:
        return serialization.decode(format, payload);
    }
  }

  private static ByteBuffer requireLength(ByteBuffer in, int length) {
    if (in.remaining() != length) {
      throw new CacheException(
          "corrupt stored value: expected " + length + " bytes, found " + in.remaining());
    }
    return in;
  }
}
