package dev.mooncake.jcache.entry;

import java.nio.ByteBuffer;
import javax.cache.CacheException;

/**
 * The 16 bytes in front of every stored value. Mooncake cannot store empty objects and keeps no
 * per-object metadata we can use, so what JCache needs travels with the value:
 *
 * <pre>
 *   0  magic 'M' (0x4D)      1  layout version (1)     2  payload format     3  flags (0)
 *   4  expiry time: epoch millis, Long.MAX_VALUE = eternal (8 bytes, big-endian)
 *   12 payload length (4 bytes)                         16 payload …
 * </pre>
 */
public final class ValueHeader {
  public static final int SIZE = 16;
  static final byte MAGIC = 0x4D;
  static final byte VERSION = 1;

  private ValueHeader() {}

  /** Writes a header at {@code buffer}'s absolute index {@code at}. */
  public static void write(
      ByteBuffer buffer, int at, byte format, long expireAt, int payloadLength) {
    buffer.put(at, MAGIC);
    buffer.put(at + 1, VERSION);
    buffer.put(at + 2, format);
    buffer.put(at + 3, (byte) 0);
    buffer.putLong(at + 4, expireAt);
    buffer.putInt(at + 12, payloadLength);
  }

  /**
   * Checks the header at {@code at} against {@code totalLength} bytes read; names what is wrong.
   */
  /**
   * Whether the object read is as long as its header says. A real Mooncake can tear a read that
   * races another client's forced remove (the memory is reused while it is copied): such a read
   * usually fails this, and is read again.
   */
  public static boolean whole(ByteBuffer buffer, int at, long totalLength) {
    return totalLength >= SIZE
        && buffer.get(at) == MAGIC
        && buffer.getInt(at + 12) == totalLength - SIZE;
  }

  public static void check(ByteBuffer buffer, int at, long totalLength, String key) {
    if (totalLength < SIZE || buffer.get(at) != MAGIC) {
      throw new CacheException(
          "stored object '" + key + "' was not written by this provider (no value header)");
    }
    if (buffer.get(at + 1) != VERSION) {
      throw new CacheException(
          "stored object '"
              + key
              + "' has header layout "
              + buffer.get(at + 1)
              + "; this provider reads layout "
              + VERSION);
    }
    int payloadLength = buffer.getInt(at + 12);
    if (payloadLength != totalLength - SIZE) {
      throw new CacheException(
          "stored object '"
              + key
              + "' is truncated: header says "
              + payloadLength
              + " payload bytes, the store returned "
              + (totalLength - SIZE));
    }
  }

  public static byte format(ByteBuffer buffer, int at) {
    return buffer.get(at + 2);
  }

  public static long expireAt(ByteBuffer buffer, int at) {
    return buffer.getLong(at + 4);
  }
}
