package dev.mooncake.jcache.internal.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.codec.DeserializationFilter;
import dev.mooncake.jcache.internal.codec.SerializationCodec;
import dev.mooncake.jcache.internal.codec.TypedCodec;
import dev.mooncake.jcache.internal.integrity.StoreKeyHash;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.zip.CRC32C;
import javax.cache.CacheException;
import org.junit.jupiter.api.Test;

/**
 * The 24 bytes in front of every stored value and the 4 after it (layout 4): written, read back,
 * and every defect named, with owner hash and checksum computed here from the documented layout
 * (not with the provider's helpers).
 */
class ValueHeaderTest {
  private static final String KEY = "mcj/dA/Yw/AGsx";
  private static final long OWNER = StoreKeyHash.of(KEY);

  private static ByteBuffer headed(int at, byte format, long expireAt, byte[] payload, String key) {
    ByteBuffer buffer = ByteBuffer.allocate(at + ValueHeader.OVERHEAD + payload.length);
    buffer.put(at + ValueHeader.SIZE, payload);
    ValueHeader.write(buffer, at, format, expireAt, payload.length, StoreKeyHash.of(key));
    return buffer;
  }

  private static ByteBuffer headed(int at, byte format, long expireAt, int payload) {
    return headed(at, format, expireAt, new byte[payload], KEY);
  }

  @Test
  void theLayoutIsMagicVersionFormatExpiryLengthOwnerPayloadAndChecksum() throws Exception {
    byte[] payload = {9, 8, 7};
    ByteBuffer buffer = headed(0, (byte) 7, 0x0102030405060708L, payload, KEY);
    assertEquals(0x4D, buffer.get(0));
    assertEquals(4, buffer.get(1));
    assertEquals(7, buffer.get(2));
    assertEquals(0, buffer.get(3));
    assertEquals(0x0102030405060708L, buffer.getLong(4)); // big-endian
    assertEquals(3, buffer.getInt(12));
    byte[] sha = MessageDigest.getInstance("SHA-256").digest(KEY.getBytes(StandardCharsets.UTF_8));
    assertEquals(ByteBuffer.wrap(sha).getLong(), buffer.getLong(16), "owner: SHA-256's first 8");
    assertEquals(9, buffer.get(24));
    CRC32C crc = new CRC32C();
    crc.update(buffer.array(), 0, 24 + 3);
    assertEquals((int) crc.getValue(), buffer.getInt(24 + 3), "CRC32C of header and payload");
    assertEquals(0, buffer.position(), "writing moved the buffer");
    assertNull(ValueHeader.defect(buffer, 0, 24 + 3 + 4, OWNER));
  }

  @Test
  void anotherKeysWholeValueIsRefusedByItsOwner() {
    ByteBuffer other =
        headed(0, (byte) 1, Long.MAX_VALUE, new byte[] {1, 2, 3, 4}, "mcj/dA/Yw/AGsy");
    long length = ValueHeader.OVERHEAD + 4;
    assertEquals(ValueHeader.Defect.OTHER_KEY, ValueHeader.defect(other, 0, length, OWNER));
    assertMessage(
        () -> ValueHeader.check(other, 0, length, KEY, OWNER),
        "'" + KEY + "' belongs to another key, cache or tenant");
  }

  @Test
  void anotherTenantsValueUnderTheSameCacheAndKeyNamesIsRefused() {
    TypedCodec codec =
        new TypedCodec(
            new SerializationCodec(
                new DeserializationFilter(List.of()), getClass().getClassLoader()));
    KeyNamespace alpha = new KeyNamespace("alpha", "c", codec);
    KeyNamespace beta = new KeyNamespace("beta", "c", codec);
    String alphaKey = alpha.storeKey("k");
    String betaKey = beta.storeKey("k");
    ByteBuffer betas = headed(0, (byte) 1, Long.MAX_VALUE, new byte[] {5}, betaKey);
    assertEquals(
        ValueHeader.Defect.OTHER_KEY,
        ValueHeader.defect(betas, 0, ValueHeader.OVERHEAD + 1, StoreKeyHash.of(alphaKey)));
  }

