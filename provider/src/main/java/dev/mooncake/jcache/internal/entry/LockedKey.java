package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;

/**
 * A store key whose lock this thread holds, as {@link EntryLocks} answers it: the entry read under
 * the lock and the lock's proof of exclusivity. Every mutator of {@link EntryStorage} takes one and
 * asks the proof right before every store mutation it makes, retries included ({@link
 * #ensureHeld}): a released key refuses with {@link IllegalStateException}, a cluster lock whose
 * lease ran out with a {@link javax.cache.CacheException} naming the key. (The mutators are
 * EntryStorage's own, called with this key, not forwarded through it: one frame less on every
 * write.)
 *
 * <p>Whether a put after our remove may skip its check for a dropped put is not a caller's flag but
 * a property of this object ({@link #provedExclusive}): it holds only when this acquisition proved
 * the lock exclusive across the cluster. Confined to the thread that holds the lock.
 */
final class LockedKey implements AutoCloseable {
  private final EntryStorage.EntryRead read;
  private final KeyLocks.Held held;
  private final KeyLocks.Memo memo; // null: the lock carries nothing between its operations
  private final Object found; // what the memo held when this key was locked
  private boolean released;

  /**
   * Notes what the lock's memo carried ({@link #remembered}, {@link #gap}). Every mutator of {@link
   * EntryStorage} empties the memo before it changes the store, and only a write that answered sets
   * it again ({@link #remember}): so whatever a step finds there is what the store held after the
   * last change made under this lock (or nothing, if Mooncake dropped it since).
   *
   * @param read the read of the key that rode with the lock (or was offered and not answered)
   * @param held the lock, already held
   */
  LockedKey(EntryStorage.EntryRead read, KeyLocks.Held held) {
    this.read = read;
    this.held = held;
    this.memo = held.memo();
    this.found = memo == null ? null : memo.get();
  }

  /**
   * The entry this JVM itself last wrote under this lock, when nothing changed the key under the
   * lock since and this acquisition reused the lock without a store call (a kept cluster lock, not
   * re-entered): no other JVM wrote the key meanwhile, so the store holds exactly this entry, or
   * nothing if Mooncake evicted it or lost its segment ({@link RememberedEntry}). Null otherwise.
   */
  StoredEntry remembered() {
    return found instanceof StoredEntry entry && read.provedExclusive() && !read.readWithLock()
        ? entry
        : null;
  }

  /** The gap an outer step of this thread has open on the key (its entry removed), or null. */
  RememberedEntry.Gap gap() {
    return found instanceof RememberedEntry.Gap gap ? gap : null;
  }

  /**
   * Carries {@code entry} (what this step wrote), or a step's open {@link RememberedEntry.Gap}, to
   * the lock's next user, or with null nothing; a lock that carries nothing ignores it.
   */
  void remember(Object carried) {
    if (memo != null) {
      memo.set(carried);
    }
  }

  /**
   * The changes made under locked keys on each thread: a step compares the count around its
   * remapping to learn whether a step nested in it (an entry processor writing through the cache)
   * changed the store meanwhile.
   */
  private static final ThreadLocal<int[]> CHANGES = ThreadLocal.withInitial(() -> new int[1]);

  /**
   * Called by every mutator of {@link EntryStorage} before it changes the store: counts the change
   * on this thread and empties the lock's memo (a remembered entry is stale from here on, until a
   * write's put answers and {@link #remember}s its own).
   */
  void changing() {
    CHANGES.get()[0]++;
    if (memo != null) {
      memo.set(null);
    }
  }

  /** How many changes this thread has made under locked keys (see {@link #changing}). */
  static int changesOnThisThread() {
    return CHANGES.get()[0];
  }

  /** Empties the lock's memo if it still holds {@code gap} (no write carried an entry on). */
  void forget(RememberedEntry.Gap gap) {
    if (memo != null && memo.get() == gap) {
      memo.set(null);
    }
  }

  /** Whether the lock carries anything between operations (then {@link #remember} keeps it). */
  boolean remembers() {
    return memo != null;
  }

  /** The store key. */
  String key() {
    return read.key();
  }

  /**
   * The key's entry (expired or not) with the lock held: from the lock's own read-back where it
   * made one, else read now. Reads the store each time it is asked.
   */
  StoredEntry entry() {
    if (read.readWithLock() || !read.provedExclusive()) {
      return read.entry();
    }
    StoredEntry entry = read.entry();
    // A kept cluster lock read nothing: the entry is read after the lock call, and only a read
    // that returned within the lock's lease was served while no other JVM could write
    // (cluster-consistency.md, "Reads under a kept lock").
    held.ensureHeld();
    return entry;
  }

  /** Whether the lock's read-back found the key absent (then a write need not remove first). */
  boolean knownAbsent() {
    return read.knownAbsent();
  }

  /**
   * Whether a put right after our remove of this key can be trusted without the size check for a
   * dropped put. Only when the lock's read-back answered the ride: that call proved this lock held
   * across the cluster, every writer of the key holds the lock, so once our remove answered no
   * other put of the key is in flight or can start before we release, and a create-only put of an
   * absent key creates it (F1 of cluster-consistency.md, the fact the lock itself rests on).
   * Re-entry, a batch lock and this JVM's locks prove nothing across JVMs: their puts are checked.
   */
  boolean provedExclusive() {
    return read.provedExclusive();
  }

  /** Throws unless the lock is still held: asked right before each store mutation of the key. */
  void ensureHeld() {
    ensureNotReleased();
    held.ensureHeld();
  }

  private void ensureNotReleased() {
    if (released) {
      throw new IllegalStateException(
          "store key '"
              + key()
              + "': its lock was released, so nothing may be written or removed under it"
              + " any more");
    }
  }

  /**
   * {@link #ensureHeld} before a remove that a put must follow: the lock renews an old proof first
   * ({@link KeyLocks.Held#ensureHeldToReplace}), so the put is not refused after the remove.
   */
  void ensureHeldToReplace(Deadline deadline) {
    ensureNotReleased();
    held.ensureHeldToReplace(deadline);
  }

  /** Releases the lock, then the read's buffer; the mutators refuse this key from now on. */
  @Override
  public void close() {
    if (released) {
      return;
    }
    released = true;
    try {
      held.close();
    } finally {
      read.close();
    }
  }
}
