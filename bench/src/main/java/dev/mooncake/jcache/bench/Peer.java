package dev.mooncake.jcache.bench;

import java.util.Map;
import java.util.Set;

/** One cache under test, seen through the four operations the workloads use. */
public interface Peer extends AutoCloseable {
  Object get(String key);

  void put(String key, Object value);

  Map<String, Object> getAll(Set<String> keys);

  void putAll(Map<String, Object> entries);

  /** The provider's own API behind the JCache one ({@code Cache.unwrap}); JCache peers only. */
  default <T> T unwrap(Class<T> type) {
    throw new UnsupportedOperationException(describe() + " has no " + type.getSimpleName());
  }

  /** What the report calls it, with the set-up that matters (tier, sizes). */
  String describe();

  @Override
  void close();
}
