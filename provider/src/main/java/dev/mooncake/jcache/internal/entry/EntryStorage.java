package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.backend.BufferPool;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.ReadPolicy;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.backend.StuckPutWatch;
import dev.mooncake.jcache.internal.codec.Codec;
import dev.mooncake.jcache.internal.codec.TypedCodec;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.integrity.StoreKeyHash;
import dev.mooncake.jcache.internal.lane.Lane;
import dev.mooncake.jcache.internal.lane.Lanes;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.function.IntUnaryOperator;
import javax.cache.CacheException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cache's view of the store: values with their header in, {@link StoredEntry StoredEntries}
 * out, every call on its lane, every failure a {@link CacheException} naming the operation, the
 * cache and Mooncake's code. It knows nothing of expiry or events: only {@link EntryMap} calls it
 * (hence package-private). Every mutation of a key is made through the key's {@link LockedKey},
 * which it takes as its argument: its proof is asked ({@link LockedKey#ensureHeld}) right before
 * each remove and put, retries included, and only it says whether a put after a remove may skip the
 * check for a dropped put ({@link LockedKey#provedExclusive}).
 */
public final class EntryStorage {
  private static final Logger LOG = LoggerFactory.getLogger(EntryStorage.class);

  /** Reads start with a buffer this large and grow to the largest value seen. */
  private static final int MIN_READ_BUFFER = 4096;

  private static final int MAX_REMEMBERED_READ = (1 << 20) + ValueHeader.OVERHEAD;

  /** What {@link #deleteNow} found under the key. */
  enum Removal {
    /** An object was there, and is removed. */
    REMOVED,
    /** Nothing was there. */
    ABSENT,
    /**
     * A put in flight that did not land within {@link StoreStatus#STUCK_PUT_NANOS}; nothing
     * readable.
     */
    STUCK_PUT
  }

  /**
   * How often a read is repeated when what it got is not the key's whole value ({@link
   * ValueHeader#defect}: no header, wrong length, checksum, another key's owner hash). Seen on a
   * real Mooncake (3b5a594) while other clients replaced keys (a forced remove, then a put):
   * get_into answered with a mix of two objects, or with another key's whole object, the memory it
   * was copying having been freed and reused. Reading again asks the master anew and gets one whole
   * object of the key. Every read path repeats through {@link #readNow}: single, batch, the read
   * riding on a lock; zero-copy repeats in place. After the last try the read fails naming the key
   * and the defect: bytes that are not the key's value are never returned.
   */
  private static final int INTEGRITY_RETRIES = 5;

  /** At most one log line per cache per this long about reads that were not the key's value. */
  private static final long MISMATCH_LOG_NANOS = TimeUnit.SECONDS.toNanos(10);

  /**
   * How long after a read answered "absent" for an unreachable object a write does not trust a
   * caller's "known absent": the master may still list the object (until its client_ttl), and a put
   * of a key it lists answers OK and keeps the old object. Writes then remove first.
   */
  private static final long DISTRUST_ABSENT_NANOS = TimeUnit.SECONDS.toNanos(60);

  /** At most one log line per cache per this long about unreachable objects read as absent. */
  private static final long UNREACHABLE_LOG_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** Batches are split across a lane's threads in chunks of at least this many keys. */
  private static final int MIN_BATCH_CHUNK = 16;

  /**
   * On an in-process store a batch is transferred and decoded (read) or filled and stored (write)
   * in groups of about this many value bytes, so the second copy of each value finds it still in
   * the core's cache (L2: 1 MiB on the benchmark machine). Profiled: a 64 × 1 MiB getAll in one
   * transfer spent its time re-reading 64 MiB from memory, at 0.55-0.64× of the contract floor
   * while single gets, one cache-hot buffer at a time, were level with it. A remote store keeps one
   * call per batch: there the round trip is what costs.
   */
  static final long IN_PROCESS_GROUP_BYTES = 1L << 20;

  private final String cacheName;
  private final ObjectStore store;
  private final BufferPool buffers;
  private final Lanes lanes;
  private final Codec codec;
  private final boolean bytesAllowed; // byte[] payloads skip the codec (StoredEntry.copyOfValue)
  private final Ticker ticker;
  private final long timeoutNanos;
  private volatile int readBufferSize = MIN_READ_BUFFER;
  private final LongAdder copiedBytes = new LongAdder();
  private final CountedWarning unreachableReads = new CountedWarning(UNREACHABLE_LOG_NANOS);
  private final CountedWarning integrityMismatches = new CountedWarning(MISMATCH_LOG_NANOS);
  private volatile long lastUnreachableRead; // ticker nanos; 0: never

  /**
   * @param ticker the clock of retry deadlines
   * @param operationTimeout how long a mutation retries transient answers (-703, -706) and dropped
   *     puts before it fails ({@code operation_timeout_ms})
   * @param valueType reads refuse a value that is not one (another cache's or program's object
   *     under this cache's key) instead of handing it to a caller who expects one; {@code
   *     Object.class}: any
   */
  public EntryStorage(
      String cacheName,
      ObjectStore store,
      Lanes lanes,
      Codec codec,
      Ticker ticker,
      Duration operationTimeout,
      Class<?> valueType) {
    this.cacheName = cacheName;
    this.store = store;
    this.buffers = store.buffers();
    this.lanes = lanes;
    this.codec = ValueTypeCodec.of(codec, valueType, cacheName);
    this.bytesAllowed = valueType.isAssignableFrom(byte[].class);
    this.ticker = ticker;
    this.timeoutNanos = Math.max(1, operationTimeout.toNanos());
  }

  /** {@code operation_timeout_ms}: also how long closing the cache waits for a running load. */
  public Duration operationTimeout() {
    return Duration.ofNanos(timeoutNanos);
  }

  /**
   * The deadline of an operation starting now: {@code operation_timeout_ms} on this storage's
   * ticker. Every call of the operation takes it, so its retries and its lock share one budget.
   */
  public Deadline deadline() {
    return Deadline.after(Duration.ofNanos(timeoutNanos), ticker);
  }

  /** Asks the store's metadata whether a key exists ({@code is_exist}), on the lookup lane. */
  KeyPresence presence() {
    return new KeyPresence(cacheName, store, lanes);
  }

  /** The store's transfer buffers (for callers that fill them directly: zero-copy). */
  public BufferPool buffers() {
    return buffers;
  }

  /** The entry under {@code key}, or {@code null} when absent (never stored, removed, evicted). */
  StoredEntry read(String key, Deadline deadline) {
    long owner = StoreKeyHash.of(key);
    return lanes.runsHere(Lane.RETRIEVE) // the common case made here: two frames less per get
        ? readNow(key, owner, deadline)
        : lanes.call(Lane.RETRIEVE, () -> readNow(key, owner, deadline));
  }

  /**
   * Reads, repeating a torn or foreign value ({@link #INTEGRITY_RETRIES}) and each code as {@link
   * ReadPolicy#forEntryRead} says, all ending at the operation's {@code deadline}: the rule's end
   * stands then.
   */
  private StoredEntry readNow(String key, long owner, Deadline deadline) {
    int size = readBufferSize;
    int mismatches = 0;
    ReadPolicy.Tries tries = new ReadPolicy.Tries();
    while (true) {
      ByteBuffer buffer = buffers.acquire(size, deadline);
      try {
        long result = store.getInto(key, buffer, deadline);
        ReadPolicy rule = ReadPolicy.forEntryRead(result);
        if (rule == ReadPolicy.VALUE) {
          ValueHeader.Checked checked = ValueHeader.copyChecked(buffer, 0, result, owner);
          ValueHeader.Defect defect = checked.defect();
          if (defect == null) {
            return decode(key, buffer, checked.payload());
          }
          mismatch(key, defect);
          if (mismatches < INTEGRITY_RETRIES && !deadline.expired()) {
            backOff(mismatches++); // not the key's value (see INTEGRITY_RETRIES): ask again
            continue;
          }
          throw ValueHeader.refused(buffer, 0, result, key, defect);
        }
        if (tries.again(rule, deadline)) {
          pause(rule, tries);
          continue;
        }
        if (rule.end() == ReadPolicy.End.ABSENT) {
          return null;
        }
        if (rule.end() == ReadPolicy.End.UNREACHABLE) {
          return unreachable(key);
        }
        // A too-small buffer fails without saying the size: ask for it once.
        long needed = store.getSize(key, deadline);
        if (ReadPolicy.forEntryRead(needed) == ReadPolicy.ABSENT) {
          return null;
        }
        if (needed > size) { // grows at most to the largest size asked, so this ends
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

  /** A read of {@code key} that may ride along with the key's lock (see {@link EntryRead}). */
  EntryRead entryRead(String key, Deadline deadline) {
    return new EntryRead(key, deadline);
  }

  /**
   * The read of a key's entry that a locked step makes first. Handed to {@link KeyLocks#lock},
   * through {@link EntryLocks#lock}: a cluster lock reads the entry in the same batch call as its
   * owner token, and the step's own read is saved; otherwise {@link #entry} reads as {@link #read}
   * does. Its buffer is taken from the pool only when the lock asks for it; closing gives it back.
   */
  final class EntryRead implements KeyLocks.Ride, AutoCloseable {
    private final String key;
    private final Deadline deadline;
    private ByteBuffer buffer;
    private boolean answered;
    private boolean provenEarlier; // a kept cluster lock: proved before, nothing read now
    private long result;

    private EntryRead(String key, Deadline deadline) {
      this.key = key;
      this.deadline = deadline;
    }

    String key() {
      return key;
    }

    @Override
    public ByteBuffer destination() {
      if (buffer == null) {
        buffer = buffers.acquire(readBufferSize, deadline);
      }
      return buffer;
    }

    @Override
    public void answered(long result) {
      this.answered = true;
      this.result = result;
    }

    /**
     * Whether the lock answered the ride: a lock that had to prove itself held across the cluster
     * did, so no other writer of the key starts until it is released (cluster-consistency.md, Lemma
     * 3 and the Theorem).
     */
    boolean provedExclusive() {
      return answered || provenEarlier;
    }

    @Override
    public void provenWithoutRead() {
      provenEarlier = true;
    }

    /** Whether {@link #entry} comes from the lock's own read-back (else it reads the store now). */
    boolean readWithLock() {
      return answered;
    }

    @Override
    public Runnable detach() {
      ByteBuffer given = buffer;
      buffer = null;
      answered = false;
      return given == null ? () -> {} : () -> buffers.release(given);
    }

    /** Whether the ride's answer says the key is absent (no read, no remove needed then). */
    boolean knownAbsent() {
      return answered && ReadPolicy.forEntryRead(result) == ReadPolicy.ABSENT;
    }

    /**
     * The entry, or null: from the ride's answer, else (not answered, answered busy / too small, or
     * torn: the single read repeats it) read now, still under the lock.
     */
    StoredEntry entry() {
      if (answered && ReadPolicy.forEntryRead(result) == ReadPolicy.VALUE) {
        long owner = StoreKeyHash.of(key);
        ValueHeader.Checked checked = ValueHeader.copyChecked(buffer, 0, result, owner);
        if (checked.defect() == null) {
          return decode(key, buffer, checked.payload());
        }
        mismatch(key, checked.defect());
        return lanes.call(Lane.RETRIEVE, () -> readNow(key, owner, deadline));
      }
      if (knownAbsent()) {
        return null;
      }
      return read(key, deadline);
    }

    @Override
    public void close() {
      if (buffer != null) {
        buffers.release(buffer);
        buffer = null;
      }
    }
  }

  /**
   * Reads many entries in one batch call: the entry of {@code keys[i]} at index i, null when
   * absent. On an in-process store the batch goes in groups of about {@link
   * #IN_PROCESS_GROUP_BYTES} (see there).
   */
  StoredEntry[] readAll(String[] keys, Deadline deadline) {
    StoredEntry[] found = new StoredEntry[keys.length];
    if (keys.length == 0) {
      return found;
    }
    if (keys.length == 1) {
      found[0] = read(keys[0], deadline);
      return found;
    }
    int size = readBufferSize;
    for (int from = 0; from < keys.length; ) {
      int to = groupEnd(from, keys.length, i -> size);
      readGroup(keys, from, to, size, found, deadline);
      from = to;
    }
    return found;
  }

  /** Reads {@code keys[from, to)} in one batch call into {@code found[from, to)}. */
  private void readGroup(
      String[] keys, int from, int to, int size, StoredEntry[] found, Deadline deadline) {
    int count = to - from;
    String[] group = from == 0 && to == keys.length ? keys : Arrays.copyOfRange(keys, from, to);
    try (Transfer transfer = new Transfer(count)) {
      for (int i = 0; i < count; i++) {
        transfer.reserve(i, size);
      }
      ByteBuffer[] targets = transfer.buffers(deadline);
      long[] results =
          lanes.batchAnswers(
              Lane.RETRIEVE,
              count,
              MIN_BATCH_CHUNK,
              long[]::new,
              sliced(group, targets, (k, b) -> store.batchGetInto(k, b, deadline)));
      for (int i = 0; i < count; i++) {
        ReadPolicy rule = ReadPolicy.forEntryRead(results[i]);
        if (rule == ReadPolicy.VALUE) {
          long owner = StoreKeyHash.of(group[i]);
          ValueHeader.Checked checked = ValueHeader.copyChecked(targets[i], 0, results[i], owner);
          if (checked.defect() == null) {
            found[from + i] = decode(group[i], targets[i], checked.payload());
          } else { // not the key's value (see INTEGRITY_RETRIES): read again singly
            mismatch(group[i], checked.defect());
            String key = group[i];
            found[from + i] = lanes.call(Lane.RETRIEVE, () -> readNow(key, owner, deadline));
          }
        } else if (rule != ReadPolicy.ABSENT) {
          // too small, or a rule that repeats or fails: the single read applies the table
          found[from + i] = read(group[i], deadline);
        }
      }
    }
  }

  /**
   * Where the batch group starting at {@code from} ends: at {@code count} on a remote store (one
   * call, one round trip), else after about {@link #IN_PROCESS_GROUP_BYTES} of values (at least
   * one).
   */
  private int groupEnd(int from, int count, IntUnaryOperator bytesOf) {
    if (!store.inProcess()) {
      return count;
    }
    long bytes = bytesOf.applyAsInt(from);
    int end = from + 1;
    while (end < count && bytes + bytesOf.applyAsInt(end) <= IN_PROCESS_GROUP_BYTES) {
      bytes += bytesOf.applyAsInt(end++);
    }
    return end;
  }

  /**
   * The transfer buffers of one batch call. Small batches take one pool buffer cut into slices (one
   * acquire and one release instead of one per key: profiled, the per-key pool traffic cost more
   * than the copies of a 64 × 1 KiB getAll); larger ones take a buffer per key.
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

    /**
     * The buffers, sized as reserved: slices of one shared buffer, or one each; waiting for space
     * at most until the operation's {@code deadline}.
     */
    ByteBuffer[] buffers(Deadline deadline) {
      long total = 0;
      for (int size : sizes) {
        total += size;
      }
      if (total <= Math.min(MAX_SHARED, buffers.maxBufferSize())) {
        shared = buffers.acquire((int) total, deadline);
        int offset = 0;
        for (int i = 0; i < sizes.length; i++) {
          slices[i] = shared.slice(offset, sizes[i]);
          offset += sizes[i];
        }
      } else {
        for (int i = 0; i < sizes.length; i++) {
          slices[i] = buffers.acquire(sizes[i], deadline);
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

  /**
   * Stores {@code value} under {@code key}, replacing what is there. Mooncake's put never
   * overwrites, so this is remove (with force: reads hold leases) then put. Callers hold the key's
   * lock, so no writer of this JVM can slip in between. A replace is checked ({@link #putChecked})
   * unless the lock proved itself exclusive ({@link LockedKey#provedExclusive}).
   *
   * @param knownAbsent whether the caller knows the key to be absent (skips the remove)
   * @return whether the remove took an entry out (false when skipped)
   */
  boolean write(
      LockedKey locked, Object value, long expireAt, boolean knownAbsent, Deadline deadline) {
    locked.changing();
    Codec.Encoded encoded = codec.encode(value);
    boolean removed =
        putBytes(locked, encoded.format(), encoded.bytes(), expireAt, knownAbsent, deadline);
    remember(locked, encoded, expireAt);
    return removed;
  }

  /**
   * After a put of {@code encoded} answered: a lock that carries something between operations (a
   * kept cluster lock) carries the entry to its next step ({@link RememberedEntry}), as a private
   * copy of the bytes (a {@code byte[]} value's are its caller's).
   */
  private void remember(LockedKey locked, Codec.Encoded encoded, long expireAt) {
    if (locked.remembers() && encoded.bytes().length <= RememberedEntry.MAX_PAYLOAD) {
      locked.remember(new StoredEntry(encoded.format(), expireAt, encoded.bytes().clone(), codec));
    }
  }

  /**
   * Removes whatever is under {@code key}, then stores {@code value} (a write that did not read the
   * old entry). Answers whether something was removed.
   *
   * <p>The lock's read-back tells whether the key is absent (then no remove). The put after the
   * remove is checked ({@link #putChecked}) unless the lock proved exclusive across the cluster
   * ({@link LockedKey#provedExclusive} gives the argument). That saves the blind put over a present
   * key the round trip that kept it above two more than {@code local}.
   */
  boolean replace(LockedKey locked, Object value, long expireAt, Deadline deadline) {
    locked.changing();
    String key = locked.key();
    Removal removal =
        trustAbsent(locked.knownAbsent()) ? Removal.ABSENT : deleteNow(locked, deadline);
    Codec.Encoded encoded = codec.encode(value);
    ByteBuffer buffer = headed(key, encoded.format(), encoded.bytes(), expireAt, deadline);
    try {
      putChecked(locked, buffer, mustCheck(removal, locked), deadline);
    } finally {
      buffers.release(buffer);
    }
    remember(locked, encoded, expireAt);
    return removal == Removal.REMOVED;
  }

  /**
   * One value to write in a batch.
   *
   * @param locked the key, locked: asked before each mutation of it
   * @param value the value to encode
   * @param expireAt its expiry time
   * @param knownAbsent whether the caller knows the key to be absent (skips the remove)
   */
  record Write(LockedKey locked, Object value, long expireAt, boolean knownAbsent) {
    /** The store key. */
    String key() {
      return locked.key();
    }
  }

  /**
   * Writes many values: removes the keys not known to be absent, then one batch put. Answers, per
   * write, whether the remove found an object (for callers that did not read first). A write that
   * fails (its encoding, its remove, its lock's proof, its put, or the batch put it was part of)
   * does not stop the others; the first failure is thrown once all were tried.
   */
  boolean[] writeAll(List<Write> writes, Deadline deadline) {
    RuntimeException[] failures = new RuntimeException[writes.size()];
    boolean[] replaced = writeAll(writes, failures, deadline);
    for (RuntimeException failure : failures) {
      if (failure != null) {
        throw failure;
      }
    }
    return replaced;
  }

  /** {@link #writeAll(List, Deadline)} with each write's failure its own, in {@code failures}. */
  boolean[] writeAll(List<Write> writes, RuntimeException[] failures, Deadline deadline) {
    boolean[] replaced = new boolean[writes.size()];
    Codec.Encoded[] encoded = new Codec.Encoded[writes.size()];
    List<Integer> encodable = new ArrayList<>(encoded.length);
    for (int i = 0; i < encoded.length; i++) {
      writes.get(i).locked().changing();
      try {
        encoded[i] = codec.encode(writes.get(i).value());
        encodable.add(i);
      } catch (RuntimeException e) {
        failures[i] = e;
      }
    }
    for (int from = 0; from < encodable.size(); ) {
      int start = from;
      int to =
          groupEnd(
              from,
              encodable.size(),
              i -> ValueHeader.OVERHEAD + encoded[encodable.get(i)].bytes().length);
      List<Integer> group = encodable.subList(start, to);
      try {
        writeGroup(writes, group, encoded, replaced, failures, deadline);
      } catch (RuntimeException e) {
        for (int i : group) {
          if (failures[i] == null) {
            failures[i] = e; // the batch's own failure (its buffers, its put) is each write's
          }
        }
      }
      from = to;
    }
    return replaced;
  }

  /**
   * Writes the writes at {@code group}'s indexes: removes their keys not known to be absent, then
   * one batch put of those still to write; sets {@code replaced} and {@code failures} at those
   * indexes. Throws what fails the whole group.
   */
  private void writeGroup(
      List<Write> writes,
      List<Integer> group,
      Codec.Encoded[] encoded,
      boolean[] replaced,
      RuntimeException[] failures,
      Deadline deadline) {
    try (Transfer transfer = new Transfer(group.size())) {
      for (int g = 0; g < group.size(); g++) {
        transfer.reserve(g, ValueHeader.OVERHEAD + encoded[group.get(g)].bytes().length);
      }
      ByteBuffer[] values = transfer.buffers(deadline);
      List<Integer> toPut = new ArrayList<>(group.size()); // positions in group
      boolean[] stuck = new boolean[group.size()]; // a put in flight that may never land
      for (int g = 0; g < group.size(); g++) {
        int i = group.get(g);
        Write write = writes.get(i);
        fill(values[g], write.key(), encoded[i].format(), encoded[i].bytes(), write.expireAt());
        try {
          if (!trustAbsent(write.knownAbsent())) {
            Removal removal = deleteNow(write.locked(), deadline);
            replaced[i] = removal == Removal.REMOVED;
            stuck[g] = removal == Removal.STUCK_PUT;
          }
          write.locked().ensureHeld();
          toPut.add(g);
        } catch (RuntimeException e) {
          failures[i] = e;
        }
      }
      if (toPut.isEmpty()) {
        return;
      }
      String[] keys = new String[toPut.size()];
      ByteBuffer[] puts = new ByteBuffer[toPut.size()];
      for (int p = 0; p < keys.length; p++) {
        keys[p] = writes.get(group.get(toPut.get(p))).key();
        puts[p] = values[toPut.get(p)];
      }
      int[] results =
          lanes.batchAnswers(
              Lane.STORE,
              keys.length,
              MIN_BATCH_CHUNK,
              int[]::new,
              sliced(keys, puts, (k, b) -> store.batchPut(k, b, deadline)));
      List<Integer> toCheck = new ArrayList<>();
      for (int p = 0; p < keys.length; p++) {
        int g = toPut.get(p);
        int i = group.get(g);
        Write write = writes.get(i);
        try {
          boolean ok = StoreStatus.of(results[p]) == StoreStatus.OK;
          if (ok && stuck[g]) {
            putChecked(write.locked(), values[g], true, deadline); // a put that never landed
          } else if (ok && replaced[i]) {
            toCheck.add(g); // a put right after a remove may be dropped: see putChecked
          } else if (!ok && !StoreStatus.isTransientForWrites(results[p])) {
            failures[i] = failure("batch put", keys[p], results[p]);
          } else if (!ok) {
            putChecked(write.locked(), values[g], true, deadline); // in flight: retried singly
          }
        } catch (RuntimeException e) {
          failures[i] = e;
        }
      }
      checkBatchStored(writes, group, values, toCheck, failures, deadline);
    }
  }

  /**
   * Stores an entry read earlier again with a new expiry time (access expiry), no re-encoding;
   * checked as {@link #write} is.
   */
  void rewrite(LockedKey locked, StoredEntry entry, long expireAt, Deadline deadline) {
    locked.changing();
    putBytes(locked, entry.format(), entry.payload(), expireAt, false, deadline);
  }

  /**
   * Puts back an entry this step removed itself ({@link #removeFirst}) with {@code expireAt}: no
   * remove, and unchecked, as any put after this lock's own remove.
   */
  void restore(LockedKey locked, StoredEntry entry, long expireAt, Deadline deadline) {
    locked.changing();
    putBytes(locked, entry.format(), entry.payload(), expireAt, true, deadline);
  }

  /**
   * A remembered entry ({@link RememberedEntry}: written under the key by any cache of this JVM on
   * the lock's connection) as this cache reads it: through its own codec and value-type check, as a
   * read from the store would be; a {@code byte[]} payload copied, since a caller may be handed it.
   */
  StoredEntry adopt(String key, StoredEntry remembered) {
    byte format = remembered.format();
    if (!bytesAllowed && format == TypedCodec.BYTES_FORMAT) {
      throw ValueTypeCodec.wrongType(key, cacheName, byte[].class);
    }
    byte[] payload = remembered.payload();
    return new StoredEntry(
        format,
        remembered.expireAt(),
        format == TypedCodec.BYTES_FORMAT ? payload.clone() : payload,
        codec);
  }

  /**
   * The remove that opens a step on a remembered entry ({@link RememberedEntry}): the lock's proof
   * renewed for the put that follows, then a forced remove. Answers what it found.
   */
  Removal removeFirst(LockedKey locked, Deadline deadline) {
    return deleteNow(locked, deadline);
  }

  private boolean putBytes(
      LockedKey locked,
      byte format,
      byte[] payload,
      long expireAt,
      boolean absent,
      Deadline deadline) {
    ByteBuffer buffer = headed(locked.key(), format, payload, expireAt, deadline);
    try {
      Removal removal = trustAbsent(absent) ? Removal.ABSENT : deleteNow(locked, deadline);
      putChecked(locked, buffer, mustCheck(removal, locked), deadline);
      return removal == Removal.REMOVED;
    } finally {
      buffers.release(buffer);
    }
  }

  /**
   * Puts {@code value}; after a remove ({@code replacing}), checks that the store now holds an
   * object of the value's size. Mooncake has been seen to answer OK to a put that followed a remove
   * and store nothing (readers then saw the key absent for seconds): such a put, and an answer that
   * the key is still busy (-703, -706), is retried with remove then put until the operation's
   * {@code deadline} (its start plus {@code operation_timeout_ms}, shared with its lock and the
   * removes before and inside the retries); then the failure names the cache, the key and the
   * status. A put on a key known to be absent is not checked: a create is not dropped that way, and
   * the check would cost every create a round trip. Over a put in flight that never lands (its
   * writer killed), each retry's put is the PutStart that lets Mooncake discard it once it is old
   * enough ({@link StoreStatus#STUCK_PUT_NANOS}).
   */
  private void putChecked(
      LockedKey locked, ByteBuffer value, boolean replacing, Deadline deadline) {
    String key = locked.key();
    for (int attempt = 0; ; attempt++) {
      locked.ensureHeld();
      long result =
          lanes.runsHere(Lane.STORE) // the common case made here: two frames less per put
              ? store.put(key, value, deadline)
              : lanes.callLong(Lane.STORE, () -> store.put(key, value, deadline));
      boolean ok = StoreStatus.of(result) == StoreStatus.OK;
      if (ok && !replacing) {
        return;
      }
      if (ok) {
        long size = lanes.callLong(Lane.STORE, () -> store.getSize(key, deadline));
        if (size == value.remaining()) {
          return;
        }
        if (deadline.expired()) {
          throw new CacheException(
              "put on cache '"
                  + cacheName
                  + "' was dropped for store key '"
                  + key
                  + "': the store answered OK but holds "
                  + (size < 0
                      ? StoreStatus.describe(size)
                      : size + " bytes instead of " + value.remaining())
                  + ", still after "
                  + retriesFor(deadline)
                  + " ("
                  + store.describe()
                  + ")");
        }
      } else if (!StoreStatus.isTransientForWrites(result)) {
        throw failure("put", key, result);
      } else if (deadline.expired()) {
        throw failure("put", key, result, retriesFor(deadline));
      }
      backOff(attempt);
      deleteNow(locked, deadline);
      replacing = true;
    }
  }

  /**
   * Checks the replaced objects of a batch put as {@link #putChecked} does, in one batch call:
   * {@code positions} in {@code group}, whose indexes are in {@code writes}. A failed check is the
   * failure of each write it was to check.
   */
  private void checkBatchStored(
      List<Write> writes,
      List<Integer> group,
      ByteBuffer[] values,
      List<Integer> positions,
      RuntimeException[] failures,
      Deadline deadline) {
    if (positions.isEmpty()) {
      return;
    }
    String[] checked = new String[positions.size()];
    for (int c = 0; c < checked.length; c++) {
      checked[c] = writes.get(group.get(positions.get(c))).key();
    }
    int[] present;
    try {
      present = lanes.call(Lane.STORE, () -> store.batchIsExist(checked, deadline));
    } catch (RuntimeException e) {
      for (int g : positions) {
        failures[group.get(g)] = e;
      }
      return;
    }
    for (int c = 0; c < checked.length; c++) {
      if (present[c] != 1) {
        int g = positions.get(c);
        Write write = writes.get(group.get(g));
        try {
          deleteNow(write.locked(), deadline);
          putChecked(write.locked(), values[g], true, deadline);
        } catch (RuntimeException e) {
          failures[group.get(g)] = e;
        }
      }
    }
  }

  /** The pause of {@code rule} before a read repeats (the {@code tries.made(rule)}-th time). */
  private static void pause(ReadPolicy rule, ReadPolicy.Tries tries) {
    if (rule.pause() == ReadPolicy.Pause.SPIN) {
      Thread.onSpinWait();
    } else {
      backOff(tries.made(rule) - 1);
    }
  }

  /** A short pause between retries: 1, 2, 4 … 16 ms, so a put in flight can land. */
  private static void backOff(int attempt) {
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1L << Math.min(attempt, 4)));
  }

  /** For messages: the operation's bound and what was spent of it. */
  private String retriesFor(Deadline deadline) {
    return "retrying until the operation's deadline ("
        + (deadline.isNone()
            ? "operation_timeout_ms " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
            : deadline.describe())
        + ")";
  }

  /**
   * Zero-copy write: stores {@code value[position, limit)} as a {@code byte[]} value, writing the
   * header into the {@link ValueHeader#SIZE} bytes before its position and the trailer into the
   * {@link ValueHeader#TRAILER} bytes after its limit. No byte is copied in Java; the store
   * transfers straight from the caller's buffer.
   */
  void writeInPlace(
      LockedKey locked, ByteBuffer value, long expireAt, boolean knownAbsent, Deadline deadline) {
    locked.changing();
    String key = locked.key();
    int start = value.position() - ValueHeader.SIZE;
    if (start < 0) {
      throw new IllegalArgumentException(
          "a zero-copy value needs "
              + ValueHeader.SIZE
              + " free bytes before its position for the header; its position is "
              + value.position());
    }
    if (value.capacity() - value.limit() < ValueHeader.TRAILER) {
      throw new IllegalArgumentException(
          "a zero-copy value needs "
              + ValueHeader.TRAILER
              + " free bytes after its limit for the checksum; its limit is "
              + value.limit()
              + ", its capacity "
              + value.capacity());
    }
    ByteBuffer whole = value.duplicate().limit(value.limit() + ValueHeader.TRAILER).position(start);
    ValueHeader.write(
        whole, start, TypedCodec.BYTES_FORMAT, expireAt, value.remaining(), StoreKeyHash.of(key));
    Removal removal = trustAbsent(knownAbsent) ? Removal.ABSENT : deleteNow(locked, deadline);
    putChecked(locked, whole, removal != Removal.ABSENT, deadline);
  }

  /**
   * Zero-copy read into {@code destination} at its position (header first). Answers the entry's
   * expiry time, or {@link ExpiryTimes#ABSENT}; on success the destination's position and limit
   * frame the payload. No byte is copied in Java. The store transfers before the bytes are checked,
   * so whatever an attempt may have written is zeroed before the next attempt, and before a miss or
   * a failure is answered ({@link InPlaceRead}): the caller's {@code [position, limit)} then holds
   * its own bytes or zeros, never unchecked ones.
   */
  long readInPlace(String key, ByteBuffer destination, Deadline deadline) {
    InPlaceRead read = new InPlaceRead(destination);
    boolean hit = false;
    try {
      long expireAt = readInPlaceChecked(key, destination, read, deadline);
      hit = expireAt != ExpiryTimes.ABSENT;
      return expireAt;
    } finally {
      if (!hit) {
        read.scrub();
      }
    }
  }

  /** One zero-copy transfer, noted in {@code read}: what it may have written into the caller's. */
  private long transferInto(
      String key, ByteBuffer destination, InPlaceRead read, Deadline deadline) {
    try {
      return read.answered(
          lanes.callLong(Lane.RETRIEVE, () -> store.getInto(key, destination, deadline)));
    } catch (RuntimeException | Error e) {
      read.threw();
      throw e;
    }
  }

  private long readInPlaceChecked(
      String key, ByteBuffer destination, InPlaceRead read, Deadline deadline) {
    int start = read.start();
    long owner = StoreKeyHash.of(key);
    int mismatches = 0;
    ReadPolicy.Tries tries = new ReadPolicy.Tries();
    while (true) {
      long length = transferInto(key, destination, read, deadline);
      ReadPolicy rule = ReadPolicy.forEntryRead(length);
      if (rule == ReadPolicy.VALUE) {
        ValueHeader.Defect defect = ValueHeader.defect(destination, start, length, owner);
        if (defect == null) {
          return framePayload(key, destination, start, length);
        }
        mismatch(key, defect); // not the key's value (see INTEGRITY_RETRIES): ask again
        if (mismatches >= INTEGRITY_RETRIES || deadline.expired()) {
          throw ValueHeader.refused(destination, start, length, key, defect);
        }
        backOff(mismatches++);
      } else if (tries.again(rule, deadline)) {
        pause(rule, tries);
      } else if (rule.end() == ReadPolicy.End.ABSENT) {
        return ExpiryTimes.ABSENT;
      } else if (rule.end() == ReadPolicy.End.UNREACHABLE) {
        unreachable(key);
        return ExpiryTimes.ABSENT;
      } else {
        throw inPlaceFailure(key, destination, length, deadline);
      }
      read.scrub(); // another key's bytes must not outlive the check, even under a shorter value
    }
  }

  /** A zero-copy read's failure: a destination too small for the value says so. */
  private CacheException inPlaceFailure(
      String key, ByteBuffer destination, long code, Deadline deadline) {
    long size = store.getSize(key, deadline);
    if (size > destination.remaining()) {
      return new CacheException(
          "get on cache '"
              + cacheName
              + "': the value of '"
              + key
              + "' needs "
              + size
              + " bytes, the destination has "
              + destination.remaining());
    }
    return failure("get", key, code);
  }

  /**
   * Frames the payload of the checked value at {@code destination[start]}: position and limit;
   * answers its expiry time.
   */
  private long framePayload(String key, ByteBuffer destination, int start, long length) {
    if (ValueHeader.format(destination, start) != TypedCodec.BYTES_FORMAT) {
      throw new CacheException(
          "get on cache '"
              + cacheName
              + "': the value of '"
              + key
              + "' is not a byte[] (format "
              + ValueHeader.format(destination, start)
              + ")");
    }
    long expireAt = ValueHeader.expireAt(destination, start);
    destination
        .limit(start + (int) length - ValueHeader.TRAILER)
        .position(start + ValueHeader.SIZE);
    return expireAt;
  }

  /**
   * A read whose object the store lists but cannot transfer (-800, its segment unreachable: the JVM
   * that held it died): counted, logged at most once per {@link #UNREACHABLE_LOG_NANOS}, and
   * answered as absent (null). Writes distrust "known absent" for a while after (see {@link
   * #DISTRUST_ABSENT_NANOS}).
   */
  private StoredEntry unreachable(String key) {
    long now = ticker.nanos();
    lastUnreachableRead = now == 0 ? 1 : now;
    if (unreachableReads.count(now)) {
      LOG.warn(
          "cache '{}': store key '{}' is listed but its segment cannot be reached ({}); read as"
              + " absent ({} such reads so far; more are not logged for {} s) ({})",
          cacheName,
          key,
          StoreStatus.TRANSFER_FAIL.describe(),
          unreachableReads.sum(),
          unreachableReads.intervalSeconds(),
          store.describe());
    }
    return null;
  }

  /** Reads answered "absent" because the object's segment could not be reached (-800). */
  public long unreachableReads() {
    return unreachableReads.sum();
  }

  /**
   * Bytes read under a key that were not its whole value (another key's object, a torn mix, no
   * header): each was read again, never returned. Counted, and logged at WARN at most once per
   * {@link #MISMATCH_LOG_NANOS} per cache.
   */
  private void mismatch(String key, ValueHeader.Defect defect) {
    if (integrityMismatches.count(ticker.nanos())) {
      LOG.warn(
          "cache '{}': a read of store key '{}' got an object that {}; read again, never returned"
              + " ({} such reads so far; more are not logged for {} s) ({})",
          cacheName,
          key,
          defect.phrase(),
          integrityMismatches.sum(),
          integrityMismatches.intervalSeconds(),
          store.describe());
    }
  }

  /** Reads whose bytes were not the key's whole value, each read again (never returned). */
  public long integrityMismatches() {
    return integrityMismatches.sum();
  }

  /** A caller's "known absent", unless a read recently found an unreachable object (see above). */
  private boolean trustAbsent(boolean knownAbsent) {
    long last = lastUnreachableRead;
    return knownAbsent && (last == 0 || ticker.nanos() - last >= DISTRUST_ABSENT_NANOS);
  }

  /** The bytes this cache has copied in Java to encode or decode values (zero-copy adds none). */
  public long copiedBytes() {
    return copiedBytes.sum();
  }

  /**
   * A pool buffer holding header, payload and trailer, limited to their length; waits for space at
   * most until the operation's {@code deadline}.
   */
  private ByteBuffer headed(
      String key, byte format, byte[] payload, long expireAt, Deadline deadline) {
    ByteBuffer buffer = buffers.acquire(ValueHeader.OVERHEAD + payload.length, deadline);
    try {
      return fill(buffer, key, format, payload, expireAt);
    } catch (RuntimeException e) {
      buffers.release(buffer);
      throw e;
    }
  }

  /**
   * Writes header, payload and checksum for {@code key}'s value at the start of {@code buffer} and
   * limits it to them.
   */
  private ByteBuffer fill(
      ByteBuffer buffer, String key, byte format, byte[] payload, long expireAt) {
    buffer.put(ValueHeader.SIZE, payload);
    ValueHeader.write(buffer, 0, format, expireAt, payload.length, StoreKeyHash.of(key));
    copiedBytes.add(payload.length);
    return buffer.limit(ValueHeader.OVERHEAD + payload.length);
  }

  /**
   * Removes the key's object; true when there was one (a put in flight that never lands is not one:
   * see {@link StoreStatus#STUCK_PUT_NANOS}).
   */
  boolean delete(LockedKey locked, Deadline deadline) {
    locked.changing();
    return removeNow(locked, false, deadline) == Removal.REMOVED;
  }

  /**
   * {@link #removeNow} where a put follows: the lock's proof must last for both first ({@link
   * LockedKey#ensureHeldToReplace}), since a put refused after the remove loses the entry.
   */
  private Removal deleteNow(LockedKey locked, Deadline deadline) {
    return removeNow(locked, true, deadline);
  }

  /**
   * Removes with force; an object whose put is in flight (-703) or that is leased (-706) is retried
   * until the operation's {@code deadline}: another JVM's write of the key is about to land, and
   * callers must not see that as an error. A put in flight for {@link StoreStatus#STUCK_PUT_NANOS}
   * is reported instead ({@link Removal#STUCK_PUT}): it may never land.
   */
  private Removal removeNow(LockedKey locked, boolean putFollows, Deadline deadline) {
    String key = locked.key();
    StuckPutWatch inFlight = new StuckPutWatch();
    for (int attempt = 0; ; attempt++) {
      if (attempt == 0 && putFollows) {
        locked.ensureHeldToReplace(deadline);
      } else {
        locked.ensureHeld();
      }
      long result = lanes.callLong(Lane.DELETE, () -> store.remove(key, true, deadline));
      StoreStatus status = StoreStatus.of(result);
      if (status == StoreStatus.OK) {
        return Removal.REMOVED;
      }
      if (status == StoreStatus.OBJECT_NOT_FOUND) {
        return Removal.ABSENT;
      }
      if (!StoreStatus.isTransientForWrites(result)) {
        throw failure("remove", key, result);
      }
      if (status == StoreStatus.REPLICA_IS_NOT_READY && inFlight.stuckAt(ticker.nanos())) {
        return Removal.STUCK_PUT;
      }
      if (deadline.expired()) {
        throw failure("remove", key, result, retriesFor(deadline));
      }
      backOff(attempt);
    }
  }

  /**
   * Whether the put after {@code removal} must be checked ({@link #putChecked}): after a remove,
   * unless the lock proved itself exclusive ({@link LockedKey#provedExclusive}); after a put in
   * flight that did not land, always (Mooncake answers 0 to a put over it and stores nothing until
   * it discards the old one).
   */
  private static boolean mustCheck(Removal removal, LockedKey locked) {
    return removal == Removal.STUCK_PUT
        || (removal == Removal.REMOVED && !locked.provedExclusive());
  }

  /** Removes every object whose key starts with {@code prefix}; the count removed. */
  long deleteByPrefix(String prefixPattern, Deadline deadline) {
    long result =
        lanes.callLong(Lane.DELETE, () -> store.removeByRegex(prefixPattern, true, deadline));
    if (result < 0) {
      throw failure("remove_by_regex", prefixPattern, result);
    }
    return result;
  }

  /**
   * The entry whose header is at {@code buffer[0]} and whose {@code payload} {@link
   * ValueHeader#copyChecked} copied out and found whole.
   */
  private StoredEntry decode(String key, ByteBuffer buffer, byte[] payload) {
    if (!bytesAllowed && ValueHeader.format(buffer, 0) == TypedCodec.BYTES_FORMAT) {
      throw ValueTypeCodec.wrongType(key, cacheName, byte[].class);
    }
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
          "get on cache '"
              + cacheName
              + "' failed: stored object '"
              + key
              + "' has "
              + needed
              + " bytes, more than the largest transfer buffer ("
              + buffers.maxBufferSize()
              + " bytes, local_buffer_size)");
    }
    return (int) needed;
  }

  /**
   * A batch call of {@code call} over items {@code [from, to)} of {@code keys} and {@code buffers}.
   */
  private static <A> Lanes.BatchCall<A> sliced(
      String[] keys, ByteBuffer[] buffers, BiFunction<String[], ByteBuffer[], A> call) {
    return (from, to) ->
        call.apply(Arrays.copyOfRange(keys, from, to), Arrays.copyOfRange(buffers, from, to));
  }

  private StoreException failure(String operation, String key, long code) {
    return failure(operation, key, code, null);
  }

  /** {@code after}: the retries the failure survived, or null when it came at the first try. */
  private StoreException failure(String operation, String key, long code, String after) {
    return new StoreException(
        operation
            + " on cache '"
            + cacheName
            + "' failed for store key '"
            + key
            + "': "
            + StoreStatus.describe(code)
            + (after == null ? "" : ", still after " + after)
            + " ("
            + store.describe()
            + ")",
        code);
  }
}
