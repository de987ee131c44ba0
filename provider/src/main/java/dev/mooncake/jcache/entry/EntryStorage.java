package dev.mooncake.jcache.entry;

import dev.mooncake.jcache.codec.Codec;
import dev.mooncake.jcache.codec.TypedCodec;
import dev.mooncake.jcache.lane.Lane;
import dev.mooncake.jcache.lane.Lanes;
import dev.mooncake.jcache.backend.BufferPool;
import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.backend.StoreStatus;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.CacheException;

/**
 * One cache's view of the store: values with their header in, {@link StoredEntry StoredEntries}
 * out, every call on its lane, every failure a {@link CacheException} naming the operation, the
 * cache and Mooncake's code. It knows nothing of JCache semantics (expiry, events, locking): that
 * is {@code MooncakeCache}'s job.
 */
public final class EntryStorage {
  /** Reads start with a buffer this large and grow to the largest value seen. */
  private static final int MIN_READ_BUFFER = 4096;
  private static final int MAX_REMEMBERED_READ = (1 << 20) + ValueHeader.SIZE;
  /** How often a read retries an object whose put is still in flight before calling it absent. */
  private static final int NOT_READY_RETRIES = 50;
  /** Batches are split across a lane's threads in chunks of at least this many keys. */
  private static final int MIN_BATCH_CHUNK = 16;

  private final String cacheName;
  private final ObjectStore store;
  private final BufferPool buffers;
  private final Lanes lanes;
  private final Codec codec;
  private final boolean bytesAllowed; // byte[] payloads skip the codec (StoredEntry.copyOfValue)
  private volatile int readBufferSize = MIN_READ_BUFFER;
  private final LongAdder copiedBytes = new LongAdder();

  public EntryStorage(String cacheName, ObjectStore store, Lanes lanes, Codec codec) {
    this(cacheName, store, lanes, codec, Object.class);
  }

  /**
   * Storage whose reads refuse a value that is not a {@code valueType} (another cache's or
   * program's object under this cache's key) instead of handing it to a caller who expects one.
   */
  public EntryStorage(
      String cacheName, ObjectStore store, Lanes lanes, Codec codec, Class<?> valueType) {
    this.cacheName = cacheName;
    this.store = store;
    this.buffers = store.buffers();
    this.lanes = lanes;
    this.codec = ValueTypeCodec.of(codec, valueType, cacheName);
    this.bytesAllowed = valueType.isAssignableFrom(byte[].class);
  }

  /** The store's transfer buffers (for callers that fill them directly: zero-copy). */
  public BufferPool buffers() {
    return buffers;
  }

  /** The entry under {@code key}, or {@code null} when absent (never stored, removed, evicted). */
  public StoredEntry read(String key) {
    return lanes.call(Lane.RETRIEVE, () -> readNow(key));
  }

  private StoredEntry readNow(String key) {
    int size = readBufferSize;
    for (int attempt = 0; ; attempt++) {
      ByteBuffer buffer = buffers.acquire(size);
      try {
        long result = store.getInto(key, buffer);
        if (result >= 0) {
          return decode(key, buffer, result);
        }
        if (result == StoreStatus.OBJECT_NOT_FOUND.code()) {
          return null;
        }
        if (result == StoreStatus.REPLICA_IS_NOT_READY.code()) {
          if (attempt >= NOT_READY_RETRIES) {
            return null; // a put still in flight is not yet visible
          }
          Thread.onSpinWait();
          continue;
        }
        // A too-small buffer fails without saying the size: ask for it once.
        long needed = store.getSize(key);
        if (needed == StoreStatus.OBJECT_NOT_FOUND.code()) {
          return null;
        }
        if (needed > buffer.capacity() && attempt == 0) {
          size = checkedSize(needed, key);
          growReadBuffer(size);
          continue;
        }
        throw failure("get", key, result);
      } finally {
        buffers.release(buffer);
      }
    }
  }

