package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.ZeroCopyCache;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.util.Objects;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;

/**
 * {@link ZeroCopyCache} over a cache: the caller's direct buffers go to the store with the value
 * header written in front of the bytes, and come back the same way. Only for caches whose new
 * expiry time does not depend on the old entry, and with no writer and no listener (nothing here
 * calls them).
 */
public final class ZeroCopyAccess<K, V> implements ZeroCopyCache<K> {
  private final CacheContext<K, V> context;

  private ZeroCopyAccess(CacheContext<K, V> context) {
    this.context = context;
  }

  /** The zero-copy view of the cache, or an IllegalArgumentException saying why it has none. */
  public static <K, V> ZeroCopyAccess<K, V> of(CacheContext<K, V> context) {
    Class<V> valueType = context.configuration.getValueType();
    if (valueType != Object.class && valueType != byte[].class) {
      throw new IllegalArgumentException(
          "cache '"
              + context.name
              + "' holds "
              + valueType.getName()
              + " values; zero-copy access needs byte[] (or Object) values");
    }
    Object policy = context.expiry.policy();
    if (!(policy instanceof EternalExpiryPolicy) && !(policy instanceof ModifiedExpiryPolicy)) {
      throw new IllegalArgumentException(
          "cache '"
              + context.name
              + "' expires entries with "
              + policy.getClass().getName()
              + "; zero-copy access needs an eternal or modified"
              + " expiry policy (others need the old entry read on every call)");
    }
    return new ZeroCopyAccess<>(context);
  }

  @Override
  public ByteBuffer allocate(int size) {
    ByteBuffer buffer =
        context
            .entries
            .storage()
            .buffers()
            .acquireKept(ZeroCopyCache.HEADER_BYTES + size + ZeroCopyCache.TRAILER_BYTES);
    buffer.limit(ZeroCopyCache.HEADER_BYTES + size).position(ZeroCopyCache.HEADER_BYTES);
    return buffer;
  }

  @Override
  public void release(ByteBuffer buffer) {
    context.entries.storage().buffers().release(buffer.clear());
  }

  @Override
  public void put(K key, ByteBuffer value) {
    String storeKey = checked(key, value, "value buffer");
    Deadline deadline = context.deadline();
    long start = context.statistics.start();
    // Eternal or modified expiry: the new expiry time does not depend on the old entry.
    long expireAt = context.expiry.forUpdate(context.now());
    context.entries.writeInPlace(
        storeKey,
        value,
        expireAt == ExpiryTimes.UNCHANGED ? ExpiryTimes.ETERNAL : expireAt,
        deadline);
    context.statistics.put(start);
  }

  @Override
  public int get(K key, ByteBuffer destination) {
    String storeKey = checked(key, destination, "destination buffer");
    Deadline deadline = context.deadline();
    long start = context.statistics.start();
    int length = context.entries.readInPlace(key, storeKey, destination, deadline);
    context.statistics.lookup(length >= 0);
    context.statistics.getTime(start);
    return length;
  }

  @Override
  public long javaCopiedBytes() {
    return context.entries.storage().copiedBytes();
  }

  /**
   * The checks of a zero-copy call: the cache open, the key and buffer given, and nobody to call
   * (zero-copy calls call no writer and publish no events). Answers the store key.
   */
  private String checked(K key, ByteBuffer buffer, String what) {
    context.requireOpen();
    String storeKey = context.storeKey(key);
    Objects.requireNonNull(buffer, what);
    if (context.writer.enabled() || context.listeners.hasRegistrations()) {
      throw new UnsupportedOperationException(
          "cache '"
              + context.name
              + "' has write-through or"
              + " listeners; zero-copy calls call no writer and publish no events");
    }
    return storeKey;
  }
}
