package dev.mooncake.jcache.internal.lock.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Lock records name the lock key they were written under and carry a checksum: a read of one lock
 * key that Mooncake answers with another lock object's bytes (memory reused mid-transfer) is not
 * taken for a record of that key.
 */
class LockRecordTest {
  private static final String LOCK_A = LockNames.lockKey("mcj/dA/Yw/AGsx");
  private static final String LOCK_B = LockNames.lockKey("mcj/dA/Yw/AGsy");

  @Test
  void aRecordReadsBackUnderItsOwnKeyOnly() {
    LockRecord record = new LockRecord(77, 3, "127.0.0.1:1234/pid 9");
    ByteBuffer bytes = record.encode(LOCK_A);
    assertEquals(record.size(), bytes.remaining(), "every record of an instance has one size");
    assertEquals(record, LockRecord.decode(bytes, bytes.remaining(), LOCK_A));
    assertNull(
        LockRecord.decode(bytes, bytes.remaining(), LOCK_B),
        "the same instance's record of another key was taken for this key's");
  }

  @Test
  void anyChangedByteOrAMixOfTwoRecordsIsNoRecord() {
    ByteBuffer first = new LockRecord(77, 3, "holder").encode(LOCK_A);
    ByteBuffer second = new LockRecord(77, 4, "holder").encode(LOCK_A);
    int length = first.remaining();
    for (int i = 0; i < length; i++) {
      byte[] changed = first.array().clone();
      changed[i] ^= 0x04;
      assertNull(LockRecord.decode(ByteBuffer.wrap(changed), length, LOCK_A), "byte " + i);
    }
    for (int seam = 1; seam < length; seam++) {
      byte[] mixed = first.array().clone();
      System.arraycopy(second.array(), seam, mixed, seam, length - seam);
      LockRecord read = LockRecord.decode(ByteBuffer.wrap(mixed), length, LOCK_A);
      if (read != null) { // only where the seam leaves one whole record
        assertTrue(
            java.util.Arrays.equals(mixed, first.array())
                || java.util.Arrays.equals(mixed, second.array()),
            "seam at " + seam + " decoded a mix as attempt " + read.attempt());
      }
    }
  }
}
