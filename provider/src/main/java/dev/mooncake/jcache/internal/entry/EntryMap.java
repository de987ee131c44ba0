package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.expiry.ExpiryQueue;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One cache's entries as a map with one atomic step, in the spirit of {@code ConcurrentMap.compute}
 * (Caffeine's {@code CacheProxy} writes every JCache operation on {@code asMap().compute}). It owns
 * what makes a step atomic and a read safe: the key locks, the key index, the expiry queue and the
 * read protocol. It knows nothing of JCache (statistics, events, loaders, writers, processors): the
 * cache's {@link Remapping} decides, this map applies.
 *
 * <p><b>The step.</b> {@link #compute} takes the key's lock, reads the live entry (an expired one
 * is removed first and reported as expired), asks the remapping for a {@link Decision}, applies it
 * to the store and reports the change to the {@link Listener}, all before the lock is released, and
 * answers an {@link Outcome}. Taking the lock ({@link EntryLocks}) answers a {@link LockedKey}: the
 * entry read under the lock and the lock's proof. Every mutator of {@link EntryStorage} takes the
 * locked key and asks the proof right before each remove and put, retries included, so a
 * distributed lock that lost its lease writes nothing more; and whether a put may skip its
 * dropped-put check is the locked key's to say, not a flag passed along here. The mutators are
 * called here directly, not through the locked key: a put reaches the store in as few frames as it
 * can (docs/architecture.md, "Call paths").
 *
 * <p><b>The read protocol.</b> Mooncake's put never overwrites, so a writer replaces a value by
 * remove-then-put and an unlocked read can fall into that gap. {@link #get} takes a read stamp,
 * reads without the lock and, when it finds nothing but a writer may have held the key meanwhile
 * ({@link KeyLocks#mayHaveChanged}), reads again under the lock; an expired entry is read under the
 * lock too, which removes it. Written once here, for single reads, batches and zero-copy reads.
 *
 * @param <K> the cache's key type (handed back to the listener)
 */
public final class EntryMap<K> {

  /** Decides what a step does with the live entry ({@code null} when absent); runs locked. */
  @FunctionalInterface
  public interface Remapping {
    Decision remap(StoredEntry current);
  }

  /**
   * Hears of every change the map makes, under the key's lock, right after the store reflects it:
   * where the cache publishes its events (in key order, as the lock orders the changes).
   */
  public interface Listener<K> {
    /**
     * A value was written over {@code previous} (null when there was none, or when the write did
     * not read it: then {@code replacedUnread} tells whether something was replaced).
     */
    void written(K key, Object value, StoredEntry previous, boolean replacedUnread);

    /** A live entry was removed. */
    void removed(K key, StoredEntry previous);

    /** An expired entry was found and removed. */
    void expired(K key, StoredEntry entry);
  }

  /** How the expiry time of a batch write is chosen from the live entry. */
  @FunctionalInterface
  public interface WriteExpiry {
    /** The expiry time, or {@link ExpiryTimes#NOT_STORED} to skip this write. */
    long expireAt(StoredEntry current);
  }

  /** One write of a batch. */
  public record Put<K>(String storeKey, K key, Object value) {}

  /** One step of a batch ({@link #computeAll}): the key and what to decide for it. */
  public record Step<K>(String storeKey, K key, Remapping remapping) {}

  /** A step's answer in a batch: its outcome, or the exception the step alone would have thrown. */
  public record StepResult(Outcome outcome, RuntimeException failure) {
    static StepResult failed(RuntimeException failure) {
      return new StepResult(null, failure);
    }
  }

  private final EntryStorage storage;
  private final EntryLocks locks;
  private final KeyPresence presence;
  private final Ticker ticker;
  private final Function<String, K> cacheKeys;
  private final Listener<K> listener;
  private final KeyIndex index = new KeyIndex();
  private final ExpiryQueue expiring = new ExpiryQueue();

  /**
   * @param cacheKeys the cache key of a store key (for entries found by the sweeper)
   * @param listener hears of every change
   */
  public EntryMap(
      EntryStorage storage,
      KeyLocks locks,
      Ticker ticker,
      Function<String, K> cacheKeys,
      Listener<K> listener) {
    this.storage = storage;
    this.locks = new EntryLocks(storage, locks);
    this.presence = storage.presence();
    this.ticker = ticker;
    this.cacheKeys = cacheKeys;
    this.listener = listener;
  }

  /** The store beneath (buffers for zero-copy callers, copied-bytes counts). */
  public EntryStorage storage() {
    return storage;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  /** The live entry under the key, or null; takes the lock only when the protocol says so. */
  public StoredEntry get(K key, String storeKey, Deadline deadline) {
    long stamp = locks.readStamp(storeKey);
    StoredEntry entry = storage.read(storeKey, deadline);
    if (entry == null
        ? locks.mayHaveChanged(storeKey, stamp)
        : entry.isExpired(ticker.epochMillis())) {
      return getLocked(key, storeKey, deadline); // waits out a writer, or expires the entry
    }
    return entry;
  }

  /**
   * Whether an entry is under the key, for a cache whose entries cannot expire: the store's
   * metadata answers ({@link KeyPresence}, {@code is_exist}), no value is read. An absent answer is
   * confirmed under the lock as {@link #get}'s is, when a writer may have held the key meanwhile
   * (under {@code cluster}, always: another JVM may be between its remove and its put).
   */
  public boolean containsUnread(K key, String storeKey, Deadline deadline) {
    long stamp = locks.readStamp(storeKey);
    if (presence.exists(storeKey, deadline)) {
      return true;
    }
    return locks.mayHaveChanged(storeKey, stamp) && getLocked(key, storeKey, deadline) != null;
  }

  /**
   * {@link #containsUnread} for many keys: one {@code batch_is_exist} per lookup-lane chunk, each
   * absent answer confirmed as there. Index i for key i.
   */
  public boolean[] containsAllUnread(List<K> keys, String[] storeKeys, Deadline deadline) {
    long[] stamps = new long[storeKeys.length];
    for (int i = 0; i < storeKeys.length; i++) {
      stamps[i] = locks.readStamp(storeKeys[i]);
    }
    boolean[] present = presence.existAll(storeKeys, deadline);
    for (int i = 0; i < storeKeys.length; i++) {
      if (!present[i] && locks.mayHaveChanged(storeKeys[i], stamps[i])) {
        present[i] = getLocked(keys.get(i), storeKeys[i], deadline) != null;
      }
    }
    return present;
  }

  /**
   * The live entries of many keys in one batch read: index i for key i, null when absent. The batch
   * read and the locked re-reads after it share {@code deadline}.
   */
  public StoredEntry[] getAll(List<K> keys, String[] storeKeys, Deadline deadline) {
    long[] stamps = new long[storeKeys.length];
    for (int i = 0; i < storeKeys.length; i++) {
      stamps[i] = locks.readStamp(storeKeys[i]);
    }
    StoredEntry[] found = storage.readAll(storeKeys, deadline);
    long now = ticker.epochMillis();
    for (int i = 0; i < storeKeys.length; i++) {
      StoredEntry entry = found[i];
      if (entry == null ? locks.mayHaveChanged(storeKeys[i], stamps[i]) : entry.isExpired(now)) {
        found[i] = getLocked(keys.get(i), storeKeys[i], deadline);
      }
    }
    return found;
  }

  private StoredEntry getLocked(K key, String storeKey, Deadline deadline) {
    try (LockedKey locked = locks.lock(storeKey, deadline)) {
      return live(key, locked, deadline);
    }
  }

  /**
   * The entry read with the lock held (by the lock's own read-back where it makes one: see {@link
   * KeyLocks#lock}); an expired entry is removed, reported, and read as absent.
   */
  private StoredEntry live(K key, LockedKey locked, Deadline deadline) {
    RememberedEntry.Gap gap = locked.gap();
    if (gap != null && !gap.overtaken) {
      return gap.current; // this thread's outer step removed the entry and holds it
    }
    StoredEntry entry = locked.entry();
    if (entry != null && entry.isExpired(ticker.epochMillis())) {
      String storeKey = locked.key();
      if (storage.delete(locked, deadline)) {
        index.remove(storeKey);
        listener.expired(key, entry);
      }
      return null;
    }
    return entry;
  }

  // ---------------------------------------------------------------------------------------------
  // The atomic step

  /** One atomic step on the key: read the live entry, decide, apply, report. */
  public Outcome compute(K key, String storeKey, Remapping remapping, Deadline deadline) {
    try (LockedKey locked = locks.lock(storeKey, deadline)) {
      return computeLocked(key, locked, remapping, deadline);
    }
  }

  private Outcome computeLocked(K key, LockedKey locked, Remapping remapping, Deadline deadline) {
    StoredEntry current = live(key, locked, deadline);
    int changes = LockedKey.changesOnThisThread();
    Decision decision = remapping.remap(current);
    boolean changedUnder = LockedKey.changesOnThisThread() != changes;
    return new Outcome(
        current, decision, applyNested(key, locked, current, decision, changedUnder, deadline));
  }

  /**
   * {@link #compute} for a step that will most likely write or remove a present entry (a put that
   * reads the old entry, {@code getAndPut}, {@code replace(k, v)}, {@code remove(k)}, {@code
   * invoke}): on a key whose cluster lock this JVM kept since its own last write of it, the entry
   * it remembers is used instead of a read ({@link RememberedEntry}): remove first, decide on what
   * the remove proved, put. A write then costs remove + put, a removal one remove; a step that
   * decides to keep the entry puts it back (one call more than a read), and does not remember it
   * again, so a run of such steps reads as {@link #compute} does.
   */
  public Outcome computeRemembered(K key, String storeKey, Remapping remapping, Deadline deadline) {
    try (LockedKey locked = locks.lock(storeKey, deadline)) {
      StoredEntry remembered = locked.remembered();
      return remembered == null
          ? computeLocked(key, locked, remapping, deadline)
          : computeFrom(key, locked, remembered, remapping, deadline);
    }
  }

  private Outcome computeFrom(
      K key, LockedKey locked, StoredEntry remembered, Remapping remapping, Deadline deadline) {
    String storeKey = locked.key();
    StoredEntry adopted = storage.adopt(storeKey, remembered); // refused: nothing removed yet
    RememberedEntry.Gap gap = new RememberedEntry.Gap();
    locked.remember(gap); // before the remove: a step this thread nests on the key sees the gap
    try {
      EntryStorage.Removal removal = storage.removeFirst(locked, deadline);
      StoredEntry current = removal == EntryStorage.Removal.REMOVED ? adopted : null;
      if (removal == EntryStorage.Removal.STUCK_PUT) {
        gap.overtaken = true; // not the object we wrote: decide on absent, write as over any
      }
      if (current != null && current.isExpired(ticker.epochMillis())) {
        index.remove(storeKey);
        listener.expired(key, current);
        current = null;
      }
      gap.current = current;
      Decision decision;
      try {
        decision = remapping.remap(current);
      } catch (RuntimeException | Error e) {
        if (!gap.overtaken && current != null) {
          restoreSuppressing(locked, remembered, e, deadline);
        }
        throw e;
      }
      Prior prior = gap.overtaken ? Prior.CHANGED_UNDER : Prior.TAKEN_OUT;
      boolean changed = apply(key, locked, current, remembered, decision, prior, deadline);
      return new Outcome(current, decision, changed);
    } finally {
      locked.forget(gap); // unless the write carried its entry on
    }
  }

  /** Puts back the entry a failed step removed; a failure of that is added to {@code cause}. */
  private void restoreSuppressing(
      LockedKey locked, StoredEntry entry, Throwable cause, Deadline deadline) {
    try {
      storage.restore(locked, entry, entry.expireAt(), deadline);
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * {@link #apply} on the store as read, or as changed under the step when a step nested in it
   * changed the store while it decided ({@code changedUnder}); a step nested in another's gap that
   * changes the key marks it overtaken.
   */
  private boolean applyNested(
      K key,
      LockedKey locked,
      StoredEntry current,
      Decision decision,
      boolean changedUnder,
      Deadline deadline) {
    RememberedEntry.Gap gap = locked.gap();
    if (gap != null && decision.kind() != Decision.Kind.KEEP) {
      gap.overtaken = true;
    }
    Prior prior = changedUnder ? Prior.CHANGED_UNDER : Prior.AS_READ;
    return apply(key, locked, current, null, decision, prior, deadline);
  }

  /**
   * A step that does not read the entry first (a put that nothing about the old entry can change:
   * eternal entries, no listener for updates or expiries). The remapping sees null; a write removes
   * whatever is there and tells the listener whether something was. One store round trip less than
   * {@link #compute}. A lock that reads the key with its owner token tells whether it is absent,
   * and then the remove is skipped.
   */
  public Outcome computeUnread(K key, String storeKey, Remapping remapping, Deadline deadline) {
    try (LockedKey locked = locks.lock(storeKey, deadline)) {
      int changes = LockedKey.changesOnThisThread();
      Decision decision = remapping.remap(null);
      boolean changedUnder = LockedKey.changesOnThisThread() != changes;
      if (decision.kind() != Decision.Kind.WRITE) {
        return new Outcome(
            null, decision, applyNested(key, locked, null, decision, changedUnder, deadline));
      }
      RememberedEntry.Gap gap = locked.gap();
      if (gap != null) {
        gap.overtaken = true;
      }
      // a write nested in the remapping (a CacheWriter writing the key through the cache) came
      // after the lock's read: what it said of the key no longer holds, so the remove is made
      boolean existed =
          changedUnder
              ? storage.write(locked, decision.value(), decision.expireAt(), false, deadline)
              : storage.replace(locked, decision.value(), decision.expireAt(), deadline);
      written(key, storeKey, decision, null, existed);
      return new Outcome(null, decision, true);
    }
  }

  /** What the store holds for the key when a step applies its decision. */
  private enum Prior {
    /** {@code current}, as the step read it (or nothing, if it read none). */
    AS_READ,
    /**
     * Nothing of the step's: its own remove took the entry out ({@link #computeFrom}); a kept entry
     * is put back from the remembered copy (the remapping may have been handed its bytes).
     */
    TAKEN_OUT,
    /**
     * Not known: a step nested in this one wrote, or a put in flight was found stuck. A write
     * removes whatever is there first and is checked (a put into an occupied key stores nothing),
     * even when this step saw no entry; a touch or keep of what the step saw is no longer of the
     * entry there, and does nothing.
     */
    CHANGED_UNDER
  }

  /** Applies the decision through the locked key's mutators, over what {@code prior} says. */
  private boolean apply(
      K key,
      LockedKey locked,
      StoredEntry current,
      StoredEntry remembered,
      Decision decision,
      Prior prior,
      Deadline deadline) {
    String storeKey = locked.key();
    switch (decision.kind()) {
      case KEEP:
        if (prior == Prior.TAKEN_OUT && current != null) {
          storage.restore(locked, remembered, remembered.expireAt(), deadline);
        }
        return false;
      case TOUCH:
        if (current == null || prior == Prior.CHANGED_UNDER) {
          return false;
        }
        if (prior == Prior.TAKEN_OUT) {
          storage.restore(locked, remembered, decision.expireAt(), deadline);
          expiring.add(storeKey, decision.expireAt());
        } else if (decision.expireAt() != current.expireAt()) {
          storage.rewrite(locked, current, decision.expireAt(), deadline);
          expiring.add(storeKey, decision.expireAt());
        }
        return false;
      case WRITE:
        boolean knownAbsent =
            prior == Prior.TAKEN_OUT || (prior == Prior.AS_READ && current == null);
        storage.write(locked, decision.value(), decision.expireAt(), knownAbsent, deadline);
        written(key, storeKey, decision, current, false);
        return true;
      case REMOVE:
        if (prior == Prior.TAKEN_OUT) {
          index.remove(storeKey);
          if (current == null) {
            return false;
          }
          listener.removed(key, current);
          return true;
        }
        if (current == null) {
          return false;
        }
        boolean removed = storage.delete(locked, deadline);
        index.remove(storeKey);
        if (removed) {
          listener.removed(key, current);
        }
        return removed;
      default:
        throw new AssertionError(decision.kind());
    }
  }

  private void written(
      K key, String storeKey, Decision decision, StoredEntry previous, boolean replacedUnread) {
    index.add(storeKey);
    expiring.add(storeKey, decision.expireAt());
    listener.written(key, decision.value(), previous, replacedUnread);
  }

  /**
   * Writes many entries with one batch read and one batch put (see {@link #computeAll}). With
   * {@code unread} the live entries are not read. Answers how many entries were stored; the first
   * write that failed is thrown after the others were stored and reported.
   */
  public int putAll(List<Put<K>> sorted, boolean unread, WriteExpiry expiry, Deadline deadline) {
    List<Step<K>> steps = new ArrayList<>(sorted.size());
    for (Put<K> put : sorted) {
      steps.add(
          new Step<>(
              put.storeKey(),
              put.key(),
              current -> {
                long expireAt = unread ? ExpiryTimes.ETERNAL : expiry.expireAt(current);
                return expireAt == ExpiryTimes.NOT_STORED
                    ? Decision.KEEP
                    : Decision.write(put.value(), expireAt);
              }));
    }
    int stored = 0;
    RuntimeException first = null;
    for (StepResult result : computeAll(steps, unread, deadline)) {
      if (result.failure() != null) {
        first = first == null ? result.failure() : first;
      } else if (result.outcome().changed()) {
        stored++;
      }
    }
    if (first != null) {
      throw first;
    }
    return stored;
  }

  /**
   * Many atomic steps at once, each answering what {@link #compute} (or, with {@code unread},
   * {@link #computeUnread}) would for its key: the keys' locks taken in the order given, which must
   * be store-key order, so two batches never deadlock (single-key steps hold one lock at a time);
   * one batch read of the live entries (none with {@code unread}: each remapping sees null); each
   * remapping run under the locks; the writes in one batch put ({@link EntryStorage#writeAll}).
   * Throws only before any remapping ran (the locks, the read): nothing happened then. After that a
   * step's failure (its remapping, its remove, its put, the batch put) is its own result. The
   * locks, the read, the removes and the put share {@code deadline}.
   */
  public StepResult[] computeAll(List<Step<K>> sorted, boolean unread, Deadline deadline) {
    int n = sorted.size();
    StepResult[] results = new StepResult[n];
    if (n == 0) {
      return results;
    }
    String[] storeKeys = new String[n];
    for (int i = 0; i < n; i++) {
      storeKeys[i] = sorted.get(i).storeKey();
    }
    List<LockedKey> locked = locks.lockAll(storeKeys, deadline);
    try {
      StoredEntry[] current = unread ? new StoredEntry[n] : storage.readAll(storeKeys, deadline);
      long now = ticker.epochMillis();
      List<EntryStorage.Write> writes = new ArrayList<>(n);
      List<Integer> positions = new ArrayList<>(n);
      Decision[] decisions = new Decision[n];
      for (int i = 0; i < n; i++) {
        K key = sorted.get(i).key();
        try {
          StoredEntry entry = current[i];
          if (entry != null && entry.isExpired(now)) {
            current[i] = null;
            if (storage.delete(locked.get(i), deadline)) {
              index.remove(storeKeys[i]);
              listener.expired(key, entry);
            }
          }
          Decision decision = sorted.get(i).remapping().remap(current[i]);
          decisions[i] = decision;
          if (decision.kind() == Decision.Kind.WRITE) {
            writes.add(
                new EntryStorage.Write(
                    locked.get(i),
                    decision.value(),
                    decision.expireAt(),
                    !unread && current[i] == null));
            positions.add(i);
          } else {
            boolean changed =
                apply(key, locked.get(i), current[i], null, decision, Prior.AS_READ, deadline);
            results[i] = new StepResult(new Outcome(current[i], decision, changed), null);
          }
        } catch (RuntimeException e) {
          results[i] = StepResult.failed(e);
        }
      }
      RuntimeException[] failures = new RuntimeException[writes.size()];
      boolean[] replaced = storage.writeAll(writes, failures, deadline);
      for (int w = 0; w < writes.size(); w++) {
        int i = positions.get(w);
        if (failures[w] != null) {
          results[i] = StepResult.failed(failures[w]);
          continue;
        }
        written(sorted.get(i).key(), storeKeys[i], decisions[i], current[i], unread && replaced[w]);
        results[i] = new StepResult(new Outcome(current[i], decisions[i], true), null);
      }
      return results;
    } finally {
      EntryLocks.closeAll(locked);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Zero-copy

  /**
   * Stores the caller's buffer as the key's {@code byte[]} value (see {@link
   * EntryStorage#writeInPlace}) under the key's lock, without reading the old entry.
   */
  public void writeInPlace(String storeKey, ByteBuffer value, long expireAt, Deadline deadline) {
    try (LockedKey locked = locks.lockWithoutRide(storeKey, deadline)) {
      storage.writeInPlace(locked, value, expireAt, false, deadline);
      index.add(storeKey);
      expiring.add(storeKey, expireAt);
    }
  }

  /**
   * Reads the key's value into the caller's buffer (see {@link EntryStorage#readInPlace}) with the
   * read protocol. Answers the byte count, or -1 for a miss (the destination's {@code [position,
   * limit)} then holds its own bytes or zeros).
   */
  public int readInPlace(K key, String storeKey, ByteBuffer destination, Deadline deadline) {
    int position = destination.position();
    int limit = destination.limit();
    long stamp = locks.readStamp(storeKey);
    long expireAt = storage.readInPlace(storeKey, destination, deadline);
    if (expireAt == ExpiryTimes.ABSENT && locks.mayHaveChanged(storeKey, stamp)) {
      try (LockedKey locked = locks.lockWithoutRide(storeKey, deadline)) {
        if (locked.gap() != null) {
          throw new IllegalStateException(
              "zero-copy read of store key '"
                  + storeKey
                  + "' inside a step on the same key (an entry processor?) while that step has"
                  + " the entry out of the store (lock keeping's remembered copy); read it through"
                  + " the entry the step was given");
        }
        expireAt = storage.readInPlace(storeKey, destination, deadline);
      }
    }
    if (expireAt == ExpiryTimes.ABSENT) {
      return -1;
    }
    if (expireAt != ExpiryTimes.ETERNAL && ticker.epochMillis() >= expireAt) {
      // A miss answers zeros or the caller's own bytes (ZeroCopyCache#get): not the expired value.
      InPlaceRead.zero(destination, position, destination.limit() + ValueHeader.TRAILER);
      destination.limit(limit).position(position);
      getLocked(key, storeKey, deadline); // removes it and reports the expiry
      return -1;
    }
    return destination.remaining();
  }

  // ---------------------------------------------------------------------------------------------
  // Keys, expiry, clearing

  /** The keys this cache wrote, as a snapshot (some may be gone from the store since). */
  public List<String> keys() {
    return index.snapshot();
  }

  /** Forgets a key found gone from the store (evicted, removed elsewhere). */
  public void forget(String storeKey) {
    index.remove(storeKey);
  }

  /**
   * Removes entries whose queued deadline has passed by {@code nowMillis}, at most {@code max}; an
   * entry extended meanwhile is queued again. Answers how many keys were examined. Not a JCache
   * operation: each key's step gets a deadline of its own.
   */
  public int sweep(long nowMillis, int max) {
    List<String> due = expiring.pollDue(nowMillis, max);
    for (String storeKey : due) {
      K key = cacheKeys.apply(storeKey);
      Deadline deadline = Deadline.after(storage.operationTimeout(), ticker);
      try (LockedKey locked = locks.lock(storeKey, deadline)) {
        StoredEntry live = live(key, locked, deadline);
        if (live != null) {
          expiring.add(storeKey, live.expireAt());
        }
      }
    }
    return due.size();
  }

  /**
   * Removes every object whose key matches the anchored {@code prefixPattern}, written by any JVM,
   * with one store call; no events (the spec's {@code clear}).
   */
  public long clear(String prefixPattern, Deadline deadline) {
    long removed = storage.deleteByPrefix(prefixPattern, deadline);
    index.clear();
    expiring.clear();
    return removed;
  }
}
