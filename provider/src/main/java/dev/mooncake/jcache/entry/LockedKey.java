package dev.mooncake.jcache.entry;

import dev.mooncake.jcache.lock.KeyLocks;
import dev.mooncake.jcache.time.Deadline;
import java.nio.ByteBuffer;

/**
 * A store key whose lock this thread holds, as {@link EntryLocks} answers it: the entry read under
 * the lock, the lock's proof of exclusivity, and the only mutators of the key's entry that entry
 * code has. Each mutator asks the proof right before every store mutation it makes, retries
 * included ({@link #ensureHeld}): a released key refuses with {@link IllegalStateException}, a
 * cluster lock whose lease ran out with a {@link javax.cache.CacheException} naming the key.
 *
 * <p>Whether a put after our remove may skip its check for a dropped put is not a caller's flag but
 * a property of this object ({@link #provedExclusive}): it holds only when this acquisition proved
 * the lock exclusive across the cluster. Confined to the thread that holds the lock.
 */
final class LockedKey implements AutoCloseable {
  private final EntryStorage storage;
  private final EntryStorage.EntryRead read;
  private final KeyLocks.Held held;
  private boolean released;

  /**
   * @param read the read of the key that rode with the lock (or was offered and not answered)
   * @param held the lock, already held
   */
  LockedKey(EntryStorage storage, EntryStorage.EntryRead read, KeyLocks.Held held) {
    this.storage = storage;
    this.read = read;
    this.held = held;
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
    if (released) {
      throw new IllegalStateException(
          "store key '"
              + key()
              + "': its lock was released, so nothing may be written or removed under it"
              + " any more");
    }
    held.ensureHeld();
  }

  /** Removes the key's object; true when there was one. */
  boolean delete(Deadline deadline) {
    return storage.delete(this, deadline);
  }

  /**
   * Stores {@code value}, replacing what is there ({@link EntryStorage#write}).
   *
   * @param knownAbsent whether the caller read the key absent under this lock (skips the remove)
   */
  void write(Object value, long expireAt, boolean knownAbsent, Deadline deadline) {
    storage.write(this, value, expireAt, knownAbsent, deadline);
  }

  /** Removes whatever is there, then stores {@code value}; whether something was removed. */
  boolean replace(Object value, long expireAt, Deadline deadline) {
    return storage.replace(this, value, expireAt, deadline);
  }

  /** Stores {@code entry}, read under this lock, again with a new expiry time. */
  void rewrite(StoredEntry entry, long expireAt, Deadline deadline) {
    storage.rewrite(this, entry, expireAt, deadline);
  }

  /** Zero-copy write of the caller's buffer ({@link EntryStorage#writeInPlace}). */
  void writeInPlace(ByteBuffer value, long expireAt, boolean knownAbsent, Deadline deadline) {
    storage.writeInPlace(this, value, expireAt, knownAbsent, deadline);
  }

  /** Releases the lock, then the read's buffer; the mutators refuse from now on. */
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
