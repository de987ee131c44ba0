package dev.mooncake.jcache.reliability;

import java.nio.ByteBuffer;

/**
 * Value headers built from the documented layout (docs/architecture.md, ValueHeader's javadoc),
 * independently of the provider's code, for raw objects that should look like ours.
 */
final class Headers {
  static final int SIZE = 24;
  static final int TRAILER = 8;
  static final byte JAVA_SERIALIZATION = 20;
  static final byte LAYOUT = 3;

  private Headers() {}

  /** A stored object in our format: header, payload, trailer (the write id again), eternal. */
  static byte[] object(byte format, byte[] payload) {
    long writeId = 0x5EED_0BAD_CAFE_F00DL;
    ByteBuffer out = ByteBuffer.allocate(SIZE + payload.length + TRAILER);
    out.put((byte) 0x4D)
        .put(LAYOUT)
        .put(format)
        .put((byte) 0)
        .putLong(Long.MAX_VALUE)
        .putInt(payload.length)
        .putLong(writeId)
        .put(payload)
        .putLong(writeId);
    byte[] bytes = out.array();
    bytes[3] = check(bytes);
    return bytes;
  }

  /** The check byte: CRC-8, polynomial 0x07, of header bytes 0-2 and 4-15 (not the write id). */
  static byte check(byte[] header) {
    int crc = 0;
    for (int i = 0; i < 16; i++) {
      if (i == 3) {
        continue;
      }
      crc ^= header[i] & 0xFF;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x80) != 0 ? ((crc << 1) ^ 0x07) & 0xFF : (crc << 1) & 0xFF;
      }
    }
    return (byte) crc;
  }
}
