package dev.mooncake.jcache.internal.lock;

import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Mutual exclusion per store key: what makes conditional operations and {@code invoke} atomic.
 * Unrelated keys never wait on each other. This is the seam for atomicity across JVMs that share a
 * Mooncake cluster: a distributed implementation replaces {@link LocalKeyLocks} here and nowhere
 * else.
 *
 * <p>One {@code KeyLocks} serves every cache manager on one store connection (see {@link
 * KeyLockRegistry}): managers that share a connection share its keys, so they must share its locks
 * too.
 *
 * <p>The seam is narrow on purpose (four methods, no defaults): a decorator extends {@link
 * ForwardingKeyLocks} and overrides what it changes, and can drop nothing. The entry layer takes
 * these locks through {@code entry.EntryLocks}, which answers a {@code LockedKey}.
 *
 * <p>Plain reads take no lock. Because Mooncake's put never overwrites, a writer replaces a value
 * by remove-then-put, and an unlocked read can fall into that gap. Readers therefore take a {@link
 * #readStamp} before reading and, when they find nothing, ask {@link #mayHaveChanged}: if a lock on
 * the key may have been held meanwhile, they read again under the lock.
 */
public interface KeyLocks {

  /**
   * Blocks until this thread holds the key's lock, at most until {@code deadline} (the operation's:
   * then a {@link javax.cache.CacheException} names its bound and what was spent; {@link
   * Deadline#none()} outside any operation). Re-entrant.
   *
   * <p>A read of the key's own object may ride along ({@code ride}; null: none): a lock that must
   * read something back to learn that it holds the key (the cluster lock reads its owner token)
   * reads the key in the same store call, and gives {@code ride} the answer only when that call
   * proved the lock held, so the caller's read is saved. A lock that reads nothing (this JVM's
   * locks, re-entry) leaves {@code ride} unanswered, and the caller reads as usual. One method for
   * both, so that a decorator cannot forward the lock and drop the ride.
   */
  Held lock(String key, Ride ride, Deadline deadline);

  /**
   * Locks every key, in the order given, which must be one order shared by every caller (sorted
   * store keys): then two batches never wait on each other in a cycle. Answers one {@link Held} per
   * key, in the same order; on failure none stays held. A lock that pays a round trip per
   * acquisition takes them in batches; others may take them one at a time ({@link #lockEach}).
   */
  List<Held> lockAll(String[] orderedKeys, Deadline deadline);

  /** {@link #lockAll} one key at a time, for locks that pay nothing per acquisition. */
  static List<Held> lockEach(KeyLocks locks, String[] orderedKeys, Deadline deadline) {
    List<Held> held = new ArrayList<>(orderedKeys.length);
    try {
      for (String key : orderedKeys) {
        held.add(locks.lock(key, null, deadline));
      }
      return held;
    } catch (RuntimeException | Error e) {
      closeAll(held);
      throw e;
    }
  }

  /** Closes every lock of a {@link #lockAll} answer, the last first. */
  static void closeAll(List<? extends Held> held) {
    for (int i = held.size() - 1; i >= 0; i--) {
      held.get(i).close();
    }
  }

  /** A stamp to take before an unlocked read of the key. */
  long readStamp(String key);

  /**
   * Whether a lock on the key may have been held at any time since {@code stamp} was taken. False
   * positives are allowed (they cost a locked re-read); false negatives are not. A lock shared with
   * other JVMs cannot see their writers without a round trip, and answers true always.
   */
  boolean mayHaveChanged(String key, long stamp);

  /** A read of the locked key that travels with the lock's own read-back. */
  interface Ride {
    /** Where the key's object is copied to ({@code [position, limit)}, a store pool buffer). */
    ByteBuffer destination();

    /**
     * The store's answer for the key (its byte count, or a negative code), from a call that also
     * proved the lock held: the object as it was with the lock held, no writer in between.
     */
    void answered(long result);

    /**
     * The lock gave up waiting for a read into {@link #destination()} that still runs (a bounded
     * read of the lock object timed out): the buffer now belongs to that read, and the action
     * answered gives it back once the read has returned. A later {@link #destination()} hands out
     * another buffer.
     */
    Runnable detach();

    /**
     * The lock read nothing, but it is held on a proof of exclusivity made earlier and kept since
     * (a cluster lock its JVM kept after an earlier operation): the caller reads the key itself,
     * and may trust what the lock's proof gives (no other writer until it is released). The default
     * ignores it, which is always safe: the caller then trusts nothing.
     */
    default void provenWithoutRead() {}
  }

  /** A held lock; closing it releases it. */
  interface Held extends AutoCloseable {
    /**
     * The proof of exclusivity, asked by the entry layer right before each store mutation (remove,
     * put) made under this lock, so that no write goes out after the lock was lost. A distributed
     * lock whose lease has expired throws a {@link javax.cache.CacheException} naming the key; a
     * local lock cannot be lost, and does nothing. No default: a decorator must say what it does.
     */
    void ensureHeld();

    /**
     * The proof before a remove that a put must follow (a replace: Mooncake has no overwrite). A
     * replace whose put is refused after its remove has lost the entry, so the refusal belongs
     * before the remove: a lock with a lease must have half of it left for the remove and the put,
     * and renews an older proof first (one read of the lock). Throws as {@link #ensureHeld} does,
     * also when the renewal cannot show the lock is ours; then nothing was written. A lock that
     * cannot be lost does what its {@link #ensureHeld} does. No default, as for ensureHeld.
     */
    void ensureHeldToReplace(Deadline deadline);

    /**
     * A slot that lives exactly as long as this lock is held without a break: across the operations
     * of a cluster lock its JVM keeps ({@code lock_keep_idle_ms}), and gone with the lock's
     * release, loss or drop. The entry layer keeps the entry it last wrote there ({@code
     * entry.LockedKey}): under a lock held since, no other writer touched the key. Null for a lock
     * held only for one operation (a local lock, a cluster lock without keeping): there is nothing
     * to carry (answering null is always safe: the entry layer then reads). No default, as for
     * ensureHeld: a decorator that drops it makes every step read.
     */
    Memo memo();

    @Override
    void close();
  }

  /** What {@link Held#memo} carries; confined to the threads that hold the key's lock in turn. */
  final class Memo {
    private Object value;

    /** The object set last, or null. */
    public Object get() {
      return value;
    }

    public void set(Object value) {
      this.value = value;
    }
  }
}
