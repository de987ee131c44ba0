package dev.mooncake.jcache.internal.entry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
}
