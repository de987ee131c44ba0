package dev.mooncake.jcache.reliability;

import java.nio.ByteBuffer;

/**
 * Value headers built from the documented layout (docs/architecture.md, ValueHeader's javadoc),
 * independently of the provider's code, for raw objects that should look like ours.
 */
final class Headers {
  static final int SIZE = 16;
  static final byte JAVA_SERIALIZATION = 20;

  private Headers() {}

  /** A stored object in our format: header then payload, eternal. */
  static byte[] object(byte format, byte[] payload) {
    ByteBuffer out = ByteBuffer.allocate(SIZE + payload.length);
    out.put((byte) 0x4D).put((byte) 1).put(format).put((byte) 0)
        .putLong(Long.MAX_VALUE).putInt(payload.length).put(payload);
    return out.array();
  }
}