  /**
   * Reads many entries in one batch call: the entry of {@code keys[i]} at index i, null when
   * absent.
   */
  public StoredEntry[] readAll(String[] keys) {
    StoredEntry[] found = new StoredEntry[keys.length];
    if (keys.length == 0) {
      return found;
    }
    if (keys.length == 1) {
      found[0] = read(keys[0]);
      return found;
    }
    int size = readBufferSize;
    try (Transfer transfer = new Transfer(keys.length)) {
      for (int i = 0; i < keys.length; i++) {
        transfer.reserve(i, size);
      }
      ByteBuffer[] targets = transfer.buffers();
      long[] results = new long[keys.length];
      lanes.runChunked(Lane.RETRIEVE, keys.length, MIN_BATCH_CHUNK, (from, to) -> {
        long[] chunk = store.batchGetInto(
            Arrays.copyOfRange(keys, from, to), Arrays.copyOfRange(targets, from, to));
        System.arraycopy(chunk, 0, results, from, to - from);
      });
      for (int i = 0; i < keys.length; i++) {
        if (results[i] >= 0) {
          found[i] = decode(keys[i], targets[i], results[i]);
        } else if (results[i] != StoreStatus.OBJECT_NOT_FOUND.code()) {
          found[i] = read(keys[i]); // too small or in flight: the single path copes
        }
      }
      return found;
    }
  }

  /**
   * The transfer buffers of one batch call. Small batches take one pool buffer cut into slices
   * (one acquire and one release instead of one per key: profiled, the per-key pool traffic cost
   * more than the copies of a 64 × 1 KiB getAll); larger ones take a buffer per key.
   */
  private final class Transfer implements AutoCloseable {
    private static final long MAX_SHARED = 4L << 20;
    private final int[] sizes;
    private final ByteBuffer[] slices;
    private ByteBuffer shared;

    Transfer(int count) {
      this.sizes = new int[count];
      this.slices = new ByteBuffer[count];
    }

    void reserve(int i, int size) {
      sizes[i] = size;
    }

    /** The buffers, sized as reserved: slices of one shared buffer, or one each. */
    ByteBuffer[] buffers() {
      long total = 0;
      for (int size : sizes) {
        total += size;
      }
      if (total <= Math.min(MAX_SHARED, buffers.maxBufferSize())) {
        shared = buffers.acquire((int) total);
        int offset = 0;
        for (int i = 0; i < sizes.length; i++) {
          slices[i] = shared.slice(offset, sizes[i]);
          offset += sizes[i];
        }
      } else {
        for (int i = 0; i < sizes.length; i++) {
          slices[i] = buffers.acquire(sizes[i]);
        }
      }
      return slices;
    }

    @Override
    public void close() {
      if (shared != null) {
        buffers.release(shared);
        return;
      }
      for (ByteBuffer slice : slices) {
        if (slice != null) {
          buffers.release(slice);
        }
      }
    }
  }

  /** 1 when present, 0 when absent. */
  public boolean exists(String key) {
    long result = lanes.callLong(Lane.LOOKUP, () -> store.isExist(key));
    if (result < 0) {
      throw failure("exists", key, result);
    }
    return result == 1;
  }

  /**
   * Stores {@code value} under {@code key}, replacing what is there. Mooncake's put never
   * overwrites, so this is remove (with force: reads hold leases) then put. Callers hold the key's
   * lock, so no writer of this JVM can slip in between.
   *
   * @param knownAbsent whether the caller knows the key to be absent (skips the remove)
   */
  public void write(String key, Object value, long expireAt, boolean knownAbsent) {
    Codec.Encoded encoded = codec.encode(value);
    putBytes(key, encoded.format(), encoded.bytes(), expireAt, knownAbsent);
  }

  /**
   * One value to write in a batch.
   *
   * @param key the store key
   * @param value the value to encode
   * @param expireAt its expiry time
   * @param knownAbsent whether the caller knows the key to be absent (skips the remove)
   */
  public record Write(String key, Object value, long expireAt, boolean knownAbsent) {}

