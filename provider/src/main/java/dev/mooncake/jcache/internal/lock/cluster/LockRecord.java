package dev.mooncake.jcache.internal.lock.cluster;

import dev.mooncake.jcache.internal.integrity.Checksum;
import dev.mooncake.jcache.internal.integrity.StoreKeyHash;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The value of a lock object: who wrote it and with which put. {@code instance} is random per
 * {@link ClusterKeyLocks} (so a lock of our own that outlived its put can be recognised), {@code
 * attempt} counts that instance's puts, so the token names exactly one put, whose send time starts
 * the lease. {@code holder} is for messages only (segment, process id).
 *
 * <p>Layout: magic {@code MCJL}, version byte, owner (8: {@code StoreKeyHash} of the lock key),
 * instance (8), attempt (8), holder length (2), holder UTF-8, CRC32C of all before it (4), then
 * zero padding to a size whose remainder modulo {@link #TAGS} is the instance's tag. Owner and
 * checksum make a read of one lock key that Mooncake answers with another lock object's bytes
 * (memory reused mid-transfer; an instance's records all have one size, so they reuse each other's
 * memory) decode as "not a lock record of this key" instead of as another key's token. So every
 * record of one instance has one size, and a waiter learns from the object's size alone (the
 * master's metadata, no transfer from the holder's segment) that a lock object is certainly not one
 * of its own: sizes of two instances differ unless their tags match (1 in 64).
 */
record LockRecord(long instance, long attempt, String holder) {
  private static final int MAGIC = 0x4d434a4c; // "MCJL"
  private static final byte VERSION = 3;
  private static final int FIXED = 4 + 1 + 8 + 8 + 8 + 2 + 4;
  static final int MAX_HOLDER_BYTES = 256;

  /** How many size classes tell instances apart. */
  static final int TAGS = 64;

  /** A buffer this large holds any record. */
  static final int MAX_SIZE = FIXED + MAX_HOLDER_BYTES + TAGS - 1;

  /** Whether both records come from the same put. */
  boolean sameToken(LockRecord other) {
    return instance == other.instance && attempt == other.attempt;
  }

  /** The size of every record of this instance with this holder name. */
  int size() {
    return paddedSize(FIXED + holderBytes().length, instance);
  }

  /** The record as stored under {@code lockKey}. */
  ByteBuffer encode(String lockKey) {
    byte[] name = holderBytes();
    ByteBuffer out = ByteBuffer.allocate(paddedSize(FIXED + name.length, instance));
    out.putInt(MAGIC)
        .put(VERSION)
        .putLong(StoreKeyHash.of(lockKey))
        .putLong(instance)
        .putLong(attempt)
        .putShort((short) name.length);
    out.put(name);
    out.putInt(Checksum.of(out, 0, out.position()));
    return out.position(0); // the padding is the buffer's zeros
  }

  private byte[] holderBytes() {
    byte[] name = holder.getBytes(StandardCharsets.UTF_8);
    if (name.length <= MAX_HOLDER_BYTES) {
      return name;
    }
    byte[] cut = new byte[MAX_HOLDER_BYTES];
    System.arraycopy(name, 0, cut, 0, cut.length);
    return cut;
  }

  private static int tag(long instance) {
    return (int) Math.floorMod(instance ^ (instance >>> 32), (long) TAGS);
  }

  private static int paddedSize(int unpadded, long instance) {
    return unpadded + Math.floorMod(tag(instance) - unpadded, TAGS);
  }

  /**
   * The record in {@code bytes[0, length)}, or {@code null} when it is not a whole lock record of
   * {@code lockKey} (another object, another key's record, a torn mix).
   */
  static LockRecord decode(ByteBuffer bytes, long length, String lockKey) {
    if (length < FIXED || length > MAX_SIZE) {
      return null;
    }
    ByteBuffer in = bytes.duplicate().position(0).limit((int) length);
    if (in.getInt() != MAGIC || in.get() != VERSION || in.getLong() != StoreKeyHash.of(lockKey)) {
      return null;
    }
    long instance = in.getLong();
    long attempt = in.getLong();
    int nameLength = Short.toUnsignedInt(in.getShort());
    if (nameLength > in.remaining() || paddedSize(FIXED + nameLength, instance) != length) {
      return null; // torn, or not padded as its instance's records are
    }
    byte[] name = new byte[nameLength];
    in.get(name);
    int checked = in.position();
    if (in.remaining() < Integer.BYTES || in.getInt() != Checksum.of(in, 0, checked)) {
      return null;
    }
    while (in.hasRemaining()) {
      if (in.get() != 0) {
        return null;
      }
    }
    return new LockRecord(instance, attempt, new String(name, StandardCharsets.UTF_8));
  }
}
