package dev.mooncake.jcache.internal.backend.inprocess;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.BufferPool;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.IntStream;

/**
 * Mooncake Store's semantics inside this JVM: a bounded, evicting, off-heap segment with Mooncake's
 * create-only puts, read leases and result codes, so that the cache runs unchanged on either store.
 * Memory and eviction live in {@link ObjectTable}, object lifetime in {@link Slot}, staging buffers
 * in {@link StagingBuffers}; this class holds the per-call rules.
 *
 * <p>Where Mooncake's behaviour is not spelled out by {@link ObjectStore}, we follow its master:
 * {@link #isExist} answers 0 for an object still being written; {@link #remove} of such an object
 * answers REPLICA_IS_NOT_READY (even with force); {@link #removeByRegex} skips objects being
 * written and, without force, objects under a lease. Regexes are {@link java.util.regex} (Mooncake
 * uses ECMAScript; the common subset behaves alike).
 *
 * <p>After {@link #close()} every store call throws a {@link StoreException}. Two exceptions, on
 * purpose: {@link #describe()} still answers (it names the store in messages), and {@link
 * #buffers()} still returns the pool, so buffers still handed out can be released (and freed); the
 * pool's {@code acquire} throws.
 */
public final class InProcessStore implements ObjectStore {
  /** Mooncake master's {@code --default_kv_lease_ttl}. */
  static final long DEFAULT_LEASE_TTL_MILLIS = 10_000;

  private final ObjectTable table;
  private final StagingBuffers buffers;
  private final Pin pin;
  private final long leaseTtlNanos;
  private final Ticker clock;
  private final String description;
  private volatile boolean closed;

  /** The store for {@code backend: in-process}, on the system clock. */
  public static InProcessStore open(MooncakeConfig config) {
    return open(config, Ticker.system());
  }

  /** The store for {@code backend: in-process}; its read leases run on {@code ticker}. */
  public static InProcessStore open(MooncakeConfig config, Ticker ticker) {
    return new InProcessStore(config, DEFAULT_LEASE_TTL_MILLIS, ticker);
  }

