package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Keys as Mooncake takes them, and which entries of a batch go to it. */
class MooncakeKeysTest {
  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
  private static final ByteBuffer READ_ONLY = ByteBuffer.allocate(4).asReadOnlyBuffer();

  private static ByteBuffer value() {
    return ByteBuffer.allocate(4);
  }

  @Test
  void aKeyMooncakeWouldRefuseEncodesToNull() {
    assertNull(MooncakeKeys.encode(null));
    assertNull(MooncakeKeys.encode(""));
    assertNull(MooncakeKeys.encode("a\0b"));
    assertArrayEquals("ké".getBytes(StandardCharsets.UTF_8), MooncakeKeys.encode("ké"));
  }

  @Test
  void aBatchOfValuesLeavesOutBadKeysAndValuesWithNothingToWrite() {
    ByteBuffer a = value();
    ByteBuffer d = value();
    String[] keys = {"a", "", "c", "d", null};
    ByteBuffer[] values = {a, value(), EMPTY, d, value()};
    MooncakeKeys.Batch batch = new MooncakeKeys.Batch(keys, values, false);
    assertArrayEquals(new int[] {0, 3}, batch.positions);
    assertEquals(2, batch.keys.length);
    assertArrayEquals("d".getBytes(StandardCharsets.UTF_8), batch.keys[1]);
    ByteBuffer[] selected = batch.select(values);
    assertSame(a, selected[0]);
    assertSame(d, selected[1]);
    assertEquals("batch_put of 2 keys from 'a'", batch.describe("batch_put", keys));
  }

  @Test
  void aBatchOfDestinationsLeavesOutReadOnlyOnesAndMissingOnes() {
    String[] keys = {"a", "b", "c"};
    ByteBuffer[] destinations = {READ_ONLY, null, EMPTY};
    MooncakeKeys.Batch batch = new MooncakeKeys.Batch(keys, destinations, true);
    assertArrayEquals(new int[] {2}, batch.positions); // an empty destination still asks
    assertEquals("batch_get of 1 keys from 'c'", batch.describe("batch_get", keys));
  }

  @Test
  void aBatchWithoutBuffersChecksItsKeysAlone() {
    MooncakeKeys.Batch batch = new MooncakeKeys.Batch(new String[] {"\0", "b"}, null, false);
    assertArrayEquals(new int[] {1}, batch.positions);
    assertNull(batch.select(null));
  }

  @Test
  void answersGoBackToTheirEntriesAndTheOthersAreInvalid() {
    MooncakeKeys.Batch batch = new MooncakeKeys.Batch(new String[] {"", "b", "", "d"}, null, false);
    assertArrayEquals(
        new long[] {-600, 7, -600, -704}, batch.spread(new long[] {7, -704}, 4, -600));
  }

  @Test
  void keysAndBuffersMustPair() {
    assertThrows(NullPointerException.class, () -> new MooncakeKeys.Batch(null, null, false));
    assertThrows(
        IllegalArgumentException.class,
        () -> new MooncakeKeys.Batch(new String[] {"a", "b"}, new ByteBuffer[] {value()}, false));
  }
}
