package dev.mooncake.jcache.internal.entry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.codec.Codec;
import dev.mooncake.jcache.internal.codec.DeserializationFilter;
import dev.mooncake.jcache.internal.codec.SerializationCodec;
import dev.mooncake.jcache.internal.codec.TypedCodec;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Store keys: the hand-built base64url must be exactly the JDK's, and decode back. */
class KeyNamespaceTest {
  private final Codec codec =
      new TypedCodec(
          new SerializationCodec(
              new DeserializationFilter(List.of()), getClass().getClassLoader()));
  private final KeyNamespace keys = new KeyNamespace("tenant-1", "users", codec);

  /** What storeKey must produce, built the slow, obvious way. */
  private String reference(Object key) {
    Codec.Encoded encoded = codec.encode(key);
    byte[] tagged = new byte[encoded.bytes().length + 1];
    tagged[0] = encoded.format();
    System.arraycopy(encoded.bytes(), 0, tagged, 1, encoded.bytes().length);
    Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
    return "mcj/"
        + encoder.encodeToString("tenant-1".getBytes(StandardCharsets.UTF_8))
        + "/"
        + encoder.encodeToString("users".getBytes(StandardCharsets.UTF_8))
        + "/"
        + encoder.encodeToString(tagged);
  }

  @Test
  void everyKeyLengthAndByteValueEncodesAsTheJdksBase64UrlAndDecodesBack() {
    SplittableRandom random = new SplittableRandom(7);
    for (int length = 0; length < 70; length++) {
      for (int round = 0; round < 20; round++) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
          bytes[i] = (byte) random.nextInt(256);
        }
        String storeKey = keys.storeKey(bytes);
        assertEquals(reference(bytes), storeKey);
        assertArrayEquals(bytes, (byte[]) keys.cacheKey(storeKey));
      }
    }
  }

  @Test
  void stringsAndNumbersRoundTrip() {
    List<Object> samples = List.of("", "a", "ключ/🔑", "x".repeat(1000), 42, -7L, 'c', true, 1.5);
    for (Object key : samples) {
      String storeKey = keys.storeKey(key);
      assertEquals(reference(key), storeKey);
      assertEquals(key, keys.cacheKey(storeKey));
      assertTrue(storeKey.startsWith(keys.prefixPattern().substring(1)));
      assertEquals(3, storeKey.chars().filter(c -> c == '/').count(), storeKey);
    }
  }

  @Test
  void tenantsCachesAndKeyTypesNeverShareAStoreKey() {
    KeyNamespace otherTenant = new KeyNamespace("tenant-2", "users", codec);
    KeyNamespace otherCache = new KeyNamespace("tenant-1", "orders", codec);
    assertNotEquals(keys.storeKey("k"), otherTenant.storeKey("k"));
    assertNotEquals(keys.storeKey("k"), otherCache.storeKey("k"));
    assertNotEquals(keys.storeKey("1"), keys.storeKey(1)); // the format byte tells them apart
  }

  /**
   * StoreKeyMemo: a String key met again is answered with the same store key instance (what makes
   * the owner hash's lookup an identity hit), every answer is what building gives even when keys
   * share a memo slot, and keys of other classes or longer than the memo keeps are built anew.
   */
  @Test
  void aStringKeyMetAgainGetsTheSameStoreKeyAndEveryAnswerIsTheBuiltOne() {
    String first = keys.storeKey(new String("user-1".toCharArray()));
    assertSame(first, keys.storeKey(new String("user-1".toCharArray())), "remembered");
    // far more keys than slots: slots are shared and overwritten, answers stay exact
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 4 * StoreKeyMemo.SLOTS; i++) {
        String key = "user-" + i;
        assertEquals(reference(key), keys.storeKey(key), key);
      }
    }
    String longKey = "x".repeat(StoreKeyMemo.MAX_KEY_LENGTH + 1);
    assertNotSame(keys.storeKey(longKey), keys.storeKey(longKey), "a long key is not kept");
    assertEquals(reference(longKey), keys.storeKey(longKey));
    assertNotSame(keys.storeKey(42), keys.storeKey(42), "only String keys are remembered");
    KeyNamespace otherCache = new KeyNamespace("tenant-1", "orders", codec);
    keys.storeKey("shared");
    assertNotEquals(keys.storeKey("shared"), otherCache.storeKey("shared"), "one memo a cache");
  }
}