  /**
   * @param leaseTtlMillis the read lease, as Mooncake's {@code --default_kv_lease_ttl}
   * @param ticker the time source for leases (tests pass a fake one)
   */
  InProcessStore(MooncakeConfig config, long leaseTtlMillis, Ticker ticker) {
    long segment = config.globalSegmentSize();
    if (segment <= 0) {
      throw new StoreException(
          "the in-process store needs global_segment_size > 0 (it holds the cached values), got "
              + segment);
    }
    MooncakeConfig.EvictionSettings eviction = config.eviction();
    if (!(eviction.highWatermarkRatio() > 0 && eviction.highWatermarkRatio() <= 1)
        || !(eviction.evictionRatio() >= 0 && eviction.evictionRatio() <= 1)) {
      throw new StoreException(
          "eviction ratios must lie in (0, 1] (high watermark) and [0, 1] (eviction ratio), got "
              + eviction);
    }
    this.table = new ObjectTable(segment, eviction.highWatermarkRatio(), eviction.evictionRatio());
    this.buffers =
        new StagingBuffers(config.localBufferSize(), config.operationTimeout().toMillis());
    this.pin = Pin.of(config.replica());
    this.leaseTtlNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, leaseTtlMillis));
    this.clock = ticker;
    this.description = "in-process store (segment " + Sizes.format(segment) + ")";
  }

  @Override
  public int put(String key, ByteBuffer value, Deadline deadline) {
    return put(key, value, pin);
  }

  /** A put with its own pin (the public one uses the config's); tests mix pins with it. */
  int put(String key, ByteBuffer value, Pin pin) {
    if (refusesKey(key) || value == null || !value.hasRemaining()) {
      return StoreStatus.INVALID_PARAMS.code();
    }
    if (table.get(key) != null) {
      return StoreStatus.OK.code(); // create-only: keep the old value (or the put in flight)
    }
    Slot slot = table.newSlot(key, value.remaining(), pin, clock.nanos());
    if (slot == null) {
      return StoreStatus.NO_AVAILABLE_HANDLE.code();
    }
    if (table.insert(slot) != null) {
      table.discard(slot); // lost the race to another put of the same key
      slot.release(); // writer
      return StoreStatus.OK.code();
    }
    try {
      slot.copyFrom(value);
      slot.markReady();
    } catch (RuntimeException | Error e) {
      table.unlink(slot);
      throw e;
    } finally {
      slot.release(); // writer
    }
    if (closed) {
      // close() may have scanned the map before our insert: make sure nothing outlives it.
      table.unlink(slot);
      ensureOpen();
    }
    return StoreStatus.OK.code();
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline) {
    ensureOpen();
    checkBatch(keys, values);
    return IntStream.range(0, keys.length).map(i -> put(keys[i], values[i])).toArray();
  }

  @Override
  public long getInto(String key, ByteBuffer destination, Deadline deadline) {
    if (refusesKey(key) || destination == null || destination.isReadOnly()) {
      return StoreStatus.INVALID_PARAMS.code();
    }
    Slot slot = table.get(key);
    int unreadable = unreadable(slot);
    if (unreadable != StoreStatus.OK.code()) {
      return unreadable;
    }
    if (!slot.tryAcquire()) {
      return StoreStatus.OBJECT_NOT_FOUND.code(); // removed or evicted just now
    }
    try {
      slot.grantLease(clock.nanos(), leaseTtlNanos);
      if (slot.size > destination.remaining()) {
        return StoreStatus.BUFFER_OVERFLOW.code();
      }
      slot.copyTo(destination);
      return slot.size;
    } finally {
      slot.release();
    }
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
    ensureOpen();
    checkBatch(keys, destinations);
    return IntStream.range(0, keys.length)
        .mapToLong(i -> getInto(keys[i], destinations[i]))
        .toArray();
  }

  @Override
  public int isExist(String key, Deadline deadline) {
    if (refusesKey(key)) {
      return StoreStatus.INVALID_PARAMS.code();
    }
    Slot slot = table.get(key);
    if (slot == null || !slot.isReady()) {
      return 0; // Mooncake's ExistKey: an object whose put is in flight does not exist yet
    }
    slot.grantLease(clock.nanos(), leaseTtlNanos);
    return 1;
  }

  @Override
  public int[] batchIsExist(String[] keys, Deadline deadline) {
    ensureOpen();
    checkBatch(keys, keys);
    return IntStream.range(0, keys.length).map(i -> isExist(keys[i])).toArray();
  }

  @Override
  public long getSize(String key, Deadline deadline) {
    if (refusesKey(key)) {
      return StoreStatus.INVALID_PARAMS.code();
    }
    Slot slot = table.get(key);
    int unreadable = unreadable(slot);
    if (unreadable != StoreStatus.OK.code()) {
      return unreadable;
    }
    return slot.isReady() ? slot.size : StoreStatus.OBJECT_NOT_FOUND.code();
  }

  @Override
  public int remove(String key, boolean force, Deadline deadline) {
    if (refusesKey(key)) {
      return StoreStatus.INVALID_PARAMS.code();
    }
    Slot slot = table.get(key);
    if (slot == null) {
      return StoreStatus.OBJECT_NOT_FOUND.code();
    }
    if (!force && slot.leaseHeld(clock.nanos())) {
      return StoreStatus.OBJECT_HAS_LEASE.code();
    }
    if (slot.isWriting()) {
      return StoreStatus.REPLICA_IS_NOT_READY.code();
    }
    return table.unlink(slot) ? StoreStatus.OK.code() : StoreStatus.OBJECT_NOT_FOUND.code();
  }

  @Override
  public long removeByRegex(String pattern, boolean force, Deadline deadline) {
    if (refusesKey(pattern)) { // Mooncake takes the pattern as it takes a key
      return StoreStatus.INVALID_PARAMS.code();
    }
    Pattern compiled;
    try {
      compiled = Pattern.compile(pattern);
    } catch (PatternSyntaxException e) {
      return StoreStatus.INVALID_PARAMS.code();
    }
    return removeMatching(compiled, force);
  }

  /** Removes ready objects whose key the pattern finds, leases permitting. */
  private long removeMatching(Pattern pattern, boolean force) {
    long now = clock.nanos();
    long count = 0;
    for (Slot slot : table.slots()) {
      if (!slot.isReady() || !pattern.matcher(slot.key).find() || (!force && slot.leaseHeld(now))) {
        continue;
      }
      if (table.unlink(slot)) {
        count++;
      }
    }
    return count;
  }

  @Override
  public BufferPool buffers() {
    return buffers; // its acquire() throws once closed; release() must keep working
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public boolean inProcess() {
    return true;
  }

  /** Frees every object and idle staging buffer now; buffers still out are freed on release. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    table.close();
    buffers.close();
  }

  /** Bytes of memory kept from removed objects for reuse by later puts (within the segment). */
  public long idleBytes() {
    return table.idleBytes();
  }

  /**
   * Bytes of the segment taken by stored objects (and puts under way): their footprints, each
   * value's size rounded up to its size class (at most 12.5 % or 16 bytes more).
   */
  public long usedBytes() {
    return table.usedBytes();
  }

  /** The segment's size: {@code global_segment_size}. */
  public long capacityBytes() {
    return table.capacityBytes();
  }

  /** Objects evicted to make room since the store opened. */
  public long evictions() {
    return table.evictions();
  }

  /** Objects stored, those being written included. */
  public int objectCount() {
    return table.size();
  }

  /** The segment itself, for white-box tests (e.g. to hold a put in flight). */
  ObjectTable table() {
    return table;
  }

  private void ensureOpen() {
    if (closed) {
      throw new StoreException(description + " is closed");
    }
  }

  /**
   * Why a read finds nothing in {@code slot}: no object, or its put is in flight; OK when it can be
   * read.
   */
  private static int unreadable(Slot slot) {
    if (slot == null) {
      return StoreStatus.OBJECT_NOT_FOUND.code();
    }
    return slot.isWriting() ? StoreStatus.REPLICA_IS_NOT_READY.code() : StoreStatus.OK.code();
  }

  /**
   * Throws when the store is closed; true for a key Mooncake refuses with {@code INVALID_PARAMS}
   * (null, empty, or with a NUL byte), which every call with a key checks first.
   */
  private boolean refusesKey(String key) {
    ensureOpen();
    return key == null || key.isEmpty() || key.indexOf('\0') >= 0;
  }

  private static void checkBatch(Object[] keys, Object[] values) {
    if (keys == null || values == null || keys.length != values.length) {
      throw new IllegalArgumentException(
          "a batch needs as many values as keys, got "
              + (keys == null ? "no keys" : keys.length + " keys")
              + " and "
              + (values == null ? "no values" : values.length + " values"));
    }
  }
}
