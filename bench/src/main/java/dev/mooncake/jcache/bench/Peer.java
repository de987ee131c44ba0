package dev.mooncake.jcache.bench;

import java.util.Map;
import java.util.Set;

/** One cache under test, seen through the four operations the workloads use. */
public interface Peer extends AutoCloseable {
  Object get(String key);

  void put(String key, Object value);

  Map<String, Object> getAll(Set<String> keys);

  void putAll(Map<String, Object> entries);

  /** What the report calls it, with the set-up that matters (tier, sizes). */
  String describe();

  @Override
  void close();
}
