package dev.mooncake.jcache.lock.cluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The value of a lock object: who wrote it and with which put. {@code instance} is random per
 * {@link ClusterKeyLocks} (so a lock of our own that outlived its put can be recognised), {@code
 * attempt} counts that instance's puts, so the token names exactly one put, whose send time starts
 * the lease. {@code holder} is for messages only (segment, process id).
 *
 * <p>Layout: magic {@code MCJL}, version byte, instance (8), attempt (8), holder length (2), holder
 * UTF-8.
 */
record LockRecord(long instance, long attempt, String holder) {
  private static final int MAGIC = 0x4d434a4c; // "MCJL"
  private static final byte VERSION = 1;
  private static final int FIXED = 4 + 1 + 8 + 8 + 2;
  static final int MAX_HOLDER_BYTES = 256;

  /** A buffer this large holds any record. */
  static final int MAX_SIZE = FIXED + MAX_HOLDER_BYTES;

  /** Whether both records come from the same put. */
  boolean sameToken(LockRecord other) {
    return instance == other.instance && attempt == other.attempt;
  }

  ByteBuffer encode() {
    byte[] name = holder.getBytes(StandardCharsets.UTF_8);
    int length = Math.min(name.length, MAX_HOLDER_BYTES);
    ByteBuffer out = ByteBuffer.allocate(FIXED + length);
    out.putInt(MAGIC).put(VERSION).putLong(instance).putLong(attempt).putShort((short) length);
    out.put(name, 0, length);
    return out.flip();
  }

  /** The record in {@code bytes[0, length)}, or {@code null} when it is not a lock record. */
  static LockRecord decode(ByteBuffer bytes, long length) {
    if (length < FIXED || length > MAX_SIZE) {
      return null;
    }
    ByteBuffer in = bytes.duplicate().position(0).limit((int) length);
    if (in.getInt() != MAGIC || in.get() != VERSION) {
      return null;
    }
    long instance = in.getLong();
    long attempt = in.getLong();
    int nameLength = Short.toUnsignedInt(in.getShort());
    if (nameLength != in.remaining()) {
      return null;
    }
    byte[] name = new byte[nameLength];
    in.get(name);
    return new LockRecord(instance, attempt, new String(name, StandardCharsets.UTF_8));
  }
}
