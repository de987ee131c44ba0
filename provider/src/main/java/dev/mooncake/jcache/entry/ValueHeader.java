package dev.mooncake.jcache.entry;

import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;
import javax.cache.CacheException;

/**
 * The 24 bytes in front of every stored value, and the 8 after it. Mooncake cannot store empty
 * objects and keeps no per-object metadata we can use, so what JCache needs travels with the value:
 *
 * <pre>
 *   0  magic 'M' (0x4D)      1  layout version (3)     2  payload format     3  check
 *   4  expiry time: epoch millis, Long.MAX_VALUE = eternal (8 bytes, big-endian)
 *   12 payload length (4 bytes)
 *   16 write id (8 bytes)                               24 payload …
 *   24 + payload length: the write id again (the trailer, 8 bytes)
 * </pre>
 *
 * <p>The check byte is a CRC-8 (polynomial 0x07) of bytes 0-2 and 4-15. Without it a corrupted
 * expiry time or format byte read as another expiry or another type (layout 1 had a flags byte of 0
 * there: of 144 single-bit and whole-byte corruptions, 79 went unnoticed). A CRC-8 catches every
 * corruption within one byte of what it covers. The write id is not covered: it checks itself
 * against the trailer (a changed byte at either end reads as a torn read, repeated, then refused),
 * and leaving it out keeps the CRC, computed byte by byte on every write and read, as short as in
 * layout 2. The payload is not covered.
 *
 * <p>The write id is random per write, at both ends of the object. A real Mooncake can tear a read
 * that races another client's forced remove of the object: the memory is reused while it is copied.
 * A copy that runs front to back and is overtaken by the reusing writer gets the old header and the
 * new trailer: the ids differ even where the lengths agree (layout 2 had no trailer and took such a
 * read, of a value of the same length, as a value). What it cannot see: docs/real-mooncake.md.
 */
public final class ValueHeader {
  public static final int SIZE = 24;

  /** The bytes after the payload: the write id again. */
  public static final int TRAILER = 8;

  /** Header and trailer: an object is this much larger than its payload. */
  public static final int OVERHEAD = SIZE + TRAILER;

  static final byte MAGIC = 0x4D;
  static final byte VERSION = 3;

  /** The layout before write ids (16-byte header, no trailer). */
  private static final byte UNCHECKED_VERSION = 2;

  private ValueHeader() {}

  /**
   * Writes a header at {@code buffer}'s absolute index {@code at} and the trailer after the {@code
   * payloadLength} bytes that follow it, with a fresh write id.
   */
  public static void write(
      ByteBuffer buffer, int at, byte format, long expireAt, int payloadLength) {
    long writeId = ThreadLocalRandom.current().nextLong();
    buffer.put(at, MAGIC);
    buffer.put(at + 1, VERSION);
    buffer.put(at + 2, format);
    buffer.putLong(at + 4, expireAt);
    buffer.putInt(at + 12, payloadLength);
    buffer.putLong(at + 16, writeId);
    buffer.put(at + 3, crc(buffer, at));
    buffer.putLong(at + SIZE + payloadLength, writeId);
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

  /** The header bytes the check byte covers: all but the write id. */
  private static final int CHECKED = 16;

  /** CRC-8 of the header at {@code at}, its check byte (index 3) and the write id left out. */
  private static byte crc(ByteBuffer buffer, int at) {
    int crc = 0;
    for (int i = 0; i < CHECKED; i++) {
      if (i != 3) {
        crc = CRC_TABLE[(crc ^ buffer.get(at + i)) & 0xFF];
      }
    }
    return (byte) crc;
  }

  /**
   * Whether {@code totalLength} bytes read at {@code at} are one whole value of this provider: as
   * long as its header says, and with the header's write id in the trailer. A real Mooncake can
   * tear a read that races another client's forced remove (the memory is reused while it is
   * copied): such a read fails this, and is read again. The check byte is left to {@link #check}.
   */
  public static boolean matches(ByteBuffer buffer, int at, long totalLength) {
    return totalLength >= OVERHEAD
        && buffer.get(at) == MAGIC
        && buffer.get(at + 1) == VERSION
        && buffer.getInt(at + 12) == totalLength - OVERHEAD
        && buffer.getLong(at + 16) == buffer.getLong(at + (int) totalLength - TRAILER);
  }

  /**
   * Checks the header at {@code at} against {@code totalLength} bytes read; names what is wrong.
   */
  public static void check(ByteBuffer buffer, int at, long totalLength, String key) {
    if (totalLength < SIZE || buffer.get(at) != MAGIC) {
      throw new CacheException(
          "stored object '" + key + "' was not written by this provider (no value header)");
    }
    if (buffer.get(at + 1) == UNCHECKED_VERSION) {
      throw new CacheException(
          "stored object '"
              + key
              + "' has header layout 2, written by an older version of this provider; this one"
              + " reads layout "
              + VERSION
              + " only (its write ids detect torn reads): remove the key or clear the cache");
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
    if (payloadLength != totalLength - OVERHEAD) {
      throw new CacheException(
          "stored object '"
              + key
              + "' is truncated: header says "
              + payloadLength
              + " payload bytes, the store returned "
              + (totalLength - OVERHEAD));
    }
    long writeId = buffer.getLong(at + 16);
    long trailer = buffer.getLong(at + (int) totalLength - TRAILER);
    if (writeId != trailer) {
      throw new CacheException(
          "stored object '"
              + key
              + "' is torn: its header names write "
              + Long.toHexString(writeId)
              + ", its trailer write "
              + Long.toHexString(trailer)
              + " (read while another client replaced it, or corrupted)");
    }
  }

  public static byte format(ByteBuffer buffer, int at) {
    return buffer.get(at + 2);
  }

  public static long expireAt(ByteBuffer buffer, int at) {
    return buffer.getLong(at + 4);
  }
}
