package dev.mooncake.jcache.lock;

/**
 * Mutual exclusion per store key: what makes conditional operations and {@code invoke} atomic.
 * Unrelated keys never wait on each other. This is the seam for atomicity across JVMs that share a
 * Mooncake cluster: a distributed implementation replaces {@link LocalKeyLocks} here and nowhere
 * else.
 */
public interface KeyLocks {

  /** Blocks until this thread holds the key's lock. Re-entrant. */
  Held lock(String key);

  /** Whether some thread holds (or waits for) the key's lock right now; a hint, never a guarantee. */
  boolean isBusy(String key);

  /** A held lock; closing it releases it. */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }
}
