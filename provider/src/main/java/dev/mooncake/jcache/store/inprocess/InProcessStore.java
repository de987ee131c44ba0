package dev.mooncake.jcache.store.inprocess;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.store.BufferPool;
import dev.mooncake.jcache.store.ObjectStore;
import dev.mooncake.jcache.store.StoreStatus;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/** Placeholder in-process store on the heap (the real one is off-heap, bounded and evicting). */
public final class InProcessStore implements ObjectStore {
  private final ConcurrentHashMap<String, byte[]> objects = new ConcurrentHashMap<>();
  private final BufferPool buffers =
      new BufferPool() {
        @Override
        public ByteBuffer acquire(int minCapacity) {
          return ByteBuffer.allocateDirect(minCapacity);
        }

        @Override
        public void release(ByteBuffer buffer) {}

        @Override
        public long maxBufferSize() {
          return Integer.MAX_VALUE;
        }
      };

  public static InProcessStore open(MooncakeConfig config) {
    return new InProcessStore();
  }

  @Override
  public int put(String key, ByteBuffer value) {
    byte[] bytes = new byte[value.remaining()];
    value.duplicate().get(bytes);
    objects.putIfAbsent(key, bytes);
    return 0;
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values) {
    int[] results = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      results[i] = put(keys[i], values[i]);
    }
    return results;
  }

  @Override
  public long getInto(String key, ByteBuffer destination) {
    byte[] bytes = objects.get(key);
    if (bytes == null) {
      return StoreStatus.OBJECT_NOT_FOUND.code();
    }
    if (bytes.length > destination.remaining()) {
      return StoreStatus.BUFFER_OVERFLOW.code();
    }
    destination.duplicate().put(bytes);
    return bytes.length;
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations) {
    long[] results = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      results[i] = getInto(keys[i], destinations[i]);
    }
    return results;
  }

  @Override
  public int isExist(String key) {
    return objects.containsKey(key) ? 1 : 0;
  }

  @Override
  public int[] batchIsExist(String[] keys) {
    int[] results = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      results[i] = isExist(keys[i]);
    }
    return results;
  }

  @Override
  public long getSize(String key) {
    byte[] bytes = objects.get(key);
    return bytes == null ? StoreStatus.OBJECT_NOT_FOUND.code() : bytes.length;
  }

  @Override
  public int remove(String key, boolean force) {
    return objects.remove(key) == null ? StoreStatus.OBJECT_NOT_FOUND.code() : 0;
  }

  @Override
  public long removeByRegex(String pattern, boolean force) {
    Pattern compiled = Pattern.compile(pattern);
    long count = 0;
    for (String key : objects.keySet()) {
      if (compiled.matcher(key).find() && objects.remove(key) != null) {
        count++;
      }
    }
    return count;
  }

  @Override
  public long removeAll(boolean force) {
    long count = objects.size();
    objects.clear();
    return count;
  }

  @Override
  public int healthCheck() {
    return 0;
  }

  @Override
  public BufferPool buffers() {
    return buffers;
  }

  @Override
  public String describe() {
    return "in-process";
  }

  @Override
  public void close() {
    objects.clear();
  }
}
