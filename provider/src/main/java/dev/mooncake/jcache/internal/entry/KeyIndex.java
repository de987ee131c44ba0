package dev.mooncake.jcache.internal.entry;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store keys this cache has written. Mooncake's C ABI cannot list keys, yet JCache needs them
 * for {@code iterator()} and {@code removeAll()}; the index supplies them. It may hold keys the
 * store has since evicted (readers skip and forget those). Keys written by another JVM sharing the
 * cluster are not in it: see docs/deviations.md.
 */
final class KeyIndex {
  private final Set<String> keys = ConcurrentHashMap.newKeySet();

  void add(String storeKey) {
    keys.add(storeKey);
  }

  void remove(String storeKey) {
    keys.remove(storeKey);
  }

  List<String> snapshot() {
    return List.copyOf(keys);
  }

  void clear() {
    keys.clear();
  }
}