  @Test
  void aMixOfTwoObjectsFailsTheChecksumWhereverTheSeamFalls() {
    byte[] a = new byte[64];
    byte[] b = new byte[64];
    java.util.Arrays.fill(a, (byte) 'a');
    java.util.Arrays.fill(b, (byte) 'b');
    ByteBuffer first = headed(0, (byte) 1, 0, a, KEY);
    ByteBuffer second = headed(0, (byte) 1, 0, b, KEY); // same key, length, header: a replace
    int length = ValueHeader.OVERHEAD + 64;
    int mixes = 0;
    for (int seam = 1; seam < length; seam++) {
      ByteBuffer mixed = ByteBuffer.allocate(length);
      mixed.put(first.array(), 0, seam).put(second.array(), seam, length - seam);
      ValueHeader.Defect defect = ValueHeader.defect(mixed, 0, length, OWNER);
      if (java.util.Arrays.equals(mixed.array(), first.array())
          || java.util.Arrays.equals(mixed.array(), second.array())) {
        assertNull(defect, "seam at " + seam + ": the bytes are one whole object"); // in the header
      } else {
        mixes++;
        assertEquals(ValueHeader.Defect.CHECKSUM, defect, "seam at " + seam);
      }
    }
    assertEquals(
        63 + ValueHeader.TRAILER, mixes, "every seam inside the payload or checksum mixes");
  }

  @Test
  void aChangedByteAnywhereIsNamedAsAChecksumFailure() {
    ByteBuffer clean = headed(0, (byte) 2, 1_000L, new byte[] {1, 2, 3, 4, 5}, KEY);
    int length = ValueHeader.OVERHEAD + 5;
    for (int i = 2; i < length; i++) {
      if (i >= 12 && i < 16) {
        continue; // the length: named as such below
      }
      ByteBuffer changed = ByteBuffer.wrap(clean.array().clone());
      changed.put(i, (byte) (changed.get(i) ^ 0x10));
      assertEquals(
          ValueHeader.Defect.CHECKSUM, ValueHeader.defect(changed, 0, length, OWNER), "byte " + i);
    }
    ByteBuffer changed = ByteBuffer.wrap(clean.array().clone());
    changed.put(11, (byte) (changed.get(11) ^ 0x01)); // expiry 1000 -> 1001: still plausible
    assertMessage(() -> ValueHeader.check(changed, 0, length, KEY, OWNER), "fails its checksum");
  }

  @Test
  void olderLayoutsAreRefusedByName() {
    for (byte layout = 1; layout <= 3; layout++) {
      ByteBuffer buffer = headed(0, (byte) 1, 0, 0);
      buffer.put(1, layout);
      assertEquals(
          ValueHeader.Defect.OLDER_LAYOUT,
          ValueHeader.defect(buffer, 0, ValueHeader.OVERHEAD, OWNER));
      assertMessage(
          () -> ValueHeader.check(buffer, 0, ValueHeader.OVERHEAD, KEY, OWNER),
          "has an older header layout, written by an older version of this provider (layout "
              + layout
              + "; this one reads layout 4 only");
    }
  }

  @Test
  void anotherLayoutVersionIsNamed() {
    ByteBuffer buffer = headed(0, (byte) 1, 0, 0);
    buffer.put(1, (byte) 9);
    assertMessage(
        () -> ValueHeader.check(buffer, 0, ValueHeader.OVERHEAD, KEY, OWNER),
        "header layout this provider does not know (layout 9; this one reads 4)");
  }

  @Test
  void aHeaderAtAnOffsetReadsBack() {
    ByteBuffer buffer = headed(5, (byte) 2, Long.MAX_VALUE, 4);
    ValueHeader.check(buffer, 5, ValueHeader.OVERHEAD + 4, KEY, OWNER);
    assertEquals(2, ValueHeader.format(buffer, 5));
    assertEquals(Long.MAX_VALUE, ValueHeader.expireAt(buffer, 5));
  }

