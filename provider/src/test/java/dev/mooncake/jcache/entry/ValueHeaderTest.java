package dev.mooncake.jcache.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import javax.cache.CacheException;
import org.junit.jupiter.api.Test;

/**
 * The 24 bytes in front of every stored value and the 8 after it: written, read back, and every
 * defect named.
 */
class ValueHeaderTest {

  private static ByteBuffer headed(int at, byte format, long expireAt, int payload) {
    ByteBuffer buffer = ByteBuffer.allocate(at + ValueHeader.OVERHEAD + payload);
    ValueHeader.write(buffer, at, format, expireAt, payload);
    return buffer;
  }

  @Test
  void theLayoutIsMagicVersionFormatCheckExpiryLengthWriteIdAndTrailer() {
    ByteBuffer buffer = headed(0, (byte) 7, 0x0102030405060708L, 3);
    assertEquals(0x4D, buffer.get(0));
    assertEquals(3, buffer.get(1));
    assertEquals(7, buffer.get(2));
    assertEquals(crc8(buffer), buffer.get(3));
    assertEquals(0x0102030405060708L, buffer.getLong(4)); // big-endian
    assertEquals(3, buffer.getInt(12));
    assertEquals(buffer.getLong(16), buffer.getLong(24 + 3), "the trailer repeats the write id");
    assertEquals(0, buffer.position(), "writing moved the buffer");
    assertTrue(ValueHeader.matches(buffer, 0, 24 + 3 + 8));
  }

  @Test
  void everyWriteHasItsOwnId() {
    java.util.Set<Long> ids = new java.util.HashSet<>();
    for (int i = 0; i < 1000; i++) {
      ids.add(headed(0, (byte) 7, 0, 3).getLong(16));
    }
    assertEquals(1000, ids.size(), "two writes shared a write id");
  }

  @Test
  void aTrailerOfAnotherWriteIsATornRead() {
    ByteBuffer old = headed(0, (byte) 1, 0, 4);
    ByteBuffer successor = headed(0, (byte) 1, 0, 4);
    old.putLong(ValueHeader.SIZE + 4, successor.getLong(ValueHeader.SIZE + 4));
    long length = ValueHeader.OVERHEAD + 4;
    assertFalse(ValueHeader.matches(old, 0, length), "a torn read of the same length matched");
    assertMessage(() -> ValueHeader.check(old, 0, length, "k"), "'k' is torn");
  }

  @Test
  void theLayoutBeforeWriteIdsIsRefusedByName() {
    ByteBuffer buffer = headed(0, (byte) 1, 0, 0);
    buffer.put(1, (byte) 2);
    assertFalse(ValueHeader.matches(buffer, 0, ValueHeader.OVERHEAD));
    assertMessage(
        () -> ValueHeader.check(buffer, 0, ValueHeader.OVERHEAD, "k"),
        "'k' has header layout 2, written by an older version of this provider");
  }

  @Test
  void aHeaderAtAnOffsetReadsBack() {
    ByteBuffer buffer = headed(5, (byte) 2, Long.MAX_VALUE, 4);
    ValueHeader.check(buffer, 5, ValueHeader.OVERHEAD + 4, "k");
    assertEquals(2, ValueHeader.format(buffer, 5));
    assertEquals(Long.MAX_VALUE, ValueHeader.expireAt(buffer, 5));
  }

  @Test
  void anObjectWithoutHeaderIsForeign() {
    ByteBuffer foreign = ByteBuffer.wrap("plain text, no header".getBytes());
    assertMessage(
        () -> ValueHeader.check(foreign, 0, foreign.capacity(), "k"),
        "'k' was not written by this provider");
    ByteBuffer tooShort = headed(0, (byte) 1, 0, 0);
    assertMessage(
        () -> ValueHeader.check(tooShort, 0, ValueHeader.SIZE - 1, "k"),
        "not written by this provider");
  }

  /** CRC-8 (polynomial 0x07) of bytes 0-2 and 4-15, bit by bit: the documented check byte. */
  private static byte crc8(ByteBuffer header) {
    int crc = 0;
    for (int i = 0; i < 16; i++) {
      if (i == 3) {
        continue;
      }
      crc ^= header.get(i) & 0xFF;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x80) != 0 ? ((crc << 1) ^ 0x07) & 0xFF : (crc << 1) & 0xFF;
      }
    }
    return (byte) crc;
  }

  @Test
  void aChangedExpiryIsACorruptHeader() {
    ByteBuffer buffer = headed(0, (byte) 2, 1_000L, 0);
    buffer.put(11, (byte) (buffer.get(11) ^ 0x01)); // expiry 1000 -> 1001: still plausible
    assertMessage(
        () -> ValueHeader.check(buffer, 0, ValueHeader.OVERHEAD, "k"),
        "'k' has a corrupt header (check byte mismatch)");
  }

  @Test
  void anotherLayoutVersionIsNamed() {
    ByteBuffer buffer = headed(0, (byte) 1, 0, 0);
    buffer.put(1, (byte) 9);
    assertMessage(
        () -> ValueHeader.check(buffer, 0, ValueHeader.OVERHEAD, "k"),
        "header layout 9; this provider reads layout 3");
  }

  @Test
  void aTruncatedValueIsNamedWithBothLengths() {
    ByteBuffer buffer = headed(0, (byte) 1, 0, 10);
    assertMessage(
        () -> ValueHeader.check(buffer, 0, ValueHeader.OVERHEAD + 4, "k"),
        "truncated: header says 10 payload bytes, the store returned 4");
  }

  private static void assertMessage(org.junit.jupiter.api.function.Executable call, String part) {
    CacheException e = assertThrows(CacheException.class, call);
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }
}
