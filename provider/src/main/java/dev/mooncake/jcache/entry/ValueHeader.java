package dev.mooncake.jcache.entry;

import java.nio.ByteBuffer;
import javax.cache.CacheException;

/**
 * The 16 bytes in front of every stored value. Mooncake cannot store empty objects and keeps no
 * per-object metadata we can use, so what JCache needs travels with the value:
 *
 * <pre>
 *   0  magic 'M' (0x4D)      1  layout version (2)     2  payload format     3  check
 *   4  expiry time: epoch millis, Long.MAX_VALUE = eternal (8 bytes, big-endian)
 *   12 payload length (4 bytes)                         16 payload …
 * </pre>
 *
 * <p>The check byte is a CRC-8 (polynomial 0x07) of the other 15 header bytes. Without it a
 * corrupted expiry time or format byte read as another expiry or another type (layout 1 had a flags
 * byte of 0 there: of 144 single-bit and whole-byte corruptions, 79 went unnoticed). A CRC-8
 * catches every corruption within one byte of the header. The payload is not covered.
 */
public final class ValueHeader {
  public static final int SIZE = 16;
  static final byte MAGIC = 0x4D;
  static final byte VERSION = 2;

  private ValueHeader() {}

  /** Writes a header at {@code buffer}'s absolute index {@code at}. */
  public static void write(
      ByteBuffer buffer, int at, byte format, long expireAt, int payloadLength) {
    buffer.put(at, MAGIC);
    buffer.put(at + 1, VERSION);
    buffer.put(at + 2, format);
    buffer.putLong(at + 4, expireAt);
    buffer.putInt(at + 12, payloadLength);
    buffer.put(at + 3, crc(buffer, at));
  }

  private static final byte[] CRC_TABLE = new byte[256];

  static {
    for (int i = 0; i < 256; i++) {
      int crc = i;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x80) != 0 ? (crc << 1) ^ 0x07 : crc << 1;
      }
      CRC_TABLE[i] = (byte) crc;
    }
  }

  /** CRC-8 of the header at {@code at}, its check byte (index 3) left out. */
  private static byte crc(ByteBuffer buffer, int at) {
    int crc = 0;
    for (int i = 0; i < SIZE; i++) {
      if (i != 3) {
        crc = CRC_TABLE[(crc ^ buffer.get(at + i)) & 0xFF];
      }
    }
    return (byte) crc;
  }

  /**
   * Whether {@code totalLength} bytes read at {@code at} are one whole value of this provider, as
   * long as its header says. A real Mooncake can tear a read that races another client's forced
   * remove (the memory is reused while it is copied): such a read usually fails this, and is read
   * again.
   */
  public static boolean matches(ByteBuffer buffer, int at, long totalLength) {
    return totalLength >= SIZE
        && buffer.get(at) == MAGIC
        && buffer.get(at + 1) == VERSION
        && buffer.getInt(at + 12) == totalLength - SIZE;
  }

  /**
   * Checks the header at {@code at} against {@code totalLength} bytes read; names what is wrong.
   */
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
    if (buffer.get(at + 3) != crc(buffer, at)) {
      throw new CacheException(
          "stored object '" + key + "' has a corrupt header (check byte mismatch)");
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
