package dev.mooncake.jcache.lock.cluster;

import dev.mooncake.jcache.backend.StoreStatus;
import dev.mooncake.jcache.lock.KeyLocks;
import dev.mooncake.jcache.lock.LocalKeyLocks;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import javax.cache.CacheException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-key locks that hold across every JVM of a Mooncake cluster (design and correctness argument:
 * {@code docs/cluster-consistency.md}).
 *
 * <p>Inside the JVM a {@link LocalKeyLocks} orders the threads, so only one thread per JVM and key
 * competes in the cluster. Across JVMs the lock is an object {@code mcjlock/…} (see {@link
 * LockNames}) that Mooncake's create-only put makes exclusive: put a record with a token naming
 * this put, read it back; our token means we hold the lock. The object is hard-pinned (not
 * evictable) and lives in this client's own segment, so it disappears with this client when it dies
 * (within Mooncake's {@code client_ttl}).
 *
 * <p>A holder that is merely paused keeps its segment until it misses heartbeats for {@code
 * client_ttl}; then another JVM may acquire. So a lock is trusted for a lease measured on this
 * JVM's monotonic clock from before the acquiring put was sent, shorter than {@code client_ttl}:
 * {@link Held#ensureHeld} refuses every store mutation after it, and a release after it removes the
 * object only if it still carries our token.
 */
public final class ClusterKeyLocks implements KeyLocks {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterKeyLocks.class);
  private static final long MIN_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
  private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  /** How a waiting thread waits; tests advance a clock instead. */
  @FunctionalInterface
  public interface Pause {
    Pause PARK =
        nanos -> {
          LockSupport.parkNanos(nanos);
          if (Thread.interrupted()) {
            throw new InterruptedException();
          }
        };

    void pause(long nanos) throws InterruptedException;
  }

  private final LockStore store;
  private final LocalKeyLocks local = new LocalKeyLocks();
  private final LongSupplier clock;
  private final Pause pause;
  private final long leaseNanos;
  private final long timeoutNanos;
  private final long instance;
  private final String holder;
  private final AtomicLong attempts = new AtomicLong();

  /** The cluster locks this instance holds, by store key; touched only under the local lock. */
  private final ConcurrentHashMap<String, Hold> holds = new ConcurrentHashMap<>();

  /** Locks whose release failed: retried by later calls, and recognised as ours when met. */
  private final Set<Hold> leftovers = ConcurrentHashMap.newKeySet();

  /**
   * @param store where lock objects are put
   * @param holder names this client in messages (e.g. its segment and process id)
   * @param lease how long an acquired lock is trusted; must be well below Mooncake's client_ttl
   * @param timeout how long {@link #lock} waits, and how long a release keeps retrying
   * @param clock monotonic nanoseconds ({@code System::nanoTime})
   * @param pause how waiters wait
   */
  public ClusterKeyLocks(
      LockStore store,
      String holder,
      Duration lease,
      Duration timeout,
      LongSupplier clock,
      Pause pause) {
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("the lock lease must be positive, got " + lease);
    }
    this.store = store;
    this.holder = holder;
    this.leaseNanos = lease.toNanos();
    this.timeoutNanos = Math.max(1, timeout.toNanos());
    this.clock = clock;
    this.pause = pause;
    this.instance = new SecureRandom().nextLong();
  }

  /** Production wiring: the system's monotonic clock, parking waiters. */
  public ClusterKeyLocks(LockStore store, String holder, Duration lease, Duration timeout) {
    this(store, holder, lease, timeout, System::nanoTime, Pause.PARK);
  }

  @Override
  public Held lock(String key) {
    return lock(key, null);
  }

  /**
   * Takes the key's lock; the read-back of the owner token also reads the key itself (one batch
   * read of {@code [lock, key]}), and {@code ride} hears that answer when the same read showed our
   * token. So a step that reads its entry anyway pays for the lock with its put and its remove
   * only.
   */
  @Override
  public Held lock(String key, Ride ride) {
    Held localHeld = local.lock(key);
    try {
      // Under the local lock only this thread can touch holds[key]: present means re-entry.
      Hold hold = holds.get(key);
      if (hold == null) {
        retryLeftovers();
        hold = acquire(key, ride);
        holds.put(key, hold);
      }
      hold.depth++;
      return new Acquired(hold, localHeld);
    } catch (RuntimeException | Error e) {
      localHeld.close();
      throw e;
    }
  }

  @Override
  public long readStamp(String key) {
    return 0;
  }

  /**
   * Always true: a writer in another JVM leaves no trace in this one, so a read that found nothing
   * (it may have fallen between another JVM's remove and put) is confirmed under the lock.
   */
  @Override
  public boolean mayHaveChanged(String key, long stamp) {
    return true;
  }

  /** How many cluster locks this instance holds now (for tests). */
  int held() {
    return holds.size();
  }

  /** This instance's random id, as lock records carry it (for tests). */
  long instance() {
    return instance;
  }

  /** Releases that failed and are still to be retried (for tests). */
  int leftovers() {
    return leftovers.size();
  }

  // --- acquiring ---------------------------------------------------------------------------------

  private Hold acquire(String key, Ride ride) {
    String lockKey = LockNames.lockKey(key);
    ByteBuffer readBuffer = ByteBuffer.allocate(LockRecord.MAX_SIZE);
    long start = clock.getAsLong();
    int waits = 0;
    LockRecord seen = null; // the other holder, for the time-out message
    long lastCode = 0;
    long notALock = -1; // the size of an object at the lock key that was no lock record
    boolean put = true;
    boolean mayBeOurs = false; // whether a read can still find our put's token (then ride along)
    LockRecord mine = null;
    long sentAt = 0;
    while (true) {
      if (clock.getAsLong() - start > timeoutNanos) {
        throw notAcquired(key, seen, lastCode, notALock);
      }
      if (put) {
        mine = new LockRecord(instance, attempts.incrementAndGet(), holder);
        sentAt = clock.getAsLong();
        int code = store.createPinned(lockKey, mine.encode());
        if (code != 0 && !transientCode(code)) {
          throw new CacheException(
              LockNames.describe(key)
                  + ": putting its cluster lock "
                  + lockKey
                  + " failed: "
                  + StoreStatus.describe(code)
                  + " ("
                  + store.describe()
                  + ")");
        }
        lastCode = code;
        put = code != 0; // a failed put is tried again; a put answering 0 is read back
        mayBeOurs = !put;
      }
      if (!put) {
        long read;
        long rideResult = 0;
        if (ride != null && mayBeOurs) {
          long[] both = store.readWith(lockKey, readBuffer.clear(), key, ride.destination());
          read = both[0];
          rideResult = both[1];
        } else {
          read = store.read(lockKey, readBuffer.clear());
        }
        if (read >= 0) {
          LockRecord found = LockRecord.decode(readBuffer, read);
          if (found == null) {
            // A real Mooncake can tear a read that races a forced remove (the memory is reused by
            // another object while it is copied): read again; only what stays is reported.
            notALock = read;
          } else if (found.sameToken(mine)) {
            // Our put created the object and returned before this read was sent, so the key was
            // ours (Lemma 1) when the read of it in the same batch was made.
            if (ride != null && mayBeOurs) {
              ride.answered(rideResult);
            }
            return new Hold(key, lockKey, mine, sentAt);
          } else if (found.instance() == instance) {
            // Ours but not this put's: an earlier put that took effect late, or a failed release.
            // No one else can believe they hold it; remove it and compete again.
            removeIfOurs(lockKey, found, clock.getAsLong());
            put = true;
            continue;
          } else {
            seen = found;
            notALock = -1;
            mayBeOurs = false; // our put changed nothing: only a new put can make it ours
          }
        } else if (read == StoreStatus.OBJECT_NOT_FOUND.code()) {
          put = true; // the holder released between our put and our read: try again now
          continue;
        } else if (!transientCode(read)) {
          throw new CacheException(
              LockNames.describe(key)
                  + ": reading its cluster lock "
                  + lockKey
                  + " failed: "
                  + StoreStatus.describe(read)
                  + " ("
                  + store.describe()
                  + ")");
        }
        // Held by another, or its put in flight (-703), or a transient error: wait, read again.
        lastCode = read;
      }
      long now = clock.getAsLong();
      long wait = pauseNanos(waits++);
      if (now - start + wait > timeoutNanos) {
        throw notAcquired(key, seen, lastCode, notALock);
      }
      sleep(wait, key);
    }
  }

  private CacheException notAcquired(String key, LockRecord seen, long lastCode, long notALock) {
    if (notALock >= 0) {
      return new CacheException(
          LockNames.describe(key)
              + ": the object at its lock key "
              + LockNames.lockKey(key)
              + " is not a lock of this provider ("
              + notALock
              + " bytes), still after "
              + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
              + " ms (operation_timeout_ms); remove it");
    }
    return new CacheException(
        LockNames.describe(key)
            + ": cluster lock not acquired within "
            + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
            + " ms (operation_timeout_ms); "
            + (seen != null
                ? "held by " + seen.holder()
                : "last answer " + StoreStatus.describe(lastCode)));
  }

  /**
   * Codes that may pass: a put in flight, a lease, a full pool being evicted, RPC trouble, a
   * transfer from a segment whose client died or is paused (-800, seen on a real Mooncake reading a
   * dead holder's lock until the master drops its segment), a read lease that ran out before the
   * transfer completed (-707, seen on a real Mooncake under load).
   */
  private static boolean transientCode(long code) {
    return code == StoreStatus.REPLICA_IS_NOT_READY.code()
        || code == StoreStatus.TRANSFER_FAIL.code()
        || code == StoreStatus.LEASE_EXPIRED.code()
        || code == StoreStatus.OBJECT_HAS_LEASE.code()
        || code == StoreStatus.NO_AVAILABLE_HANDLE.code()
        || code == StoreStatus.REPLICA_IS_BUSY.code()
        || code == StoreStatus.RPC_FAIL.code()
        || code == StoreStatus.RPC_TIMEOUT.code();
  }

  /** Exponential backoff with jitter, 0.2 ms to 20 ms: short waits stay short. */
  private static long pauseNanos(int waits) {
    long ceiling = Math.min(MAX_PAUSE_NANOS, MIN_PAUSE_NANOS << Math.min(waits, 10));
    return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
  }

  private void sleep(long nanos, String key) {
    try {
      pause.pause(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CacheException(
          LockNames.describe(key) + ": interrupted while waiting for its cluster lock", e);
    }
  }

  // --- releasing ---------------------------------------------------------------------------------

  private void release(Hold hold) {
    long now = clock.getAsLong();
    boolean done =
        hold.withinLease(now)
            ? removeWithRetries(hold.lockKey, now) // ours for sure: nobody else can hold it yet
            : removeIfOurs(hold.lockKey, hold.record, now);
    if (!done) {
      leftovers.add(hold);
      LOG.warn(
          "{}: releasing its cluster lock {} failed; it blocks other JVMs until a later call"
              + " of this one removes it, or this client leaves the cluster",
          LockNames.describe(hold.key),
          hold.lockKey);
    }
  }

  /** Retries the removal of failed releases, once per lock call, while there are any. */
  private void retryLeftovers() {
    if (leftovers.isEmpty()) {
      return;
    }
    leftovers.removeIf(
        hold -> !holds.containsKey(hold.key) && removeOnce(hold.lockKey, hold.record));
  }

  /** One try: removes the lock object if it still carries {@code record}'s token. */
  private boolean removeOnce(String lockKey, LockRecord record) {
    ByteBuffer buffer = ByteBuffer.allocate(LockRecord.MAX_SIZE);
    long sent = clock.getAsLong();
    long read = store.read(lockKey, buffer);
    if (read == StoreStatus.OBJECT_NOT_FOUND.code()) {
      return true;
    }
    if (read < 0) {
      return false;
    }
    LockRecord found = LockRecord.decode(buffer, read);
    if (found == null || !found.sameToken(record)) {
      return true; // someone else's now: not ours to remove
    }
    // The read proved our segment alive at `sent`: it stays for client_ttl, longer than a lease.
    if (clock.getAsLong() - sent >= leaseNanos) {
      return false; // too slow to trust the read; try again later
    }
    int code = store.remove(lockKey);
    return code == 0 || code == StoreStatus.OBJECT_NOT_FOUND.code();
  }

  /** Removes the lock object only while it still carries {@code record}'s token; retries. */
  private boolean removeIfOurs(String lockKey, LockRecord record, long start) {
    int waits = 0;
    while (true) {
      if (removeOnce(lockKey, record)) {
        return true;
      }
      long wait = pauseNanos(waits++);
      if (clock.getAsLong() - start + wait > timeoutNanos || !sleepQuietly(wait)) {
        return false;
      }
    }
  }

  private boolean removeWithRetries(String lockKey, long start) {
    int waits = 0;
    while (true) {
      int code = store.remove(lockKey);
      if (code == 0 || code == StoreStatus.OBJECT_NOT_FOUND.code()) {
        return true;
      }
      long wait = pauseNanos(waits++);
      if (!transientCode(code)
          || clock.getAsLong() - start + wait > timeoutNanos
          || !sleepQuietly(wait)) {
        return false;
      }
    }
  }

  /** Waits during a release (which must not throw); false when interrupted. */
  private boolean sleepQuietly(long nanos) {
    try {
      pause.pause(nanos);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  // --- holds -------------------------------------------------------------------------------------

  /** One acquired cluster lock. Its fields beyond the final ones are confined to the holder. */
  private final class Hold {
    final String key;
    final String lockKey;
    final LockRecord record;
    final long sentAt;
    int depth;

    Hold(String key, String lockKey, LockRecord record, long sentAt) {
      this.key = key;
      this.lockKey = lockKey;
      this.record = record;
      this.sentAt = sentAt;
    }

    boolean withinLease(long now) {
      return now - sentAt < leaseNanos;
    }

    void ensureHeld() {
      long now = clock.getAsLong();
      if (!withinLease(now)) {
        throw new CacheException(
            LockNames.describe(key)
                + ": the cluster lock's lease of "
                + TimeUnit.NANOSECONDS.toMillis(leaseNanos)
                + " ms (lock_lease_ms) ran out "
                + TimeUnit.NANOSECONDS.toMillis(now - sentAt)
                + " ms after it was taken; another JVM"
                + " may hold the key now, so nothing was written. Keep operations under a lock"
                + " (entry processors, writers, loaders) shorter than the lease");
      }
    }
  }

  /** What {@link #lock} hands out: one per call, so re-entry nests. */
  private final class Acquired implements Held {
    private final Hold hold;
    private final Held localHeld;
    private boolean closed;

    Acquired(Hold hold, Held localHeld) {
      this.hold = hold;
      this.localHeld = localHeld;
    }

    @Override
    public void ensureHeld() {
      hold.ensureHeld();
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        if (--hold.depth == 0) {
          holds.remove(hold.key);
          release(hold);
        }
      } finally {
        localHeld.close();
      }
    }
  }
}
