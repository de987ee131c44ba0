package dev.mooncake.jcache.lock;

/**
 * Mutual exclusion per store key: what makes conditional operations and {@code invoke} atomic.
 * Unrelated keys never wait on each other. This is the seam for atomicity across JVMs that share a
 * Mooncake cluster: a distributed implementation replaces {@link LocalKeyLocks} here and nowhere
 * else.
 *
 * <p>Plain reads take no lock. Because Mooncake's put never overwrites, a writer replaces a value
 * by remove-then-put, and an unlocked read can fall into that gap. Readers therefore take a
 * {@link #readStamp} before reading and, when they find nothing, ask {@link #mayHaveChanged}: if
 * a lock on the key may have been held meanwhile, they read again under the lock.
 */
public interface KeyLocks {

  /** Blocks until this thread holds the key's lock. Re-entrant. */
  Held lock(String key);

  /** A stamp to take before an unlocked read of the key. */
  long readStamp(String key);

  /**
   * Whether a lock on the key may have been held at any time since {@code stamp} was taken. False
   * positives are allowed (they cost a locked re-read); false negatives are not.
   */
  boolean mayHaveChanged(String key, long stamp);

  /** A held lock; closing it releases it. */
  interface Held extends AutoCloseable {
    /**
     * Called right before each store mutation made under this lock: throws a
     * {@link javax.cache.CacheException} (and nothing is written) when the lock can no longer be
     * trusted to be exclusive. A local lock always can; a cluster lock cannot once its lease on
     * the holder's clock has run out (see {@code lock.cluster.ClusterKeyLocks}).
     */
    default void ensureHeld() {}

    @Override
    void close();
  }
}
