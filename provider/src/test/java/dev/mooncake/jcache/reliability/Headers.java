package dev.mooncake.jcache.reliability;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.zip.CRC32C;

/**
 * Value headers built from the documented layout 4 (docs/architecture.md, ValueHeader's javadoc),
 * independently of the provider's code, for raw objects that should look like ours: what anyone
 * with write access to the store could forge (neither the owner hash nor the checksum is secret).
 */
final class Headers {
  static final int SIZE = 24;
  static final int TRAILER = 4;
  static final byte JAVA_SERIALIZATION = 20;
  static final byte LAYOUT = 4;

  private Headers() {}

  /** A stored object in our format for {@code storeKey}: header, payload, checksum, eternal. */
  static byte[] object(byte format, byte[] payload, String storeKey) {
    ByteBuffer out = ByteBuffer.allocate(SIZE + payload.length + TRAILER);
    out.put((byte) 0x4D)
        .put(LAYOUT)
        .put(format)
        .put((byte) 0)
        .putLong(Long.MAX_VALUE)
        .putInt(payload.length)
        .putLong(owner(storeKey))
        .put(payload);
    out.putInt(checksum(out.array(), SIZE + payload.length));
    return out.array();
  }

  /** The owner field: the first 8 bytes of SHA-256 of the store key's UTF-8 bytes. */
  static long owner(String storeKey) {
    try {
      byte[] sha =
          MessageDigest.getInstance("SHA-256").digest(storeKey.getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.wrap(sha).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** The trailer: CRC32C of the first {@code length} bytes (header and payload). */
  static int checksum(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
  }
}
