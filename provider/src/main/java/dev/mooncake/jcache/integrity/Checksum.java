package dev.mooncake.jcache.integrity;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C of a range of a buffer: the integrity check over a stored object's header and payload
 * ({@code java.util.zip.CRC32C}, an intrinsic: about 20 µs per MiB here). It catches a read that
 * mixes two objects' bytes wherever the seam falls, which the ends of an object alone cannot.
 */
public final class Checksum {
  private Checksum() {}

  /** CRC32C of {@code buffer[from, to)}; the buffer's position and limit are left as they are. */
  public static int of(ByteBuffer buffer, int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(buffer.slice(from, to - from));
    return (int) crc.getValue();
  }
}
