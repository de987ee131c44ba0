package dev.mooncake.jcache.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The floor for work that the store contract implies: a {@code ConcurrentHashMap} of direct
 * buffers doing the two copies each way that a by-value cache on Mooncake's C ABI must make. A
 * put copies the value into a transfer buffer (the registered region's staging slice), then the
 * store copies it into its own memory (put_from); a get has the store copy the object into a
 * transfer buffer (get_into), then the value is copied out into a fresh {@code byte[]}. Object
 * memory is reused per key, as the in-process store reuses buffers of a size class. No header,
 * no JCache semantics, no expiry, no statistics, no bound.
 */
final class ContractFloorPeer implements Peer {
  private final ConcurrentHashMap<String, ByteBuffer> map;
  private final boolean strings;
  private final int valueBytes;
  private final ThreadLocal<ByteBuffer> transfer;

  ContractFloorPeer(ValueKind kind, int keyCount) {
    this.map = new ConcurrentHashMap<>(Math.max(16, keyCount * 2));
    this.strings = kind.type() == String.class;
    // a String of 100 chars encodes to at most 300 bytes
    this.valueBytes = strings ? 4 * kind.bytes() : kind.bytes();
    this.transfer = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(valueBytes));
  }

  @Override
  public Object get(String key) {
    ByteBuffer stored = map.get(key);
    if (stored == null) {
      return null;
    }
    ByteBuffer staging = transfer.get().clear();
    synchronized (stored) { // copy 1: the store's get_into
      staging.put(stored.duplicate().flip());
    }
    byte[] value = new byte[staging.flip().remaining()];
    staging.get(value); // copy 2: out to the caller's own array
    return strings ? new String(value, StandardCharsets.UTF_8) : value;
  }

  @Override
  public void put(String key, Object value) {
    byte[] bytes = strings ? ((String) value).getBytes(StandardCharsets.UTF_8) : (byte[]) value;
    ByteBuffer staging = transfer.get().clear();
    staging.put(bytes).flip(); // copy 1: into the transfer buffer
    map.compute(key, (k, old) -> {
      ByteBuffer target = old != null && old.capacity() >= staging.remaining()
          ? old : ByteBuffer.allocateDirect(Math.max(valueBytes, staging.remaining()));
      synchronized (target) { // copy 2: the store's put_from into its own memory
        target.clear().put(staging.duplicate());
      }
      return target;
    });
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
    return "ConcurrentHashMap<String, direct ByteBuffer>, two copies each way (transfer buffer"
        + " and store memory, as the store contract implies)";
  }

  @Override
  public void close() {
    map.clear();
  }
}
