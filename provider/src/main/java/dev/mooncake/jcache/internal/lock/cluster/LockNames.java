package dev.mooncake.jcache.internal.lock.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Where the lock of a store key lives, and how to name a store key in a message. The cache's keys
 * are {@code mcj/<tenant>/<cache>/<key>} (base64url parts); a lock is {@code mcjlock/} followed by
 * the same parts, so it belongs to exactly one entry, and neither {@code clear()}'s anchored {@code
 * remove_by_regex("^mcj/<tenant>/<cache>/")} nor any other cache's key can match it.
 */
final class LockNames {
  static final String ENTRY_PREFIX = "mcj/";
  static final String LOCK_PREFIX = "mcjlock/";
  static final String WANT_PREFIX = "mcjwant/";

  private LockNames() {}

  static String lockKey(String storeKey) {
    return storeKey.startsWith(ENTRY_PREFIX)
        ? LOCK_PREFIX + storeKey.substring(ENTRY_PREFIX.length())
        : LOCK_PREFIX + "other/" + storeKey;
  }

  /**
   * Where a JVM waiting for the lock of {@code storeKey} says so ({@code mcjwant/…}): a holder that
   * keeps the lock (docs/cluster-consistency.md, "Lock keeping") releases it when this exists.
   */
  static String wantKey(String storeKey) {
    return WANT_PREFIX + lockKey(storeKey).substring(LOCK_PREFIX.length());
  }

  /** {@code cache 'orders' (tenant 'default'), store key mcj/…} when the key is the cache's. */
  static String describe(String storeKey) {
    String[] parts = storeKey.split("/", 4);
    if (parts.length == 4 && (parts[0] + "/").equals(ENTRY_PREFIX)) {
      String tenant = text(parts[1]);
      String cache = text(parts[2]);
      if (tenant != null && cache != null) {
        return "cache '" + cache + "' (tenant '" + tenant + "'), store key " + storeKey;
      }
    }
    return "store key " + storeKey;
  }

  private static String text(String base64) {
    try {
      return new String(Base64.getUrlDecoder().decode(base64), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
