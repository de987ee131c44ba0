package dev.mooncake.jcache.internal.event.remote;

/** Finds the cache namespace of a store key without decoding it. */
final class KeyPrefixes {
  private KeyPrefixes() {}

  /**
   * {@code mcj/<tenant>/<cache>/} of a key of this provider's layout, or {@code null} for any other
   * key (other programs' objects, lock objects, probes).
   */
  static String cachePrefix(String storeKey) {
    if (storeKey == null || !storeKey.startsWith("mcj/")) {
      return null;
    }
    int tenantEnd = storeKey.indexOf('/', 4);
    if (tenantEnd < 0) {
      return null;
    }
    int cacheEnd = storeKey.indexOf('/', tenantEnd + 1);
    if (cacheEnd < 0 || cacheEnd == storeKey.length() - 1) {
      return null;
    }
    return storeKey.substring(0, cacheEnd + 1);
  }
}
