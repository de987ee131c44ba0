package dev.mooncake.jcache.internal.lock.cluster;

import dev.mooncake.jcache.internal.backend.ReadPolicy;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.backend.StuckPutWatch;
import dev.mooncake.jcache.internal.calls.BoundedCalls;
import dev.mooncake.jcache.internal.calls.CallTimeoutException;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.lock.LocalKeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
public final class ClusterKeyLocks implements KeyLocks, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterKeyLocks.class);
  private static final long MIN_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
  private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  /**
   * The longest one read of a lock object is waited for: 1 s, or a quarter of the lease when that
   * is shorter. Far above a read's usual time (well under 10 ms, hundreds under heavy load), far
   * below Mooncake's 60 s handshake with a paused holder; a read that took longer than the lease
   * could not be used anyway (the lease runs from before the put).
   */
  static final Duration READ_BOUND = Duration.ofSeconds(1);

  /**
   * How many given-up reads of lock objects may still run (each holds a thread until Mooncake
   * returns, at most its 60 s handshake). Beyond it no read starts: lock calls wait on the master's
   * metadata, and time out if they need a read (see docs/cluster-consistency.md).
   */
  static final int MAX_STUCK_READS = 16;

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
  private final Ticker ticker; // the clock, for deadlines
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
   * Retries leftovers in the background when on ({@link #retryLeftoversInBackground}: production
   * wiring; tests drive {@link #retryLeftoversOnce} themselves).
   */
  private volatile LeftoverRetries leftoverRetries; // null: off

  /** Where reads of lock objects run, each waited for at most {@link #readBoundNanos}. */
  private final BoundedCalls reads;

  private final long readBoundNanos;

  /** Whether and how long locks stay with this JVM after their operations ("Lock keeping"). */
  private final KeptLocks kept;

  /**
   * The keeping sweep's thread, when started ({@link #startKeeping}); tests call {@link #sweep}.
   */
  private volatile RevocationPoll poll;

  /** Wants heard on the master's KV event stream, when some cache manager subscribes to it. */
  private final WantEvents wants;

  /** When the sweep last asked about every want and lock held (the live stream's slow check). */
  private long askedAllAt = WantEvents.NEVER; // the sweep's thread only

  /** Where JVMs waiting for a kept lock say so: the KV events of these keys wake the holder. */
  public static final String WANT_KEY_PREFIX = LockNames.WANT_PREFIX;

  /** Whether a new record lives in this holder's segment ("Placement fallback"). */
  private volatile LockPlacement placement = LockPlacement.UNCHECKED;

  /** Given-up reads still running, by lock key: a key gets no second one while one blocks. */
  private final ConcurrentHashMap<String, AtomicInteger> stuck = new ConcurrentHashMap<>();

  /**
   * @param store where lock objects are put
   * @param holder names this client in messages (e.g. its segment and process id)
   * @param lease how long an acquired lock is trusted; must be well below Mooncake's client_ttl
   * @param timeout how long {@link #lock} waits, and how long a release keeps retrying
   * @param clock monotonic nanoseconds ({@code ticker::nanos}): leases, waits and deadlines
   * @param pause how waiters wait
   * @param reads where reads of lock objects run
   * @param readBound the longest one read of a lock object is waited for
   * @param keepIdle how long a lock stays with this JVM unused after its operation; zero: released
   *     at its end (docs/cluster-consistency.md, "Lock keeping")
   */
  public ClusterKeyLocks(
      LockStore store,
      String holder,
      Duration lease,
      Duration timeout,
      LongSupplier clock,
      Pause pause,
      BoundedCalls reads,
      Duration readBound,
      Duration keepIdle) {
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("the lock lease must be positive, got " + lease);
    }
    this.reads = reads;
    this.readBoundNanos = Math.max(1, readBound.toNanos());
    this.store = store;
    this.holder = holder;
    this.leaseNanos = lease.toNanos();
    this.timeoutNanos = Math.max(1, timeout.toNanos());
    this.clock = clock;
    this.ticker = Ticker.ofNanos(clock); // this lock's clock, for the deadlines measured on it
    this.pause = pause;
    this.instance = new SecureRandom().nextLong();
    this.kept = new KeptLocks(keepIdle, lease);
    this.wants = new WantEvents(clock, this::wakeSweep);
  }

  /**
   * A feed for the master's KV events (docs/lock-keeping.md, "The wake-up"): while one is live, a
   * want's {@code stored} event wakes the sweep instead of the 10 ms poll finding it. Close it when
   * its subscription goes.
   */
  public WantEvents.Feed openWantFeed() {
    return wants.open();
  }

  /** Whether locks stay with this JVM after their operations ({@code lock_keep_idle_ms} > 0). */
  public boolean keepsLocks() {
    return kept.enabled();
  }

  private void wakeSweep() {
    RevocationPoll running = poll;
    if (running != null) {
      running.wake();
    }
  }

  /** Production wiring: the system's monotonic clock, parking waiters, no keeping. */
  public ClusterKeyLocks(LockStore store, String holder, Duration lease, Duration timeout) {
    this(
        store,
        holder,
        lease,
        timeout,
        Ticker.system()::nanos,
        Pause.PARK,
        new BoundedCalls("lock-reads", MAX_STUCK_READS),
        defaultReadBound(lease),
        Duration.ZERO);
  }

  /**
   * Production wiring with lock keeping ({@code lock_keep_idle_ms}; zero: off): when on, the sweep
   * runs on its own thread every {@link KeptLocks#POLL_NANOS}.
   */
  public static ClusterKeyLocks keeping(
      LockStore store, String holder, Duration lease, Duration timeout, Duration keepIdle) {
    return keeping(store, holder, lease, timeout, keepIdle, Ticker.system());
  }

  /**
   * {@link #keeping(LockStore, String, Duration, Duration, Duration)} on {@code ticker}'s clock.
   */
  public static ClusterKeyLocks keeping(
      LockStore store,
      String holder,
      Duration lease,
      Duration timeout,
      Duration keepIdle,
      Ticker ticker) {
    ClusterKeyLocks locks =
        new ClusterKeyLocks(
            store,
            holder,
            lease,
            timeout,
            ticker::nanos,
            Pause.PARK,
            new BoundedCalls("lock-reads", MAX_STUCK_READS),
            defaultReadBound(lease),
            keepIdle);
    locks.startKeeping();
    locks.retryLeftoversInBackground();
    return locks;
  }

  /** Acquisitions count a lock held only once {@code placement} finds it in our segment. */
  void checkPlacement(LockPlacement placement) {
    this.placement = placement;
  }

  /** Failed releases are retried on a thread of their own ({@link LeftoverRetries}). */
  void retryLeftoversInBackground() {
    if (leftoverRetries == null) {
      leftoverRetries = new LeftoverRetries(this::retryLeftoversOnce, () -> !leftovers.isEmpty());
    }
  }

  /**
   * One background round over the leftovers, each under its key's in-JVM lock taken without
   * waiting; true when none is left.
   */
  boolean retryLeftoversOnce() {
    retryLeftovers(Deadline.afterNanos(readBoundNanos, ticker));
    return leftovers.isEmpty();
  }

  /** Keeps {@code hold} as a leftover and makes sure it is retried. */
  private void addLeftover(Hold hold) {
    leftovers.add(hold);
    LeftoverRetries retries = leftoverRetries;
    if (retries != null) {
      retries.wake();
    }
  }

  /** Starts the sweep's thread when keeping is on. */
  void startKeeping() {
    startKeeping(KeptLocks.POLL_NANOS);
  }

  /** {@link #startKeeping()} with another period (tests: a period that never ends). */
  void startKeeping(long periodNanos) {
    if (kept.enabled() && poll == null) {
      poll = new RevocationPoll(this::sweep, periodNanos);
    }
  }

  static Duration defaultReadBound(Duration lease) {
    Duration quarter = lease.dividedBy(4);
    return quarter.compareTo(READ_BOUND) < 0 ? quarter : READ_BOUND;
  }

  /**
   * The deadline of one acquisition or release on this lock's clock: what is left of the
   * operation's {@code deadline}, at most {@code operation_timeout_ms} (all of it outside an
   * operation). Its store calls and retries all end by it.
   */
  private Deadline budget(Deadline operation) {
    return Deadline.afterNanos(operation.cap(timeoutNanos), ticker);
  }

  /**
   * Takes the key's lock; the read-back of the owner token also reads the key itself (one batch
   * read of {@code [lock, key]}), and {@code ride} hears that answer when the same read showed our
   * token. So a step that reads its entry anyway pays for the lock with its put and its remove
   * only.
   */
  @Override
  public Held lock(String key, Ride ride, Deadline deadline) {
    Held localHeld = local.lock(key, null, deadline);
    try {
      // Under the local lock only this thread can touch holds[key]: present means re-entry.
      Hold hold = holds.get(key);
      if (hold != null && hold.depth == 0) {
        hold = reuseKept(hold, ride, deadline); // kept after an earlier operation, or dropped
      }
      if (hold == null) {
        hold = acquire(key, ride, deadline);
        holds.put(key, hold);
      }
      hold.depth++;
      return new Acquired(hold, localHeld, deadline);
    } catch (RuntimeException | Error e) {
      localHeld.close();
      throw e;
    }
  }

  /**
   * Locks the keys (in their shared order) in batches: one batch put of a record per key not held
   * yet and one batch read of them, so a putAll of n keys pays two store calls for its locks where
   * one at a time it paid 2n. A key the batch did not win is waited for alone, as {@link #lock}
   * waits; before that, the keys after it that the batch won are released, so this never waits for
   * a key while holding a later one (the order that keeps batches from waiting on each other in a
   * cycle). The keys after it are then batched again.
   */
  @Override
  public List<Held> lockAll(String[] orderedKeys, Deadline deadline) {
    List<Held> locals = new ArrayList<>(orderedKeys.length);
    List<Hold> fresh = new ArrayList<>();
    try {
      for (String key : orderedKeys) {
        locals.add(local.lock(key, null, deadline));
        Hold hold = holds.get(key);
        if (hold != null && hold.depth == 0) {
          reuseKept(hold, null, deadline); // a kept lock that is still good counts as held
        }
      }
      acquireMissing(orderedKeys, fresh, deadline);
    } catch (RuntimeException | Error e) {
      for (int i = fresh.size() - 1; i >= 0; i--) {
        Hold hold = fresh.get(i);
        holds.remove(hold.key);
        release(hold, deadline);
      }
      KeyLocks.closeAll(locals);
      throw e;
    }
    List<Held> held = new ArrayList<>(orderedKeys.length);
    for (int i = 0; i < orderedKeys.length; i++) {
      Hold hold = holds.get(orderedKeys[i]);
      hold.depth++;
      held.add(new Acquired(hold, locals.get(i), deadline));
    }
    return held;
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

  /** How many threads of this JVM wait for the key's lock now (for tests). */
  int waiting(String key) {
    return local.waiting(key);
  }

  /** This instance's random id, as lock records carry it (for tests). */
  long instance() {
    return instance;
  }

  /** Releases that failed and are still to be retried (for tests). */
  int leftovers() {
    return leftovers.size();
  }

  // --- keeping (docs/cluster-consistency.md, "Lock keeping") -----------------------------------

  /**
   * A lock kept after an earlier operation, met again under the key's in-JVM lock: answered as is
   * while its proof is young (the ride is told the lock is proved, nothing read), renewed by a read
   * when older, else released or dropped (null: acquire from scratch).
   */
  private Hold reuseKept(Hold hold, Ride ride, Deadline operation) {
    long now = clock.getAsLong();
    if (hold.lost) {
      forgetLost(hold);
      return null;
    }
    if (hold.revoked || !hold.withinLease(now)) {
      holds.remove(hold.key);
      releaseKept(hold, operation);
      return null;
    }
    if (hold.renew || !kept.reusableWithoutRead(hold.proofAt, now)) {
      return renew(hold, ride, operation);
    }
    if (ride != null) {
      ride.provenWithoutRead();
    }
    return hold;
  }

  /**
   * Reads the kept lock back (with the ride's entry, if any): our token renews its proof from the
   * read's send time (Lemma 4). Anything else drops it: absent or another's is not removed; no
   * answer is released as any lock whose state is unknown.
   */
  private Hold renew(Hold hold, Ride ride, Deadline operation) {
    Deadline deadline = budget(operation);
    ByteBuffer buffer = ByteBuffer.allocate(LockRecord.MAX_SIZE);
    long sent = clock.getAsLong();
    long[] answer;
    try {
      answer = readLock(hold.lockKey, buffer, hold.key, ride, deadline);
    } catch (CallTimeoutException e) {
      holds.remove(hold.key);
      release(hold, operation);
      return null;
    }
    holds.remove(hold.key);
    ReadPolicy rule = ReadPolicy.forLockRead(answer[0]);
    if (rule == ReadPolicy.VALUE) {
      LockRecord found = LockRecord.decode(buffer, answer[0], hold.lockKey);
      if (found != null && found.sameToken(hold.record)) {
        hold.proofAt = sent;
        hold.renew = false;
        if (ride != null) {
          ride.answered(answer[1]);
        }
        holds.put(hold.key, hold);
        return hold;
      }
      if (found == null) {
        release(hold, operation); // a torn read proves nothing: release it as unknown
      }
      return null; // another's: the master lost ours, or our segment was dropped
    }
    if (rule != ReadPolicy.ABSENT) {
      // no verdict (a renewal does not wait, its next acquisition does): released as a lock whose
      // state is unknown
      release(hold, operation);
    }
    return null;
  }

  /**
   * Renews the proof of a lock in use before a replace (its proof is half a lease old): one read of
   * the lock, whose send time becomes the proof when it shows our token (Lemma 4). Another's token
   * or none marks the lock lost (never removed blindly; the operation's end forgets it); no verdict
   * leaves it as it was. Both throw before anything is written.
   */
  private void renewInUse(Hold hold, Deadline operation) {
    ByteBuffer buffer = ByteBuffer.allocate(LockRecord.MAX_SIZE);
    long sent = clock.getAsLong();
    long answer;
    try {
      answer = readLock(hold.lockKey, buffer, hold.key, null, budget(operation))[0];
    } catch (CallTimeoutException e) {
      throw notRenewed(hold, "its read got no answer in time: " + e.getMessage());
    }
    ReadPolicy rule = ReadPolicy.forLockRead(answer);
    LockRecord found =
        rule == ReadPolicy.VALUE ? LockRecord.decode(buffer, answer, hold.lockKey) : null;
    if (found != null && found.sameToken(hold.record)) {
      hold.proofAt = sent;
      hold.renew = false;
      return;
    }
    if (found != null || rule == ReadPolicy.ABSENT) {
      hold.lost = true;
      throw notRenewed(hold, found != null ? "it now holds another's token" : "it is gone");
    }
    throw notRenewed(
        hold,
        rule == ReadPolicy.VALUE
            ? "its read was torn or no lock record"
            : "its read answered " + StoreStatus.describe(answer));
  }

  private static CacheException notRenewed(Hold hold, String why) {
    return new CacheException(
        LockNames.describe(hold.key)
            + ": its cluster lock "
            + hold.lockKey
            + " was renewed before a replace (the remove and the put need half a lease,"
            + " lock_lease_ms) and could not be: "
            + why
            + "; nothing was written");
  }

  /**
   * A lock whose object the sweep found gone (a master restart, our segment dropped): never removed
   * blindly, since the key may be another JVM's by now. It becomes a leftover, which a later lock
   * call removes only if a read shows our token (so a wrong "absent" leaves nothing behind).
   */
  private void forgetLost(Hold hold) {
    holds.remove(hold.key);
    addLeftover(hold);
  }

  /** Releases a kept lock; a revoked one also removes the want and cools the key down. */
  private void releaseKept(Hold hold, Deadline operation) {
    if (hold.revoked) {
      kept.coolDown(hold.key, clock.getAsLong());
      kept.yieldTo(hold.key, clock.getAsLong());
      try {
        store.remove(hold.wantKey, budget(operation));
      } catch (CacheException e) {
        // the waiters put it again while they wait; a stale want costs one needless release
      }
    }
    release(hold, operation);
  }

  /**
   * One round of the keeping sweep: asks the master which wants exist and which lock objects are
   * gone ({@code batch_is_exist} of the want key and lock key of each lock asked about). While the
   * event stream is not live that is every lock held, each round (the poll); while it is live, only
   * the locks whose want was heard since they were last asked, plus every lock once after a flush
   * and once per {@link KeptLocks#LIVE_CHECK_NANOS} (a lock object lost without a flush). A want
   * marks its lock revoked; a lock object gone marks it lost; no answer makes every lock asked
   * renew before its reuse. Then idle locks that are revoked, lost or expired are released (only
   * those whose in-JVM lock is free right now: the sweep never waits for a user).
   */
  void sweep() {
    long now = clock.getAsLong();
    kept.forgetCooledDown(now);
    wants.prune(now);
    List<Hold> all = new ArrayList<>(holds.values());
    if (all.isEmpty()) {
      return;
    }
    List<Hold> asked = toAsk(all, now);
    if (!asked.isEmpty()) {
      ask(asked);
    }
    for (Hold hold : all) {
      releaseIdle(hold);
    }
  }

  /** The locks this round asks about: all of them while polling, else those with news. */
  private List<Hold> toAsk(List<Hold> all, long now) {
    if (!wants.live()
        || wants.takeResync()
        || askedAllAt == WantEvents.NEVER
        || now - askedAllAt >= KeptLocks.LIVE_CHECK_NANOS) {
      askedAllAt = now;
      return all;
    }
    List<Hold> heard = new ArrayList<>();
    for (Hold hold : all) {
      if (wants.heardSince(hold.wantKey, hold.askedAt)) {
        heard.add(hold);
      }
    }
    return heard;
  }

  private void ask(List<Hold> asked) {
    int n = asked.size();
    String[] keys = new String[2 * n];
    for (int i = 0; i < n; i++) {
      keys[i] = asked.get(i).wantKey;
      keys[n + i] = asked.get(i).lockKey;
    }
    long sent = clock.getAsLong();
    int[] exist;
    try {
      exist = store.existAll(keys, Deadline.afterNanos(readBoundNanos, ticker));
    } catch (CacheException e) { // no answer in time, a closed store
      exist = null;
    }
    for (int i = 0; i < n; i++) {
      Hold hold = asked.get(i);
      if (exist == null || exist[i] < 0 || exist[n + i] < 0) {
        hold.renew = true; // nothing learned: the next reuse reads the lock back first
        wants.resyncAgain(); // and a want may have gone unseen: ask every one next round
        continue;
      }
      hold.askedAt = sent;
      if (exist[i] > 0) {
        hold.revoked = true;
      }
      if (exist[n + i] == 0) {
        hold.lost = true;
      }
    }
  }

  /** Releases {@code hold} if it is idle now and revoked, lost, expired or the locks closed. */
  private void releaseIdle(Hold hold) {
    Held localHeld = local.tryLock(hold.key);
    if (localHeld == null) {
      return; // in use: its operation's end decides
    }
    try {
      long now = clock.getAsLong();
      if (holds.get(hold.key) != hold
          || hold.depth != 0
          || !(hold.revoked || hold.lost || kept.expired(hold.lastUsed, hold.proofAt, now))) {
        return;
      }
      if (hold.lost) {
        forgetLost(hold);
      } else {
        holds.remove(hold.key);
        releaseKept(hold, Deadline.afterNanos(readBoundNanos, ticker));
      }
    } finally {
      localHeld.close();
    }
  }

  /**
   * Stops keeping and releases every idle kept lock, within {@link KeptLocks#CLOSE_BUDGET_NANOS}
   * (what is left goes with the client's segment when it closes right after). Locks in use are
   * released when their operations end. Idempotent.
   */
  @Override
  public void close() {
    LeftoverRetries retries = leftoverRetries;
    if (retries != null) {
      retries.close(); // what is left goes with the client's segment when it closes right after
    }
    if (!kept.close()) {
      return;
    }
    RevocationPoll running = poll;
    if (running != null) {
      running.close();
    }
    long end = clock.getAsLong() + KeptLocks.CLOSE_BUDGET_NANOS;
    for (Hold hold : new ArrayList<>(holds.values())) {
      if (clock.getAsLong() - end >= 0) {
        LOG.warn("closing: {} kept cluster locks left to the client's close", holds.size());
        return;
      }
      releaseIdle(hold);
    }
  }

  /**
   * One bounded read of a lock object, with {@code key}'s entry in the same batch when {@code ride}
   * is given: the answers, lock first. A given-up read keeps {@code buffer} and the ride's.
   */
  private long[] readLock(
      String lockKey, ByteBuffer buffer, String key, Ride ride, Deadline deadline) {
    ByteBuffer destination = ride != null ? ride.destination() : null;
    return reads.call(
        (ride != null ? "batch_get_into of '" : "get_into of '") + lockKey + "'",
        Math.max(1, Math.min(readBoundNanos, deadline.remainingNanos())),
        () ->
            ride != null
                ? store.readWith(lockKey, buffer, key, destination, deadline)
                : new long[] {store.read(lockKey, buffer, deadline)},
        () -> stuck(lockKey, ride != null ? ride.detach() : () -> {}));
  }

  // --- acquiring ---------------------------------------------------------------------------------

  /** What an acquisition does next. */
  private enum Step {
    /** Create-only put of a new record of ours. */
    PUT,
    /** Read the lock object (bounded): only its token can tell us we hold the key. */
    READ,
    /** Ask the master for the object's size until it is gone, may be ours, or was replaced. */
    WATCH,
    /**
     * We just gave the key up to a want: let the waiter take it first (size polls until another's
     * lock appears, then wait for it as any waiter; or put ours once the yield has passed).
     */
    YIELD
  }

  private Hold acquire(String key, Ride ride, Deadline operation) {
    // Every store call of the acquisition (and of the leftovers' removal before it) ends by the
    // operation's deadline, not each a timeout after it began.
    Deadline deadline = budget(operation);
    try {
      retryLeftovers(deadline);
    } catch (CallTimeoutException e) {
      // the master does not answer: the leftovers wait for a later call; the acquisition below
      // meets the same and says so
    }
    return acquireWithin(key, ride, deadline, operation);
  }

  private Hold acquireWithin(String key, Ride ride, Deadline deadline, Deadline operation) {
    Acquisition a = new Acquisition(key, ride, deadline, operation);
    Step step = a.yieldUntil - clock.getAsLong() > 0 ? Step.YIELD : Step.PUT;
    int waits = 0;
    while (true) {
      if (deadline.expired()) {
        throw a.giveUp();
      }
      Step next;
      try {
        next =
            switch (step) {
              case PUT -> a.put();
              case READ -> a.read();
              case WATCH -> a.watch();
              case YIELD -> a.yieldToWaiter();
            };
      } catch (CallTimeoutException e) {
        throw a.timedOut(step, e);
      }
      if (a.held != null) {
        a.unwant();
        return a.held;
      }
      // Progress (a put that answered, an object gone, a size worth reading) goes on at once;
      // a step that must wait for someone else pauses first.
      if (next == step || next == Step.WATCH) {
        long wait = pauseNanos(waits++);
        if (wait > deadline.remainingNanos()) {
          throw a.giveUp();
        }
        sleep(wait, key);
      }
      step = next;
    }
  }

  /**
   * One acquisition's state. Ownership is concluded only in {@link #read}, from our own token; the
   * other steps decide when a read is worth making. A read of another holder's lock object is a
   * transfer from that holder's segment, which a paused holder does not answer (Mooncake blocks in
   * the handshake for up to 60 s): so reads are bounded, and while waiting this asks the master for
   * the object's size instead, which it answers without the holder.
   */
  private static final long NOT_WANTED = Long.MIN_VALUE;

  private final class Acquisition {
    final String key;
    final String lockKey;
    final Ride ride;
    final Deadline deadline; // this acquisition's, on the lock's clock
    final Deadline operation; // the operation's, for messages
    Hold held;
    LockRecord mine;
    long sentAt;
    boolean mayBeOurs; // whether a read can still find our put's token (then ride along)
    boolean readBack; // the next read is the first after our put (made even while one is stuck)
    long watched = -1; // the size of the other holder's object we wait on, -1 when unknown
    // for the time-out message:
    LockRecord seen; // the other holder
    long lastCode;
    long notALock = -1; // the size of an object at the lock key that was no lock record
    String unanswered; // why the last read gave no answer
    String noAnswer; // a store call that ran out of the acquisition's time
    final StuckPutWatch inFlight = new StuckPutWatch(); // sizes answering -703 in a row
    long wantedAt = NOT_WANTED; // when our want was last put
    final long yieldUntil; // until when the waiter we gave the key up to may take it first

    /**
     * Says that this JVM waits for the key (keeping on: a holder that keeps the lock releases it
     * when it sees this): a create-only put, hard-pinned in our segment, so it goes with us. Best
     * effort: a want that did not land only delays, until the holder's idle time ends.
     */
    void want() {
      if (!kept.enabled()) {
        return;
      }
      wantedAt = clock.getAsLong();
      String wantKey = LockNames.wantKey(key);
      store.createPinned(wantKey, mine.encode(wantKey), deadline);
    }

    /** Removes our want once we stop waiting (acquired or gave up); others put theirs again. */
    void unwant() {
      if (wantedAt == NOT_WANTED) {
        return;
      }
      wantedAt = NOT_WANTED;
      try {
        store.remove(LockNames.wantKey(key), deadline);
      } catch (CacheException e) {
        // a stale want costs a holder one needless release
      }
    }

    Acquisition(String key, Ride ride, Deadline deadline, Deadline operation) {
      this.key = key;
      this.lockKey = LockNames.lockKey(key);
      this.ride = ride;
      this.deadline = deadline;
      this.operation = operation;
      this.yieldUntil = kept.yieldingUntil(key, clock.getAsLong());
    }

    Step yieldToWaiter() {
      if (mine == null) {
        mine = new LockRecord(instance, attempts.incrementAndGet(), holder); // for a want
      }
      long size = store.size(lockKey, deadline);
      if (size >= 0) {
        return Step.READ; // taken: see whose, and want it like any waiter
      }
      return clock.getAsLong() - yieldUntil >= 0 ? Step.PUT : Step.YIELD;
    }

    Step put() {
      mine = new LockRecord(instance, attempts.incrementAndGet(), holder);
      sentAt = clock.getAsLong();
      int code = store.createPinned(lockKey, mine.encode(lockKey), deadline);
      boolean ok = StoreStatus.of(code) == StoreStatus.OK;
      if (!ok && !StoreStatus.isTransientForLockCalls(code)) {
        throw failed("putting", code);
      }
      lastCode = code;
      if (!ok) {
        return Step.PUT; // a failed put is tried again; a put answering 0 is read back
      }
      mayBeOurs = true;
      readBack = true;
      return Step.READ;
    }

    Step read() {
      if (!readBack && stuckReads(lockKey) > 0) {
        return Step.WATCH; // an earlier read of this object still blocks: do not add another
      }
      readBack = false;
      boolean riding = ride != null && mayBeOurs;
      ByteBuffer buffer = ByteBuffer.allocate(LockRecord.MAX_SIZE); // a given-up read keeps its own
      long[] answer;
      try {
        answer = readLock(lockKey, buffer, key, riding ? ride : null, deadline);
      } catch (CallTimeoutException e) {
        unanswered = e.getMessage();
        seen = null; // whoever answered before, the object now is unknown
        return Step.WATCH;
      }
      long read = answer[0];
      ReadPolicy rule = ReadPolicy.forLockRead(read);
      if (rule == ReadPolicy.VALUE) {
        LockRecord found = LockRecord.decode(buffer, read, lockKey);
        if (found == null) {
          // A real Mooncake can tear a read that races a forced remove (the memory is reused by
          // another object while it is copied): the master tells what stays; only that is reported.
          notALock = read;
          watched = read;
          return Step.WATCH;
        }
        notALock = -1;
        unanswered = null;
        if (found.sameToken(mine)) {
          // Our put created the object and returned before this read was sent, so the key was
          // ours (Lemma 1) when the read of it in the same batch was made.
          String misplaced = placement.misplaced(lockKey, deadline);
          if (misplaced != null) {
            throw refuse(misplaced);
          }
          if (riding) {
            ride.answered(answer[1]);
          }
          held = new Hold(key, lockKey, mine, sentAt);
          held.contended = seen != null;
          return Step.READ;
        }
        if (found.instance() == instance) {
          // Ours but not this put's: an earlier put that took effect late, or a failed release.
          // No one else can believe they hold it; remove it and compete again.
          removeIfOurs(lockKey, found, deadline);
          return Step.PUT;
        }
        seen = found;
        watched = read;
        mayBeOurs = false; // our put changed nothing: only a new put can make it ours
        want();
        return Step.WATCH;
      }
      if (rule == ReadPolicy.ABSENT) {
        return Step.PUT; // the holder released between our put and our read: try again now
      }
      if (rule == ReadPolicy.FAIL) {
        throw failed("reading", read);
      }
      // Its put in flight (-703), a transfer that failed (-800: a dead or paused holder), RPC
      // trouble: the master's metadata tells when reading again is worth it.
      lastCode = read;
      return Step.WATCH;
    }

    Step watch() {
      if (wantedAt != NOT_WANTED && clock.getAsLong() - wantedAt >= KeptLocks.WANT_REPUT_NANOS) {
        want(); // a holder that revoked removed it; another may keep the lock next
      }
      long size = store.size(lockKey, deadline);
      StoreStatus status = size < 0 ? StoreStatus.of(size) : StoreStatus.OK;
      if (status == StoreStatus.REPLICA_IS_NOT_READY && inFlight.stuckAt(clock.getAsLong())) {
        // A holder killed inside the lock object's put: only a put (PutStart) of ours lets
        // Mooncake discard it, once it is old enough (StoreStatus.STUCK_PUT_NANOS).
        lastCode = size;
        return Step.PUT;
      }
      if (status != StoreStatus.REPLICA_IS_NOT_READY) {
        inFlight.reset();
      }
      if (status == StoreStatus.OBJECT_NOT_FOUND) {
        return Step.PUT; // released, or its holder's segment dropped: compete now
      }
      if (size < 0) {
        if (!StoreStatus.isTransientForLockCalls(size)) {
          throw failed("asking the size of", size);
        }
        lastCode = size; // a put in flight (-703), RPC trouble: ask again
        return Step.WATCH;
      }
      if (size == mine.size()) {
        return Step.READ; // maybe ours (a read-back that timed out, a late put): only a read tells
      }
      if (watched >= 0 && size != watched) {
        watched = size;
        return Step.READ; // another holder's object now: see whose (another instance's size)
      }
      watched = size; // not ours, still the same object: wait
      return Step.WATCH;
    }

    /** Our record is not (known to be) in our segment: removed, and never counted as held. */
    private CacheException refuse(String why) {
      unwant();
      if (!removeIfOurs(lockKey, mine, deadline)) {
        addLeftover(new Hold(key, lockKey, mine, sentAt));
      }
      return new CacheException(
          LockNames.describe(key) + ": cluster lock " + lockKey + " not taken: " + why);
    }

    private StoreException failed(String doing, long code) {
      return new StoreException(
          LockNames.describe(key)
              + ": "
              + doing
              + " its cluster lock "
              + lockKey
              + " failed: "
              + StoreStatus.describe(code)
              + " ("
              + store.describe()
              + ")",
          code);
    }

    /**
     * The time-out. When our last put may have created the object (no read showed another token),
     * it is kept as a leftover: a later lock call removes it if it carries our token, so a lock we
     * could not read back does not block other JVMs until this client leaves.
     */
    CacheException giveUp() {
      unwant();
      if (mine != null && mayBeOurs) {
        addLeftover(new Hold(key, lockKey, mine, sentAt));
      }
      return notAcquired();
    }

    /**
     * A store call of the step got no answer by the acquisition's deadline (the master gone, say).
     * A put's outcome is then unknown: it may yet create our record, so it is kept as a leftover.
     */
    CacheException timedOut(Step step, CallTimeoutException e) {
      if (step == Step.PUT && mine != null) {
        mayBeOurs = true;
      }
      noAnswer = e.getMessage();
      return giveUp();
    }

    CacheException notAcquired() {
      if (notALock >= 0 && noAnswer == null) {
        return new CacheException(
            LockNames.describe(key)
                + ": the object at its lock key "
                + lockKey
                + " is not a lock of this provider ("
                + notALock
                + " bytes), still at the operation's deadline ("
                + spent()
                + "); remove it");
      }
      String why;
      if (noAnswer != null) {
        why = "a store call got no answer in time: " + noAnswer;
      } else if (seen != null) {
        why = "held by " + seen.holder();
      } else if (unanswered != null) {
        why =
            "its lock object did not answer a read ("
                + unanswered
                + "): its holder's segment does not answer, e.g. a paused process, whose lock goes"
                + " with its segment after client_ttl_ms";
      } else {
        why = "last answer " + StoreStatus.describe(lastCode);
      }
      return new CacheException(
          LockNames.describe(key)
              + ": cluster lock not acquired by the operation's deadline ("
              + spent()
              + "); "
              + why);
    }

    /** The operation's bound and what was spent of it; the acquisition's own share too. */
    private String spent() {
      return (operation.isNone() ? deadline : operation).describe()
          + ", "
          + deadline.spentMillis()
          + " ms of it waiting for this lock";
    }
  }

  // --- acquiring many ----------------------------------------------------------------------------

  /**
   * Acquires, in order, the keys this instance holds no lock on yet; each lands in {@code fresh}.
   * Before it waits for a key alone, it releases the kept locks this call reused for keys after
   * that one in the order: a kept lock counts as held, and holding a later key while waiting for an
   * earlier one could close a cycle with another JVM that holds the earlier key and wants the later
   * (its want cannot be served: this thread has the later key's in-JVM lock).
   */
  private void acquireMissing(String[] orderedKeys, List<Hold> fresh, Deadline operation) {
    List<String> ordered = new ArrayList<>(new LinkedHashSet<>(Arrays.asList(orderedKeys)));
    while (true) {
      List<String> missing = missing(ordered);
      if (missing.size() > 1) {
        for (Hold hold : new BatchAttempt(missing, operation).run()) {
          holds.put(hold.key, hold);
          fresh.add(hold);
        }
        missing = missing(ordered);
      }
      if (missing.isEmpty()) {
        return;
      }
      String key = missing.get(0);
      releaseKeptAfter(ordered, key, operation);
      Hold hold = acquire(key, null, operation);
      holds.put(key, hold);
      fresh.add(hold);
    }
  }

  /** The keys of {@code ordered} this instance holds no lock on, in order. */
  private List<String> missing(List<String> ordered) {
    List<String> missing = new ArrayList<>();
    for (String key : ordered) {
      // Under the local locks only this thread can touch holds[key]: present means re-entry.
      if (!holds.containsKey(key)) {
        missing.add(key);
      }
    }
    return missing;
  }

  /**
   * Releases the kept locks (reused by this call, depth 0) of the keys after {@code key} in {@code
   * ordered}; a lock held by an enclosing operation of this thread (depth above 0) stays.
   */
  private void releaseKeptAfter(List<String> ordered, String key, Deadline operation) {
    List<String> after = ordered.subList(ordered.indexOf(key) + 1, ordered.size());
    for (String later : after) {
      Hold hold = holds.get(later);
      if (hold != null && hold.depth == 0) {
        holds.remove(later);
        releaseKept(hold, operation);
      }
    }
  }

  /**
   * One batch put and batch read over some keys, the same steps as {@link Acquisition#put} and
   * {@link Acquisition#read} without the waiting: it wins the keys whose read-back shows its token.
   */
  private final class BatchAttempt {
    final List<String> keys;
    final String[] lockKeys;
    final LockRecord[] mine;
    final boolean[] won;
    final boolean[] unknown; // our put may have created the record, and no read said
    final Deadline operation;
    final Deadline deadline; // this attempt's, on the lock's clock
    long sentAt;

    BatchAttempt(List<String> keys, Deadline operation) {
      this.keys = keys;
      this.operation = operation;
      this.deadline = budget(operation);
      int n = keys.size();
      lockKeys = new String[n];
      mine = new LockRecord[n];
      won = new boolean[n];
      unknown = new boolean[n];
      for (int i = 0; i < n; i++) {
        lockKeys[i] = LockNames.lockKey(keys.get(i));
        mine[i] = new LockRecord(instance, attempts.incrementAndGet(), holder);
      }
    }

    /**
     * The holds of the longest prefix won. A key after it that was won is released at once; one
     * whose outcome stayed unknown (a read without an answer, a put without one) becomes a
     * leftover, removed by a later call if it carries our token.
     */
    List<Hold> run() {
      try {
        try {
          retryLeftovers(deadline);
        } catch (CallTimeoutException e) {
          // as in acquire: the leftovers wait; the batch below meets the same
        }
        putAndRead();
      } catch (CallTimeoutException e) {
        // no answer in time: what stays unknown is kept below, and the keys are waited for alone
      } catch (RuntimeException | Error e) {
        keepUnknown(0);
        throw e;
      }
      int prefix = 0;
      while (prefix < won.length && won[prefix]) {
        prefix++;
      }
      List<Hold> taken = new ArrayList<>(prefix);
      for (int i = 0; i < prefix; i++) {
        taken.add(hold(i));
      }
      for (int i = prefix; i < won.length; i++) {
        if (won[i]) {
          release(hold(i), operation);
        }
      }
      keepUnknown(prefix);
      return taken;
    }

    private Hold hold(int i) {
      return new Hold(keys.get(i), lockKeys[i], mine[i], sentAt);
    }

    private void keepUnknown(int from) {
      for (int i = from; i < unknown.length; i++) {
        if (unknown[i] && !won[i]) {
          addLeftover(hold(i));
        }
      }
    }

    private void putAndRead() {
      int n = lockKeys.length;
      ByteBuffer[] values = new ByteBuffer[n];
      for (int i = 0; i < n; i++) {
        values[i] = mine[i].encode(lockKeys[i]);
      }
      Arrays.fill(unknown, true); // until the put answers, each may create our record
      sentAt = clock.getAsLong();
      int[] put = store.createAllPinned(lockKeys, values, deadline);
      int[] created = new int[n];
      int c = 0;
      for (int i = 0; i < n; i++) {
        if (StoreStatus.of(put[i]) == StoreStatus.OK) {
          created[c++] = i;
        } else {
          unknown[i] = false; // a failed put is tried again alone, which reports a lasting failure
        }
      }
      if (c == 0) {
        return;
      }
      String[] readKeys = new String[c];
      ByteBuffer[] buffers = new ByteBuffer[c]; // a given-up read keeps its own
      for (int j = 0; j < c; j++) {
        readKeys[j] = lockKeys[created[j]];
        buffers[j] = ByteBuffer.allocate(LockRecord.MAX_SIZE);
      }
      long remaining = deadline.remainingNanos();
      long[] read =
          reads.call(
              "batch_get_into of " + c + " lock keys from '" + readKeys[0] + "'",
              Math.max(1, Math.min(readBoundNanos, remaining)),
              () -> store.readAll(readKeys, buffers, deadline),
              () -> stuckAll(readKeys));
      for (int j = 0; j < c; j++) {
        int i = created[j];
        ReadPolicy rule = ReadPolicy.forLockRead(read[j]);
        if (rule == ReadPolicy.VALUE) {
          LockRecord found = LockRecord.decode(buffers[j], read[j], readKeys[j]);
          if (found != null) {
            // Ours: our put created it and returned before the read (Lemma 1). Another's, or an
            // older one of ours: not won (the wait alone removes an older one of ours).
            unknown[i] = false;
            won[i] = found.sameToken(mine[i]);
            if (won[i] && placement.misplaced(lockKeys[i], deadline) != null) {
              won[i] = false; // removed; the key alone meets it again and says where it landed
              unknown[i] = !removeIfOurs(lockKeys[i], mine[i], deadline);
            }
          }
        } else if (rule == ReadPolicy.ABSENT) {
          unknown[i] = false; // released between put and read: our put did not create it
        }
        // a code in between (-703, a transfer that failed): unknown; the wait alone tells
      }
    }
  }

  /** {@link #stuck} for every key of a given-up batch read. */
  private Runnable stuckAll(String[] lockKeys) {
    List<Runnable> giveBacks = new ArrayList<>(lockKeys.length);
    for (String lockKey : lockKeys) {
      giveBacks.add(stuck(lockKey, () -> {}));
    }
    return () -> giveBacks.forEach(Runnable::run);
  }

  /** Given-up reads of {@code lockKey} still running. */
  private int stuckReads(String lockKey) {
    AtomicInteger n = stuck.get(lockKey);
    return n == null ? 0 : n.get();
  }

  /**
   * A read of {@code lockKey} was given up on: counted until it returns, when {@code giveBack} (the
   * ride's buffer, if it rode along) runs.
   */
  private Runnable stuck(String lockKey, Runnable giveBack) {
    stuck.computeIfAbsent(lockKey, k -> new AtomicInteger()).incrementAndGet();
    return () -> {
      try {
        giveBack.run();
      } finally {
        stuck.computeIfPresent(lockKey, (k, n) -> n.decrementAndGet() == 0 ? null : n);
      }
    };
  }

  /**
   * One bounded read of the lock object alone (releases): the byte count or a code; {@code
   * Long.MIN_VALUE} when it gave no answer in time.
   */
  private long readAlone(String lockKey, ByteBuffer buffer, Deadline deadline) {
    try {
      return reads.call(
          "get_into of '" + lockKey + "'",
          Math.min(readBoundNanos, deadline.remainingNanos()),
          () -> store.read(lockKey, buffer, deadline),
          () -> stuck(lockKey, () -> {}));
    } catch (CallTimeoutException e) {
      return Long.MIN_VALUE;
    }
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

  /** Given-up reads of lock objects still running (for tests). */
  int stuckReads() {
    return reads.abandoned();
  }

  // --- releasing ---------------------------------------------------------------------------------

  /**
   * What a release gets when its operation's time is spent: a holder paused inside its operation
   * (SIGSTOP, a long GC) wakes with no time left, and a release given none leaves its lock behind
   * until this JVM's next lock call, blocking every other JVM meanwhile (seen on a real Mooncake).
   * A healthy read and remove take about a millisecond; 50 ms stays inside the documented slack.
   */
  static final long RELEASE_FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /**
   * Releases within what is left of the operation's deadline, at least {@link #RELEASE_FLOOR_NANOS}
   * (a release must not throw): one that cannot finish by then becomes a leftover, removed by a
   * later lock call of this JVM or ended by the lease, so no JCache call waits past its deadline
   * for its own release.
   */
  private void release(Hold hold, Deadline operation) {
    Deadline deadline =
        Deadline.afterNanos(
            Math.min(timeoutNanos, Math.max(operation.remainingNanos(), RELEASE_FLOOR_NANOS)),
            ticker);
    boolean done;
    try {
      done =
          hold.withinLease(clock.getAsLong())
              ? removeWithRetries(hold.lockKey, deadline) // ours for sure: nobody else's yet
              : removeIfOurs(hold.lockKey, hold.record, deadline);
    } catch (CallTimeoutException e) {
      done = false; // the remove may yet take effect; a leftover is removed only while ours
    }
    if (!done) {
      addLeftover(hold);
      LOG.warn(
          "{}: releasing its cluster lock {} failed; it blocks other JVMs until a retry of this"
              + " one removes it, or this client leaves the cluster",
          LockNames.describe(hold.key),
          hold.lockKey);
    }
  }

  /** Retries the removal of failed releases, once per lock call, while there are any. */
  private void retryLeftovers(Deadline deadline) {
    if (leftovers.isEmpty()) {
      return;
    }
    leftovers.removeIf(hold -> removedWhileFree(hold, deadline));
  }

  /**
   * Removes a leftover's lock object if it is still ours, under its key's in-JVM lock taken without
   * waiting: a thread of this JVM acquiring the key meanwhile could otherwise have its new lock
   * object removed between our read of the old token and our remove. A key in use here is left to
   * its user's acquisition, which meets the leftover as ours.
   */
  private boolean removedWhileFree(Hold hold, Deadline deadline) {
    Held localHeld = local.tryLock(hold.key);
    if (localHeld == null) {
      // This very thread's lock call, before its put: nobody else here can be acquiring the key.
      return local.heldByCurrentThread(hold.key)
          && !holds.containsKey(hold.key)
          && removeOnce(hold.lockKey, hold.record, deadline);
    }
    try {
      return !holds.containsKey(hold.key) && removeOnce(hold.lockKey, hold.record, deadline);
    } finally {
      localHeld.close();
    }
  }

  /** One try: removes the lock object if it still carries {@code record}'s token. */
  private boolean removeOnce(String lockKey, LockRecord record, Deadline deadline) {
    ByteBuffer buffer = ByteBuffer.allocate(LockRecord.MAX_SIZE);
    long sent = clock.getAsLong();
    long read = readAlone(lockKey, buffer, deadline);
    ReadPolicy rule = ReadPolicy.forLockRead(read);
    if (rule == ReadPolicy.ABSENT) {
      return true;
    }
    if (rule != ReadPolicy.VALUE) {
      return false; // no verdict: the caller's retry loop reads again within its bound
    }
    LockRecord found = LockRecord.decode(buffer, read, lockKey);
    if (found == null) {
      return false; // torn or unreadable: maybe ours, so read it again (within the release's bound)
    }
    if (!found.sameToken(record)) {
      return true; // someone else's now: not ours to remove
    }
    // The read proved our segment alive at `sent`: it stays for client_ttl, longer than a lease.
    if (clock.getAsLong() - sent >= leaseNanos) {
      return false; // too slow to trust the read; try again later
    }
    return isGone(store.remove(lockKey, deadline));
  }

  /** Whether a remove's answer leaves no object: removed (0), or none there (-704). */
  private static boolean isGone(int removeAnswer) {
    StoreStatus status = StoreStatus.of(removeAnswer);
    return status == StoreStatus.OK || status == StoreStatus.OBJECT_NOT_FOUND;
  }

  /** Removes the lock object only while it still carries {@code record}'s token; retries. */
  private boolean removeIfOurs(String lockKey, LockRecord record, Deadline deadline) {
    int waits = 0;
    while (true) {
      if (removeOnce(lockKey, record, deadline)) {
        return true;
      }
      long wait = pauseNanos(waits++);
      if (wait > deadline.remainingNanos() || !sleepQuietly(wait)) {
        return false;
      }
    }
  }

  private boolean removeWithRetries(String lockKey, Deadline deadline) {
    int waits = 0;
    while (true) {
      int code = store.remove(lockKey, deadline);
      if (isGone(code)) {
        return true;
      }
      long wait = pauseNanos(waits++);
      if (!StoreStatus.isTransientForLockCalls(code)
          || wait > deadline.remainingNanos()
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

  /**
   * One acquired cluster lock. {@code depth}, {@code lastUsed} and {@code contended} are confined
   * to whoever holds the key's in-JVM lock (its operations, or the sweep that took it); the sweep
   * sets the flags from its own thread.
   */
  private final class Hold {
    final String key;
    final String lockKey;
    final String wantKey;
    final LockRecord record;

    /** The entry layer's memo: it lives while this hold does (never across a release). */
    final KeyLocks.Memo memo = new KeyLocks.Memo();

    /** The send time of the last sweep's answer about this lock's want (the event wake-up). */
    volatile long askedAt = WantEvents.NEVER;

    /** The send time of the last call that showed our token (the put, or a renewal, Lemma 4). */
    volatile long proofAt;

    int depth;
    long lastUsed;
    int handOns; // operations in a row handed on to queued threads while not kept
    boolean contended; // taken only after waiting for another JVM's lock

    volatile boolean revoked; // another JVM wants it: released at the end of its operation
    volatile boolean lost; // its object is gone from the store: never trusted or removed again
    volatile boolean renew; // a sweep learned nothing: read it back before reusing it

    Hold(String key, String lockKey, LockRecord record, long sentAt) {
      this.key = key;
      this.lockKey = lockKey;
      this.wantKey = LockNames.wantKey(key);
      this.record = record;
      this.proofAt = sentAt;
    }

    boolean withinLease(long now) {
      return now - proofAt < leaseNanos;
    }

    void ensureHeld() {
      if (lost) {
        throw new CacheException(
            LockNames.describe(key)
                + ": its kept cluster lock "
                + lockKey
                + " is gone from the store (a master restart, or this client's segment dropped);"
                + " another JVM may hold the key now, so nothing was written");
      }
      long now = clock.getAsLong();
      if (!withinLease(now)) {
        throw new CacheException(
            LockNames.describe(key)
                + ": the cluster lock's lease of "
                + TimeUnit.NANOSECONDS.toMillis(leaseNanos)
                + " ms (lock_lease_ms) ran out "
                + TimeUnit.NANOSECONDS.toMillis(now - proofAt)
                + " ms after it was taken or last proved; another JVM"
                + " may hold the key now, so nothing was written. Keep operations under a lock"
                + " (entry processors, writers, loaders) shorter than the lease");
      }
    }
  }

  /**
   * The last operation on {@code hold} ended: keep it (the next one of this JVM pays no lock call)
   * or release it. A lost lock is only forgotten.
   */
  private void end(Hold hold, Deadline deadline) {
    long now = clock.getAsLong();
    if (hold.lost) {
      forgetLost(hold);
      return;
    }
    if (kept.mayKeep(hold.key, hold.revoked || hold.contended, hold.proofAt, holds.size(), now)) {
      hold.lastUsed = now;
      hold.handOns = 0;
      return;
    }
    if (local.waiting(hold.key) > 0
        && kept.mayHandOn(hold.revoked, hold.proofAt, hold.handOns, now)) {
      // Handed on: the next queued thread takes it with no store call (a thread that gives up
      // instead leaves it idle: the sweep releases it at its idle time, or on a want).
      hold.lastUsed = now;
      hold.handOns++;
      return;
    }
    holds.remove(hold.key);
    if (hold.contended) {
      kept.coolDown(hold.key, now);
    }
    releaseKept(hold, deadline);
  }

  /** What {@link #lock} hands out: one per call, so re-entry nests. */
  private final class Acquired implements Held {
    private final Hold hold;
    private final Held localHeld;
    private final Deadline deadline; // the operation's: the release ends by it too
    private boolean closed;

    Acquired(Hold hold, Held localHeld, Deadline deadline) {
      this.hold = hold;
      this.localHeld = localHeld;
      this.deadline = deadline;
    }

    @Override
    public void ensureHeld() {
      hold.ensureHeld();
    }

    @Override
    public void ensureHeldToReplace(Deadline operation) {
      hold.ensureHeld();
      if (!kept.reusableWithoutRead(hold.proofAt, clock.getAsLong())) {
        renewInUse(hold, operation);
      }
    }

    /** The hold's memo where holds outlive their operations (keeping on); else nothing to carry. */
    @Override
    public KeyLocks.Memo memo() {
      return kept.enabled() ? hold.memo : null;
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        if (--hold.depth == 0) {
          end(hold, deadline);
        }
      } finally {
        localHeld.close();
      }
    }
  }
}
