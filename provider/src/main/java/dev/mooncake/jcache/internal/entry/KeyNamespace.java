package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.codec.Codec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

  private static final byte[] ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
          .getBytes(StandardCharsets.US_ASCII);

  private final String prefix;
  private final byte[] prefixBytes;
  private final Codec codec;
  private final StoreKeyMemo memo = new StoreKeyMemo(this::build);

  public KeyNamespace(String tenant, String cacheName, Codec codec) {
    this.prefix = "mcj/" + encodeText(tenant) + "/" + encodeText(cacheName) + "/";
    this.prefixBytes = prefix.getBytes(StandardCharsets.US_ASCII);
    this.codec = codec;
  }

  /** An anchored regex matching exactly this cache's keys. */
  public String prefixPattern() {
    return "^" + prefix;
  }

  /**
   * The store key for a cache key: the prefix, then base64url of the format byte and the encoded
   * key; a {@code String} key met lately is answered from {@link StoreKeyMemo}. Built in one array
   * (every cache call needs it: the JDK's encoder plus concatenation took five allocations and a
   * tenth of a small get).
   */
  public String storeKey(Object key) {
    return key.getClass() == String.class ? memo.storeKey((String) key) : build(key);
  }

  private String build(Object key) {
    Codec.Encoded encoded = codec.encode(key);
    byte[] bytes = encoded.bytes();
    int length = bytes.length + 1; // the format byte first
    int encodedLength = length / 3 * 4 + (length % 3 == 0 ? 0 : length % 3 + 1);
    byte[] out = Arrays.copyOf(prefixBytes, prefixBytes.length + encodedLength);
    int o = prefixBytes.length;
    for (int i = 0; i < length; i += 3) {
      int b0 = (i == 0 ? encoded.format() : bytes[i - 1]) & 0xff;
      int b1 = i + 1 < length ? bytes[i] & 0xff : 0;
      int b2 = i + 2 < length ? bytes[i + 1] & 0xff : 0;
      int left = length - i;
      out[o++] = ALPHABET[b0 >>> 2];
      out[o++] = ALPHABET[(b0 << 4 | b1 >>> 4) & 63];
      if (left > 1) {
        out[o++] = ALPHABET[(b1 << 2 | b2 >>> 6) & 63];
      }
      if (left > 2) {
        out[o++] = ALPHABET[b2 & 63];
      }
    }
    return new String(out, StandardCharsets.ISO_8859_1);
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