  @Test
  void anObjectWithoutHeaderIsForeign() {
    ByteBuffer foreign = ByteBuffer.wrap("plain text, no header".getBytes());
    assertMessage(
        () -> ValueHeader.check(foreign, 0, foreign.capacity(), KEY, OWNER),
        "'" + KEY + "' was not written by this provider");
    ByteBuffer tooShort = headed(0, (byte) 1, 0, 0);
    assertMessage(
        () -> ValueHeader.check(tooShort, 0, ValueHeader.OVERHEAD - 1, KEY, OWNER),
        "not written by this provider");
  }

  @Test
  void aTruncatedValueIsNamedWithBothLengths() {
    ByteBuffer buffer = headed(0, (byte) 1, 0, 10);
    assertMessage(
        () -> ValueHeader.check(buffer, 0, ValueHeader.OVERHEAD + 4, KEY, OWNER),
        "(header: 10 payload bytes; the store returned 4)");
  }

  @Test
  void theCheckSummedWhileCopyingAgreesWithTheCheckInPlaceAcrossChunkBoundaries() {
    java.util.SplittableRandom random = new java.util.SplittableRandom(11);
    for (int size : new int[] {0, 1, 4071, 4072, 4073, 4096, 3 * 4096 + 17, 1 << 20}) {
      byte[] payload = new byte[size];
      random.nextBytes(payload);
      ByteBuffer heap = headed(3, (byte) 1, 77L, payload, KEY);
      ByteBuffer direct = ByteBuffer.allocateDirect(heap.capacity()).put(heap.array()).clear();
      long length = ValueHeader.OVERHEAD + size;
      ValueHeader.Checked whole = ValueHeader.copyChecked(direct, 3, length, OWNER);
      assertNull(whole.defect(), "size " + size);
      assertTrue(java.util.Arrays.equals(payload, whole.payload()), "size " + size);
      // a changed byte in the header, on each side of every chunk seam, and in the trailer
      int end = 3 + (int) length;
      for (int at = 5; at < end; at = at < 3 + 24 ? 3 + 24 : nextProbe(at, end)) {
        ByteBuffer changed = ByteBuffer.allocateDirect(direct.capacity());
        changed.put(direct.duplicate().clear()).clear();
        changed.put(at, (byte) (changed.get(at) ^ 0x40));
        if (at >= 3 + 12 && at < 3 + 16) {
          continue; // the length: a framing defect, named as such elsewhere
        }
        ValueHeader.Checked torn = ValueHeader.copyChecked(changed, 3, length, OWNER);
        assertEquals(ValueHeader.Defect.CHECKSUM, torn.defect(), "size " + size + ", byte " + at);
        assertNull(torn.payload(), "a payload with a defect is never handed on");
        assertEquals(torn.defect(), ValueHeader.defect(changed, 3, length, OWNER));
      }
      ValueHeader.Checked foreign = ValueHeader.copyChecked(direct, 3, length, OWNER + 1);
      assertEquals(ValueHeader.Defect.OTHER_KEY, foreign.defect());
      assertNull(foreign.payload());
    }
    ValueHeader.Checked unframed =
        ValueHeader.copyChecked(ByteBuffer.allocateDirect(40), 0, 40, OWNER);
    assertEquals(ValueHeader.Defect.NO_HEADER, unframed.defect());
  }

  /**
   * The next byte to change after {@code at}: both sides of each 4 KiB copy chunk, then the end.
   */
  private static int nextProbe(int at, int end) {
    int payloadStart = 3 + ValueHeader.SIZE;
    int offset = at - payloadStart;
    int next = (offset % 4096 == 4095) ? at + 1 : payloadStart + (offset / 4096 + 1) * 4096 - 1;
    return Math.min(Math.max(next, at + 1), at == end - 1 ? end : end - 1);
  }

  private static void assertMessage(org.junit.jupiter.api.function.Executable call, String part) {
    CacheException e = assertThrows(CacheException.class, call);
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }
}
