package dev.mooncake.jcache.bench;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The floor: a plain {@code ConcurrentHashMap<String, byte[]>} doing the one copy each way that a
 * store-by-value cache cannot avoid — the value is cloned on put and on get (a String is encoded to
 * UTF-8 on put and decoded into a new String on get). No JCache semantics, no expiry, no
 * statistics, no bound.
 */
final class FloorPeer implements Peer {
  private final ConcurrentHashMap<String, byte[]> map;
  private final boolean strings;

  FloorPeer(ValueKind kind, int keyCount) {
    this.map = new ConcurrentHashMap<>(Math.max(16, keyCount * 2));
    this.strings = kind.type() == String.class;
  }

  @Override
  public Object get(String key) {
    byte[] stored = map.get(key);
    if (stored == null) {
      return null;
    }
    return strings ? new String(stored, StandardCharsets.UTF_8) : stored.clone();
  }

  @Override
  public void put(String key, Object value) {
    map.put(
        key,
        strings ? ((String) value).getBytes(StandardCharsets.UTF_8) : ((byte[]) value).clone());
  }

  @Override
  public Map<String, Object> getAll(Set<String> keys) {
    Map<String, Object> found = new HashMap<>();
    for (String key : keys) {
      Object value = get(key);
      if (value != null) {
        found.put(key, value);
      }
    }
    return found;
  }

  @Override
  public void putAll(Map<String, Object> entries) {
    for (Map.Entry<String, Object> e : entries.entrySet()) {
      put(e.getKey(), e.getValue());
    }
  }

  @Override
  public String describe() {
    return "ConcurrentHashMap<String, byte[]>, clone on put and get";
  }

  @Override
  public void close() {
    map.clear();
  }
}
