package dev.mooncake.jcache.internal.integrity;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C of a range of a buffer: the integrity check over a stored object's header and payload
 * ({@code java.util.zip.CRC32C}, an intrinsic: about 19 µs per MiB here). It catches a read that
 * mixes two objects' bytes wherever the seam falls, which the ends of an object alone cannot.
 */
public final class Checksum {
  /**
   * The chunk {@link #ofWhileCopying} sums while it is in L1. Measured on 1 MiB (ChecksumFloor
   * benchmark): 2-4 KiB add the least over the copy alone; 16 KiB and more lose the overlap.
   */
  static final int CHUNK = 4096;

  private Checksum() {}

  /** CRC32C of {@code buffer[from, to)}; the buffer's position and limit are left as they are. */
  public static int of(ByteBuffer buffer, int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(buffer.slice(from, to - from));
    return (int) crc.getValue();
  }

  /**
   * CRC32C of {@code buffer[from, to)}, copying {@code buffer[copyFrom, to)} into {@code target} on
   * the way. Why one pass: a read copies its payload into the heap anyway, and summing each chunk
   * right after it is copied, while it is in L1, hides part of the CRC behind the copy (the check
   * then adds about 12 µs per MiB instead of 19; docs/performance.md, "Integrity checks").
   *
   * @param target at least {@code to - copyFrom} long; filled from index 0
   */
  public static int ofWhileCopying(
      ByteBuffer buffer, int from, int copyFrom, int to, byte[] target) {
    CRC32C crc = new CRC32C();
    crc.update(buffer.slice(from, copyFrom - from));
    for (int at = copyFrom; at < to; at += CHUNK) {
      int length = Math.min(CHUNK, to - at);
      int into = at - copyFrom;
      buffer.get(at, target, into, length);
      crc.update(target, into, length);
    }
    return (int) crc.getValue();
  }
}