  /**
   * Writes many values: removes the keys not known to be absent, then one batch put. Answers, per
   * write, whether the remove found an object (for callers that did not read first).
   */
  public boolean[] writeAll(List<Write> writes) {
    boolean[] replaced = new boolean[writes.size()];
    if (writes.isEmpty()) {
      return replaced;
    }
    String[] keys = new String[writes.size()];
    Codec.Encoded[] encoded = new Codec.Encoded[keys.length];
    try (Transfer transfer = new Transfer(keys.length)) {
      for (int i = 0; i < keys.length; i++) {
        keys[i] = writes.get(i).key();
        encoded[i] = codec.encode(writes.get(i).value());
        transfer.reserve(i, ValueHeader.SIZE + encoded[i].bytes().length);
      }
      ByteBuffer[] values = transfer.buffers();
      for (int i = 0; i < keys.length; i++) {
        Write write = writes.get(i);
        fill(values[i], encoded[i].format(), encoded[i].bytes(), write.expireAt());
        if (!write.knownAbsent()) {
          replaced[i] = deleteNow(write.key());
        }
      }
      int[] results = new int[keys.length];
      lanes.runChunked(Lane.STORE, keys.length, MIN_BATCH_CHUNK, (from, to) -> {
        int[] chunk = store.batchPut(
            Arrays.copyOfRange(keys, from, to), Arrays.copyOfRange(values, from, to));
        System.arraycopy(chunk, 0, results, from, to - from);
      });
      for (int i = 0; i < keys.length; i++) {
        if (results[i] != 0) {
          throw failure("batch put", keys[i], results[i]);
        }
      }
      return replaced;
    }
  }

  /** Stores an entry read earlier again with a new expiry time (access expiry), no re-encoding. */
  public void rewrite(String key, StoredEntry entry, long expireAt) {
    putBytes(key, entry.format(), entry.payload(), expireAt, false);
  }

  private void putBytes(String key, byte format, byte[] payload, long expireAt, boolean absent) {
    ByteBuffer buffer = headed(format, payload, expireAt);
    try {
      if (!absent) {
        deleteNow(key);
      }
      long result = lanes.callLong(Lane.STORE, () -> store.put(key, buffer));
      if (result != 0) {
        throw failure("put", key, result);
      }
    } finally {
      buffers.release(buffer);
    }
  }

  /**
   * Zero-copy write: stores {@code value[position, limit)} as a {@code byte[]} value, writing the
   * header into the {@link ValueHeader#SIZE} bytes before its position. No byte is copied in Java;
   * the store transfers straight from the caller's buffer.
   */
  public void writeInPlace(String key, ByteBuffer value, long expireAt, boolean knownAbsent) {
    int start = value.position() - ValueHeader.SIZE;
    if (start < 0) {
      throw new IllegalArgumentException("a zero-copy value needs " + ValueHeader.SIZE
          + " free bytes before its position for the header; its position is " + value.position());
    }
    ValueHeader.write(value, start, TypedCodec.BYTES_FORMAT, expireAt, value.remaining());
    ByteBuffer whole = value.duplicate().position(start);
    if (!knownAbsent) {
      deleteNow(key);
    }
    long result = lanes.callLong(Lane.STORE, () -> store.put(key, whole));
    if (result != 0) {
      throw failure("put", key, result);
    }
  }

  /**
   * Zero-copy read into {@code destination} at its position (header first). Answers the entry's
   * expiry time, or {@link #ABSENT}; on success the destination's position and limit frame the
   * payload. No byte is copied in Java.
   */
  public long readInPlace(String key, ByteBuffer destination) {
    int start = destination.position();
    long length = lanes.callLong(Lane.RETRIEVE, () -> store.getInto(key, destination));
    if (length == StoreStatus.OBJECT_NOT_FOUND.code()
        || length == StoreStatus.REPLICA_IS_NOT_READY.code()) {
      return ABSENT;
    }
    if (length < 0) {
      long size = store.getSize(key);
      if (size > destination.remaining()) {
        throw new CacheException("get on cache '" + cacheName + "': the value of '" + key
            + "' needs " + size + " bytes, the destination has " + destination.remaining());
      }
      throw failure("get", key, length);
    }
    ValueHeader.check(destination, start, length, key);
    if (ValueHeader.format(destination, start) != TypedCodec.BYTES_FORMAT) {
      throw new CacheException("get on cache '" + cacheName + "': the value of '" + key
          + "' is not a byte[] (format " + ValueHeader.format(destination, start) + ")");
    }
    long expireAt = ValueHeader.expireAt(destination, start);
    destination.limit(start + (int) length).position(start + ValueHeader.SIZE);
    return expireAt;
  }

