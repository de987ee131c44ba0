package dev.mooncake.jcache.storage;

import dev.mooncake.jcache.codec.Codec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Maps a cache's keys to store keys. Mooncake's C ABI has no tenant, so every key carries its
 * tenant and cache: {@code mcj/<tenant>/<cache>/<key>}, each part base64url without padding. The
 * alphabet has no {@code /}, so no key of one cache can be read as another's, and the prefix needs
 * no regex escaping for {@code remove_by_regex}. Keys are NUL-free ASCII, as Mooncake requires.
 */
public final class KeyNamespace {
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  private final String prefix;
  private final Codec codec;

  public KeyNamespace(String tenant, String cacheName, Codec codec) {
    this.prefix = "mcj/" + encodeText(tenant) + "/" + encodeText(cacheName) + "/";
    this.codec = codec;
  }

  /** An anchored regex matching exactly this cache's keys. */
  public String prefixPattern() {
    return "^" + prefix;
  }

  /** The store key for a cache key. */
  public String storeKey(Object key) {
    Codec.Encoded encoded = codec.encode(key);
    byte[] tagged = new byte[encoded.bytes().length + 1];
    tagged[0] = encoded.format();
    System.arraycopy(encoded.bytes(), 0, tagged, 1, encoded.bytes().length);
    return prefix + ENCODER.encodeToString(tagged);
  }

  /** The cache key a store key of this namespace stands for (a fresh copy). */
  public Object cacheKey(String storeKey) {
    if (!storeKey.startsWith(prefix)) {
      throw new IllegalArgumentException(storeKey + " is not in namespace " + prefix);
    }
    byte[] tagged = DECODER.decode(storeKey.substring(prefix.length()));
    return codec.decode(tagged[0], ByteBuffer.wrap(tagged, 1, tagged.length - 1).slice());
  }

  private static String encodeText(String text) {
    return ENCODER.encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}
