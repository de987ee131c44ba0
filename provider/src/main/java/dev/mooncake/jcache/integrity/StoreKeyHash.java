package dev.mooncake.jcache.integrity;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Which store key an object was written under, in 64 bits: the first 8 bytes of SHA-256 of the key.
 * Every value and every lock record carries it, and every read compares it with the key it asked
 * for. A real Mooncake can answer a read of one key with another key's whole object (a forced
 * remove frees memory a transfer still copies, and the next object of that size takes it); the key
 * is in no byte of the object unless the writer puts it there.
 *
 * <p>Why SHA-256 and not a faster hash: the store key carries tenant and cache, so a tenant who
 * could choose keys whose hash equals another tenant's would be handed that tenant's bytes whenever
 * the race happens. A second preimage of 64 bits of SHA-256 costs about 2^64 tries; of FNV or
 * Murmur, seconds. It costs about 0.25 µs per key on this project's machines (SHA-NI), a fraction
 * of a percent of a Mooncake round trip (docs/performance.md, "Integrity checks").
 */
public final class StoreKeyHash {
  private static final ThreadLocal<MessageDigest> SHA_256 =
      ThreadLocal.withInitial(StoreKeyHash::newDigest);

  private StoreKeyHash() {}

  /**
   * The hash of {@code storeKey} (store keys are ASCII: {@code KeyNamespace}, {@code LockNames}).
   */
  public static long of(String storeKey) {
    MessageDigest digest = SHA_256.get();
    byte[] hash = digest.digest(storeKey.getBytes(StandardCharsets.UTF_8));
    long h = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      h = h << 8 | (hash[i] & 0xFF);
    }
    return h;
  }

  private static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