  /** Answered by {@link #readInPlace} for a missing key. */
  public static final long ABSENT = Long.MIN_VALUE;

  /** The bytes this cache has copied in Java to encode or decode values (zero-copy adds none). */
  public long copiedBytes() {
    return copiedBytes.sum();
  }

  /** A pool buffer holding header and payload, limited to their length. */
  private ByteBuffer headed(byte format, byte[] payload, long expireAt) {
    ByteBuffer buffer = buffers.acquire(ValueHeader.SIZE + payload.length);
    try {
      return fill(buffer, format, payload, expireAt);
    } catch (RuntimeException e) {
      buffers.release(buffer);
      throw e;
    }
  }

  /** Writes header and payload at the start of {@code buffer} and limits it to them. */
  private ByteBuffer fill(ByteBuffer buffer, byte format, byte[] payload, long expireAt) {
    ValueHeader.write(buffer, 0, format, expireAt, payload.length);
    buffer.put(ValueHeader.SIZE, payload);
    copiedBytes.add(payload.length);
    return buffer.limit(ValueHeader.SIZE + payload.length);
  }

  /** Removes the object; true when there was one. */
  public boolean delete(String key) {
    return deleteNow(key);
  }

  private boolean deleteNow(String key) {
    long result = lanes.callLong(Lane.DELETE, () -> store.remove(key, true));
    if (result == 0) {
      return true;
    }
    if (result == StoreStatus.OBJECT_NOT_FOUND.code()) {
      return false;
    }
    throw failure("remove", key, result);
  }

  /** Removes every object whose key starts with {@code prefix}; the count removed. */
  public long deleteByPrefix(String prefixPattern) {
    long result = lanes.callLong(Lane.DELETE, () -> store.removeByRegex(prefixPattern, true));
    if (result < 0) {
      throw failure("remove_by_regex", prefixPattern, result);
    }
    return result;
  }

  private StoredEntry decode(String key, ByteBuffer buffer, long length) {
    ValueHeader.check(buffer, 0, length, key);
    if (!bytesAllowed && ValueHeader.format(buffer, 0) == TypedCodec.BYTES_FORMAT) {
      throw ValueTypeCodec.wrongType(key, cacheName, byte[].class);
    }
    byte[] payload = new byte[(int) length - ValueHeader.SIZE];
    buffer.get(ValueHeader.SIZE, payload);
    copiedBytes.add(payload.length);
    return new StoredEntry(
        ValueHeader.format(buffer, 0), ValueHeader.expireAt(buffer, 0), payload, codec);
  }

  private void growReadBuffer(int size) {
    // Remember large values so the next read needs one round trip, within reason (values up to
    // 1 MiB, plus their header).
    if (size > readBufferSize && size <= MAX_REMEMBERED_READ) {
      readBufferSize = size;
    }
  }

  private int checkedSize(long needed, String key) {
    if (needed > buffers.maxBufferSize() || needed > Integer.MAX_VALUE - 8) {
      throw new CacheException(
          "get on cache '" + cacheName + "' failed: stored object '" + key + "' has " + needed
              + " bytes, more than the largest transfer buffer (" + buffers.maxBufferSize()
              + " bytes, local_buffer_size)");
    }
    return (int) needed;
  }

  private CacheException failure(String operation, String key, long code) {
    return new CacheException(
        operation + " on cache '" + cacheName + "' failed for store key '" + key + "': "
            + StoreStatus.describe(code) + " (" + store.describe() + ")");
  }
}
