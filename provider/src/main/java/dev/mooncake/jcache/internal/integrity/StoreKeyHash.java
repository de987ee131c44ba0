package dev.mooncake.jcache.internal.integrity;

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
 * of a percent of a Mooncake round trip but a quarter of an in-process 1 KiB get, so the keys met
 * last are memoised (docs/performance-features.md, "Integrity checks").
 */
public final class StoreKeyHash {
  /**
   * Slots of the memo: the hashes of the store keys met last, shared by every thread and indexed by
   * {@link #slot} of {@link String#hashCode}. An operation meets its key more than once (a read,
   * then the write of a read-then-write step; a lock record's put, then its read-back) and hot keys
   * come back: a hit costs the key's {@code hashCode} and one {@code equals}, not a SHA-256. Shared
   * (not per thread) so that it can be large enough for a working set (64 slots per thread gave
   * {@code IntegrityBenchmark}'s 64 keys 28 slots) and costs nothing per virtual thread: 2,048
   * entries and the store keys they hold.
   */
  static final int MEMO_SLOTS = 2048;

  private static final RecentKeys<Long> MEMO = new RecentKeys<>(MEMO_SLOTS);

  private static final ThreadLocal<MessageDigest> DIGESTS =
      ThreadLocal.withInitial(StoreKeyHash::newDigest);

  private StoreKeyHash() {}

  /**
   * The hash of {@code storeKey} (store keys are ASCII: {@code KeyNamespace}, {@code LockNames}). A
   * pure function of the key, so the memo can only answer what SHA-256 would.
   */
  public static long of(String storeKey) {
    Long known = MEMO.get(storeKey);
    if (known != null) {
      return known;
    }
    long h = sha256Prefix(DIGESTS.get(), storeKey);
    MEMO.put(storeKey, h);
    return h;
  }

  /** The memo slot of a key's {@code hashCode} (for tests: how keys spread over the slots). */
  static int slot(int hashCode) {
    return MEMO.slot(hashCode);
  }

  /**
   * The first 8 bytes of SHA-256 of the key, computed now (for tests: what the memo must equal).
   */
  static long computed(String storeKey) {
    return sha256Prefix(newDigest(), storeKey);
  }

  private static long sha256Prefix(MessageDigest digest, String storeKey) {
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
