package dev.mooncake.jcache.internal.lock;

import dev.mooncake.jcache.internal.time.Deadline;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;
import javax.cache.CacheException;

/**
 * Per-key locks for one JVM. A lock exists only while some thread holds or waits for it (counted
 * references), so memory stays proportional to the keys in use, not the keys ever seen. Read stamps
 * come from striped counters: each stripe counts lock acquisitions and current holders of the keys
 * hashed to it, so a reader can tell cheaply whether a writer may have overlapped it.
 */
public final class LocalKeyLocks implements KeyLocks {
  private static final int STRIPES = 4096; // a power of two
  private static final long BUSY = -1L;

  private final ConcurrentHashMap<String, Entry> locks = new ConcurrentHashMap<>();
  private final AtomicLongArray acquisitions = new AtomicLongArray(STRIPES);
  private final AtomicIntegerArray holders = new AtomicIntegerArray(STRIPES);

  /** Reads nothing to take a lock, so a {@code ride} is never answered: the caller reads. */
  @Override
  public Held lock(String key, Ride ride, Deadline deadline) {
    int stripe = stripe(key);
    Entry entry = announce(key, stripe);
    if (deadline.isNone()) {
      entry.lock.lock();
    } else if (!acquired(entry.lock, deadline)) {
      forget(key, stripe);
      throw new CacheException(
          "lock of store key '"
              + key
              + "' not acquired by the operation's deadline ("
              + deadline.describe()
              + "): another thread of this JVM holds it");
    }
    return new Local(key, entry, stripe);
  }

  /** Whether the calling thread holds {@code key}'s lock. */
  public boolean heldByCurrentThread(String key) {
    Entry entry = locks.get(key);
    return entry != null && entry.lock.isHeldByCurrentThread();
  }

  /** How many threads wait for {@code key}'s lock now (a hint: they may give up at once). */
  public int waiting(String key) {
    Entry entry = locks.get(key);
    return entry == null ? 0 : entry.lock.getQueueLength();
  }

  /**
   * The key's lock if no thread holds it now (this one included: no re-entry), else null at once.
   * For housekeeping that must never wait for a user's operation.
   */
  public Held tryLock(String key) {
    int stripe = stripe(key);
    Entry entry = announce(key, stripe);
    if (entry.lock.isHeldByCurrentThread() || !entry.lock.tryLock()) {
      forget(key, stripe);
      return null;
    }
    return new Local(key, entry, stripe);
  }

  @Override
  public List<Held> lockAll(String[] orderedKeys, Deadline deadline) {
    return KeyLocks.lockEach(this, orderedKeys, deadline); // no round trip to save by batching
  }

  /** Waits for the lock until the deadline; an interrupt ends the wait as a failure. */
  private static boolean acquired(ReentrantLock lock, Deadline deadline) {
    try {
      return lock.tryLock(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public long readStamp(String key) {
    int stripe = stripe(key);
    long stamp = acquisitions.get(stripe); // read before holders: see lock()'s order
    return holders.get(stripe) > 0 ? BUSY : stamp;
  }

  @Override
  public boolean mayHaveChanged(String key, long stamp) {
    return stamp == BUSY || acquisitions.get(stripe(key)) != stamp;
  }

  /** How many keys have a lock right now (for tests). */
  int size() {
    return locks.size();
  }

  private void release(String key, Entry entry, int stripe) {
    entry.lock.unlock();
    forget(key, stripe);
  }

  /**
   * Announces a would-be holder before it takes the lock, so a reader's stamp sees any writer that
   * may follow, and counts it as a user of the key's lock entry.
   */
  private Entry announce(String key, int stripe) {
    holders.incrementAndGet(stripe);
    acquisitions.incrementAndGet(stripe);
    return locks.compute(
        key,
        (k, existing) -> {
          Entry e = existing == null ? new Entry() : existing;
          e.users++;
          return e;
        });
  }

  /** Undoes the announcement and the use count of one {@link #lock}. */
  private void forget(String key, int stripe) {
    locks.computeIfPresent(key, (k, e) -> --e.users == 0 ? null : e);
    holders.decrementAndGet(stripe);
  }

  private static int stripe(String key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16)) & (STRIPES - 1);
  }

  /** One held local lock. */
  private final class Local implements Held {
    private final String key;
    private final Entry entry;
    private final int stripe;

    Local(String key, Entry entry, int stripe) {
      this.key = key;
      this.entry = entry;
      this.stripe = stripe;
    }

    /** A lock of this JVM cannot be lost while its thread holds it. */
    @Override
    public void ensureHeld() {}

    @Override
    public void ensureHeldToReplace(Deadline deadline) {} // a lock of this JVM cannot be lost

    /** Held for one operation only: nothing to carry to the next (another JVM may write). */
    @Override
    public Memo memo() {
      return null;
    }

    @Override
    public void close() {
      release(key, entry, stripe);
    }
  }

  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock();
    int users; // guarded by the map's bin lock (compute)
  }
}
