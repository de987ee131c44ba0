package dev.mooncake.jcache.entry;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store keys this cache has written. Mooncake's C ABI cannot list keys, yet JCache needs them
 * for {@code iterator()} and {@code removeAll()}; the index supplies them. It may hold keys the
 * store has since evicted (readers skip and forget those). Keys written by another JVM sharing
 * the cluster are not in it: see docs/deviations.md.
 */
public final class KeyIndex {
  private final Set<String> keys = ConcurrentHashMap.newKeySet();

  public void add(String storeKey) {
    keys.add(storeKey);
  }

  public void remove(String storeKey) {
    keys.remove(storeKey);
  }

  public List<String> snapshot() {
    return List.copyOf(keys);
  }

  public void clear() {
    keys.clear();
  }
}
