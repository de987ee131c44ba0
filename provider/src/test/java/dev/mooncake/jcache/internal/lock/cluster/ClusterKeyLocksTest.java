package dev.mooncake.jcache.internal.lock.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.calls.BoundedCalls;
import dev.mooncake.jcache.internal.calls.CallTimeoutException;
import dev.mooncake.jcache.internal.lock.ForwardingKeyLocks;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.CacheException;
import org.junit.jupiter.api.Test;

/**
 * Cluster locks over a scripted cluster (create-only put, segments, -703/-704 between put and
 * read-back) with an injected clock: waiting advances it, so time-outs and leases are exact.
 */
class ClusterKeyLocksTest {
  private static final Duration LEASE = Duration.ofSeconds(5);
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final String KEY = storeKey("orders", "k1");
  private static final String LOCK = LockNames.lockKey(KEY);
  private static final Duration READ_BOUND = Duration.ofMillis(20);

  private final ScriptedCluster cluster = new ScriptedCluster();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final ScriptedCluster.Client storeA = cluster.new Client("a:1");
  private final ScriptedCluster.Client storeB = cluster.new Client("b:1");
  private final ClusterKeyLocks a = locks(storeA, "jvm-a");
  // Of another size than a's records: instances whose random tags match (1 in 64) read each
  // other's lock objects as maybe theirs, which the tests below do not expect of a waiter.
  private final ClusterKeyLocks b = locksOtherThanA(storeB, "jvm-b");

  private ClusterKeyLocks locks(LockStore store, String holder) {
    return TestLocks.on(store, holder, LEASE, TIMEOUT, nanos::get, nanos::addAndGet);
  }

  private ClusterKeyLocks locksOtherThanA(LockStore store, String holder) {
    int sizeOfA = new LockRecord(a.instance(), 1, "jvm-a").size();
    while (true) {
      ClusterKeyLocks locks = locks(store, holder);
      if (new LockRecord(locks.instance(), 1, holder).size() != sizeOfA) {
        return locks;
      }
    }
  }

  /** Locks whose reads are given up on after a short real-time bound (paused segments). */
  private ClusterKeyLocks boundedLocks(LockStore store, String holder, BoundedCalls reads) {
    return new ClusterKeyLocks(
        store,
        holder,
        LEASE,
        TIMEOUT,
        nanos::get,
        nanos::addAndGet,
        reads,
        READ_BOUND,
        Duration.ZERO);
  }

  /** A lock record of another instance, of another size than a's records (so not maybe-ours). */
  private byte[] foreign(String holder) {
    long other = 7;
    while (new LockRecord(other, 1, holder).size()
        == new LockRecord(a.instance(), 1, "jvm-a").size()) {
      other++;
    }
    return new LockRecord(other, 1, holder).encode(LOCK).array();
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertTrue(condition.getAsBoolean(), "not within 30 s");
  }

  private static String storeKey(String cache, String key) {
    Base64.Encoder e = Base64.getUrlEncoder().withoutPadding();
    return "mcj/"
        + e.encodeToString("default".getBytes(StandardCharsets.UTF_8))
        + "/"
        + e.encodeToString(cache.getBytes(StandardCharsets.UTF_8))
        + "/"
        + e.encodeToString(key.getBytes(StandardCharsets.UTF_8));
  }

  private void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  @Test
  void aSecondJvmWaitsThenTimesOutNamingTheCacheTheKeyAndTheHolder() {
    try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
      long before = nanos.get();
      CacheException e =
          assertThrows(CacheException.class, () -> b.lock(KEY, null, Deadline.none()));
      assertTrue(e.getMessage().contains("cache 'orders'"), e.getMessage());
      assertTrue(e.getMessage().contains(KEY), e.getMessage());
      assertTrue(e.getMessage().contains("held by jvm-a"), e.getMessage());
      assertTrue(e.getMessage().contains("operation_timeout_ms"), e.getMessage());
      long waited = nanos.get() - before;
      assertTrue(waited <= TIMEOUT.toNanos() && waited > TIMEOUT.toNanos() / 2, "waited " + waited);
      assertEquals(0, b.held());
    }
    assertFalse(cluster.has(LOCK), "the lock object outlived its release");
    try (KeyLocks.Held held = b.lock(KEY, null, Deadline.none())) {
      assertTrue(cluster.has(LOCK));
    }
  }

  @Test
  void theLockObjectLivesOutsideTheCachesNamespace() {
    assertTrue(LOCK.startsWith("mcjlock/"), LOCK);
    String clearPattern = "^" + KEY.substring(0, KEY.lastIndexOf('/') + 1);
    assertFalse(
        java.util.regex.Pattern.compile(clearPattern).matcher(LOCK).find(),
        "clear() would remove locks");
    assertEquals(LOCK, LockNames.lockKey(KEY), "a lock key is derived, not random");
    assertFalse(LockNames.lockKey(storeKey("orders", "k2")).equals(LOCK));
  }

  @Test
  void reentryNestsAndOnlyTheOutermostCloseReleases() {
    KeyLocks.Held outer = a.lock(KEY, null, Deadline.none());
    KeyLocks.Held inner = a.lock(KEY, null, Deadline.none());
    assertEquals(1, storeA.puts, "re-entry went to the store");
    inner.close();
    inner.close(); // idempotent
    assertTrue(cluster.has(LOCK), "the inner close released the outer lock");
    assertThrows(CacheException.class, () -> b.lock(KEY, null, Deadline.none()));
    outer.close();
    assertFalse(cluster.has(LOCK));
    assertEquals(0, a.held());
  }

  @Test
  void aLockCostsOnePutOneReadAndOneRemove() {
    try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
      held.ensureHeld();
    }
    assertEquals(1, storeA.puts);
    assertEquals(1, storeA.reads);
    assertEquals(1, storeA.removes);
  }

  /** Four store keys in their shared (sorted) order, as putAll locks them. */
  private static String[] sortedKeys() {
    String[] keys = {
      storeKey("orders", "k1"),
      storeKey("orders", "k2"),
      storeKey("orders", "k3"),
      storeKey("orders", "k4")
    };
    java.util.Arrays.sort(keys);
    return keys;
  }

  @Test
  void lockAllTakesFreeKeysWithOneBatchPutAndOneBatchReadAndReleasesEveryOne() {
    String[] keys = sortedKeys();
    List<KeyLocks.Held> held = a.lockAll(keys, Deadline.none());
    assertEquals(keys.length, held.size());
    assertEquals(keys.length, a.held());
    assertEquals(1, storeA.batchPuts);
    assertEquals(1, storeA.batchReadAlls);
    assertEquals(0, storeA.puts, "a key was locked alone");
    assertEquals(0, storeA.reads, "a key was read back alone");
    for (String key : keys) {
      assertTrue(cluster.has(LockNames.lockKey(key)));
    }
    held.forEach(KeyLocks.Held::ensureHeld);
    assertThrows(CacheException.class, () -> b.lock(keys[2], null, Deadline.none()));
    KeyLocks.closeAll(held);
    assertEquals(0, a.held());
    assertEquals(0, cluster.size(), "locks left behind");
  }

  @Test
  void lockAllReentersKeysAlreadyHeldAndOnlyTheOutermostCloseReleases() {
    String[] keys = sortedKeys();
    try (KeyLocks.Held outer = a.lock(keys[1], null, Deadline.none())) {
      List<KeyLocks.Held> held =
          a.lockAll(new String[] {keys[0], keys[1], keys[1], keys[2]}, Deadline.none());
      assertEquals(4, held.size());
      assertEquals(3, a.held());
      assertEquals(1, storeA.batchPuts);
      assertEquals(1, storeA.puts, "only the outer lock's own put");
      KeyLocks.closeAll(held);
      assertTrue(cluster.has(LockNames.lockKey(keys[1])), "the outer lock was released");
      assertEquals(1, cluster.size());
    }
    assertEquals(0, cluster.size());
  }

  @Test
  void aKeyHeldElsewhereIsWaitedForAloneWithoutHoldingTheKeysAfterIt() {
    String[] keys = sortedKeys();
    KeyLocks.Held bHolds = b.lock(keys[1], null, Deadline.none());
    AtomicInteger pauses = new AtomicInteger();
    List<String> whileWaiting = new ArrayList<>();
    ClusterKeyLocks waiting =
        TestLocks.on(
            storeA,
            "jvm-a",
            LEASE,
            TIMEOUT,
            nanos::get,
            n -> {
              nanos.addAndGet(n);
              if (pauses.getAndIncrement() == 0) {
                // A waits for keys[1]: the keys after it must be free. B's lock of keys[3] would
                // wait out its timeout and throw if A still held it.
                try (KeyLocks.Held later = b.lock(keys[3], null, Deadline.none())) {
                  whileWaiting.add(keys[3]);
                }
                bHolds.close();
              }
            });
    List<KeyLocks.Held> held = waiting.lockAll(keys, Deadline.none());
    assertEquals(List.of(keys[3]), whileWaiting);
    assertEquals(keys.length, waiting.held());
    assertEquals(0, waiting.leftovers());
    // One batch for all four (won keys[0], keys[2], keys[3]; keys[2] and keys[3] given back),
    // keys[1] alone, then one batch for keys[2] and keys[3].
    assertEquals(2, storeA.batchPuts);
    KeyLocks.closeAll(held);
    assertEquals(0, cluster.size(), "locks left behind");
  }

  /**
   * A holder killed inside its lock object's put leaves it in flight: Mooncake answers 0 to puts
   * over it (storing nothing), -703 to reads and sizes, and discards it only at a put made late
   * enough. The acquisition puts again once the sizes have answered -703 for {@link
   * StoreStatus#STUCK_PUT_NANOS}, instead of watching until its deadline.
   */
  @Test
  void aLockObjectLeftInFlightByADeadHolderIsPutAgainOnceItLooksStuck() {
    storeA.putAnswers.add(0); // over the put in flight: answered, nothing stored
    storeA.readAnswers.add((long) StoreStatus.REPLICA_IS_NOT_READY.code());
    for (int i = 0; i < 10_000; i++) {
      storeA.sizeAnswers.add((long) StoreStatus.REPLICA_IS_NOT_READY.code());
    }
    long before = nanos.get();
    try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
      long waited = nanos.get() - before;
      assertEquals(2, storeA.puts, "one put over the stuck one, one once it looked stuck");
      assertTrue(
          waited >= StoreStatus.STUCK_PUT_NANOS && waited < TIMEOUT.toNanos(), "waited " + waited);
    }
  }

  @Test
  void aBatchReadWithoutAnAnswerForAKeyTakesItAloneAndLeavesNoLockBehind() {
    String[] keys = sortedKeys();
    // keys[0]'s read-back answers "put in flight": its lock may or may not be ours
    storeA.readAnswers.add((long) StoreStatus.REPLICA_IS_NOT_READY.code());
    List<KeyLocks.Held> held = a.lockAll(keys, Deadline.none());
    assertEquals(keys.length, a.held());
    assertEquals(0, a.leftovers(), "the unknown record was not settled");
    KeyLocks.closeAll(held);
    assertEquals(0, cluster.size(), "locks left behind");
  }

  @Test
  void aLockAllThatTimesOutHoldsNothingAfterwards() throws Exception {
    String[] keys = sortedKeys();
    try (KeyLocks.Held bHolds = b.lock(keys[2], null, Deadline.none())) {
      CacheException e = assertThrows(CacheException.class, () -> a.lockAll(keys, Deadline.none()));
      assertTrue(e.getMessage().contains("held by jvm-b"), e.getMessage());
      assertEquals(0, a.held());
      assertEquals(1, cluster.size(), "A's locks outlived the failed lockAll");
      // and the JVM-local locks went too: another thread of A takes a key at once
      java.util.concurrent.CompletableFuture.runAsync(
              () -> a.lock(keys[0], null, Deadline.none()).close())
          .get(30, java.util.concurrent.TimeUnit.SECONDS);
    }
    assertEquals(0, cluster.size());
  }

  /** A ride that remembers what it heard, and which of its buffers were handed over and back. */
  private static final class Ride implements KeyLocks.Ride {
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(64);
    final List<Long> answers = new ArrayList<>();
    final List<java.nio.ByteBuffer> detached = new ArrayList<>();
    final List<java.nio.ByteBuffer> givenBack = new java.util.concurrent.CopyOnWriteArrayList<>();
    int asked;

    @Override
    public java.nio.ByteBuffer destination() {
      asked++;
      return buffer;
    }

    @Override
    public void answered(long result) {
      answers.add(result);
    }

    @Override
    public Runnable detach() {
      java.nio.ByteBuffer given = buffer;
      detached.add(given);
      buffer = java.nio.ByteBuffer.allocate(64);
      return () -> givenBack.add(given);
    }
  }

  @Test
  void theReadBackReadsTheKeyInTheSameBatchAndTellsTheRideOnlyWhenTheLockIsOurs() {
    cluster.putForeign(KEY, "entry".getBytes(StandardCharsets.UTF_8), "c:1");
    Ride ride = new Ride();
    try (KeyLocks.Held held = a.lock(KEY, ride, Deadline.none())) {
      assertEquals(List.of(5L), ride.answers);
      assertEquals("entry", new String(ride.buffer.array(), 0, 5, StandardCharsets.UTF_8));
      Ride again = new Ride();
      try (KeyLocks.Held inner = a.lock(KEY, again, Deadline.none())) {
        assertEquals(0, again.asked, "re-entry read something");
        assertEquals(List.of(), again.answers);
      }
    }
    assertEquals(1, storeA.puts);
    assertEquals(0, storeA.reads, "the read-back was not folded into the batch");
    assertEquals(1, storeA.batchReads);
    assertEquals(1, storeA.removes);
  }

  @Test
  void aDecoratorBuiltOnTheForwardingBaseKeepsTheRide() {
    cluster.putForeign(KEY, "entry".getBytes(StandardCharsets.UTF_8), "c:1");
    AtomicInteger stamps = new AtomicInteger();
    KeyLocks counting = // changes one method, as a decorator does; the rest forwards
        new ForwardingKeyLocks(a) {
          @Override
          public long readStamp(String key) {
            stamps.incrementAndGet();
            return super.readStamp(key);
          }
        };
    Ride ride = new Ride();
    try (KeyLocks.Held held = counting.lock(KEY, ride, Deadline.none())) {
      assertEquals(List.of(5L), ride.answers, "the decorator dropped the ride");
      held.ensureHeld();
    }
    assertEquals(1, storeA.batchReads, "the entry was not read with the lock");
    assertEquals(0, storeA.reads);
    counting.readStamp(KEY);
    assertEquals(1, stamps.get());
  }

  @Test
  void whileAnotherJvmHoldsTheKeyPollsReadTheLockAloneAndOnlyTheWinningBatchIsHeard() {
    Ride ride = new Ride();
    KeyLocks.Held heldByA = a.lock(KEY, null, Deadline.none());
    // B's first read-back (a batch) finds A's token: the entry answer is dropped. B then waits on
    // the master's metadata (the size, no read of A's segment); A releases, so B's poll finds
    // nothing, B puts again and its batch wins.
    storeB.beforeSize =
        key -> {
          if (storeB.sizes == 1) {
            heldByA.close();
          }
        };
    cluster.putForeign(KEY, "v".getBytes(StandardCharsets.UTF_8), "c:1");
    try (KeyLocks.Held held = b.lock(KEY, ride, Deadline.none())) {
      assertEquals(List.of(1L), ride.answers, "only the batch that proved the lock is heard");
    }
    assertEquals(2, storeB.puts);
    assertEquals(2, storeB.batchReads, "a read right after each put of ours");
    assertEquals(0, storeB.reads, "a waiter read another holder's lock object");
    assertEquals(2, storeB.sizes, "the polls while A held it, and the one that saw it gone");
  }

  @Test
  void afterTheLeaseTheHolderRefusesToWriteAndItsReleaseRemovesOnlyItsOwnLock() {
    KeyLocks.Held held = a.lock(KEY, null, Deadline.none());
    advance(LEASE.minusMillis(1));
    held.ensureHeld();
    advance(Duration.ofMillis(1));
    CacheException e = assertThrows(CacheException.class, held::ensureHeld);
    assertTrue(e.getMessage().contains("lock_lease_ms"), e.getMessage());
    assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());

    // Paused past client_ttl: Mooncake dropped A's segment, B took the key.
    cluster.drop("a:1");
    KeyLocks.Held taken = b.lock(KEY, null, Deadline.none());
    held.close();
    assertTrue(cluster.has(LOCK), "the late release removed another JVM's lock");
    assertThrows(CacheException.class, () -> a.lock(KEY, null, Deadline.none()), "two holders");
    taken.close();
  }

  @Test
  void aLateReleaseOfALockStillOursRemovesIt() {
    KeyLocks.Held held = a.lock(KEY, null, Deadline.none());
    advance(LEASE.plusSeconds(1));
    held.close();
    assertFalse(cluster.has(LOCK));
    assertEquals(2, storeA.reads, "the late release did not read the token back first");
  }

  @Test
  void aTornReadOfOurLockAtALateReleaseIsReadAgainAndTheLockRemoved() {
    KeyLocks.Held held = a.lock(KEY, null, Deadline.none());
    advance(LEASE.plusSeconds(1)); // past the lease: the release reads the token back first
    storeA.readAnswers.add(5L); // a torn read: not a whole lock record
    held.close();
    assertFalse(cluster.has(LOCK), "a torn read at release was taken as someone else's lock");
    assertEquals(0, a.leftovers());
    assertEquals(3, storeA.reads, "the read-back, the torn read, the read again");
  }

  @Test
  void aLockUnreadableForTheWholeReleaseStaysALeftoverAndIsRemovedByTheNextCall() {
    KeyLocks.Held held = a.lock(KEY, null, Deadline.none());
    advance(LEASE.plusSeconds(1));
    for (int i = 0; i < 10_000; i++) {
      storeA.readAnswers.add(5L);
    }
    held.close(); // reads again until the release's bound, then keeps it
    assertTrue(cluster.has(LOCK));
    assertEquals(1, a.leftovers(), "an unreadable lock of ours was dropped as not ours");
    storeA.readAnswers.clear();
    try (KeyLocks.Held other = a.lock(storeKey("orders", "k2"), null, Deadline.none())) {
      assertEquals(0, a.leftovers());
      assertFalse(cluster.has(LOCK));
    }
  }

  @Test
  void aHolderResumedPastItsOperationsDeadlineStillReleasesItsLock() {
    // A holder paused inside its operation (SIGSTOP, a long GC) wakes with its deadline spent:
    // its release gets a short budget of its own, else the lock would stay as a leftover and
    // block every other JVM until this one made another lock call (seen on a real Mooncake).
    Deadline operation = Deadline.after(Duration.ofSeconds(1), Ticker.ofNanos(nanos::get));
    KeyLocks.Held held = a.lock(KEY, null, operation);
    advance(LEASE.plusSeconds(1));
    assertTrue(operation.expired());
    held.close();
    assertFalse(cluster.has(LOCK), "the lock stayed behind its holder's late release");
    assertEquals(0, a.leftovers());
    try (KeyLocks.Held taken = b.lock(KEY, null, Deadline.none())) {
      assertTrue(cluster.has(LOCK), "another JVM could not take the key after the release");
    }
  }

  @Test
  void aDeadHoldersLockGoesWithItsSegment() {
    a.lock(KEY, null, Deadline.none()); // never released: the process dies
    assertThrows(CacheException.class, () -> b.lock(KEY, null, Deadline.none()));
    cluster.drop("a:1");
    try (KeyLocks.Held held = b.lock(KEY, null, Deadline.none())) {
      held.ensureHeld();
    }
  }

  @Test
  void aPutInFlightIsReadAgainAndAVanishedHolderIsRacedAgain() {
    // -703 on the read-back: the master then tells the object's size, ours: read again.
    storeA.readAnswers.add((long) StoreStatus.REPLICA_IS_NOT_READY.code());
    storeA.readAnswers.add((long) StoreStatus.REPLICA_IS_NOT_READY.code());
    try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
      assertEquals(3, storeA.reads);
      assertEquals(2, storeA.sizes);
      assertEquals(1, storeA.puts);
    }
    // B's put finds A's lock; A's lock goes before B reads back (-704): B puts again and wins.
    a.lock(KEY, null, Deadline.none());
    storeB.beforeRead =
        key -> {
          if (storeB.reads == 0) {
            cluster.drop("a:1");
          }
        };
    try (KeyLocks.Held mine = b.lock(KEY, null, Deadline.none())) {
      assertEquals(2, storeB.puts);
      assertEquals(2, storeB.reads);
      assertEquals(0, storeB.sizes);
    }
  }

  @Test
  void transientStoreErrorsAreRetriedAndOthersFailClearly() {
    storeA.putAnswers.add(StoreStatus.RPC_FAIL.code());
    storeA.putAnswers.add(StoreStatus.NO_AVAILABLE_HANDLE.code());
    try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
      assertEquals(3, storeA.puts);
    }
    storeA.putAnswers.add(StoreStatus.INVALID_PARAMS.code());
    CacheException e = assertThrows(CacheException.class, () -> a.lock(KEY, null, Deadline.none()));
    assertTrue(e.getMessage().contains("-600 INVALID_PARAMS"), e.getMessage());
    assertEquals(0, a.held());
    try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
      held.ensureHeld(); // the failure left nothing behind
    }
  }

  @Test
  void aLockPutRetriesExactlyTheCodesStoreStatusCallsTransientForLockCalls() {
    for (StoreStatus status : StoreStatus.values()) {
      int code = status.code();
      if (code == 0) {
        continue;
      }
      int puts = storeA.puts;
      storeA.putAnswers.add(code);
      if (StoreStatus.isTransientForLockCalls(code)) {
        try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
          assertEquals(puts + 2, storeA.puts, status + " was retried");
        }
      } else {
        CacheException e =
            assertThrows(
                CacheException.class, () -> a.lock(KEY, null, Deadline.none()), status.name());
        assertTrue(e.getMessage().contains("putting its cluster lock"), e.getMessage());
        assertTrue(e.getMessage().contains(StoreStatus.describe(code)), e.getMessage());
        assertEquals(puts + 1, storeA.puts, status + " was retried");
        assertEquals(0, a.held());
      }
    }
  }

  @Test
  void aLockReadRetriesExactlyTheCodesStoreStatusCallsTransientForLockCalls() {
    for (StoreStatus status : StoreStatus.values()) {
      int code = status.code();
      if (code == 0 || status == StoreStatus.OBJECT_NOT_FOUND) {
        continue; // a size and an answer (released: put again), not failures
      }
      storeA.readAnswers.add((long) code);
      if (StoreStatus.isTransientForLockCalls(code)) {
        try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
          held.ensureHeld(); // waited on the master's size, which was ours: read again
        }
      } else {
        CacheException e =
            assertThrows(
                CacheException.class, () -> a.lock(KEY, null, Deadline.none()), status.name());
        assertTrue(e.getMessage().contains("reading its cluster lock"), e.getMessage());
        assertTrue(e.getMessage().contains(StoreStatus.describe(code)), e.getMessage());
        assertEquals(0, a.held());
      }
      assertTrue(storeA.readAnswers.isEmpty(), status + " was not read");
    }
  }

  @Test
  void aForeignObjectAtTheLockKeyIsReported() {
    cluster.putForeign(LOCK, "not a lock".getBytes(StandardCharsets.UTF_8), "c:1");
    CacheException e = assertThrows(CacheException.class, () -> a.lock(KEY, null, Deadline.none()));
    assertTrue(e.getMessage().contains("is not a lock of this provider"), e.getMessage());
  }

  @Test
  void anUnreachableLockIsWaitedOnWithTheMastersMetadataUntilItGoes() {
    // Seen on a real Mooncake: -800 reading a dead holder's lock until its segment goes. The
    // waiter asks the master for the size instead of reading again, and races once it is gone.
    cluster.putForeign(LOCK, foreign("jvm-c"), "c:1");
    storeA.readAnswers.add((long) StoreStatus.TRANSFER_FAIL.code());
    storeA.beforeSize =
        key -> {
          if (storeA.sizes == 3) {
            cluster.drop("c:1");
          }
        };
    try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
      held.ensureHeld();
      assertTrue(cluster.has(LOCK));
    }
    assertEquals(2, storeA.reads, "-800, then ours after the put that followed -704");
    assertEquals(4, storeA.sizes);
    assertEquals(2, storeA.puts);
  }

  @Test
  void aTornReadIsSettledByTheMasterAndAReplacedLockIsReadOnce() {
    // A read torn by a remove racing it (bytes of another object); then the master shows another
    // object (another instance's size): it is read once, to learn its holder, then waited on.
    cluster.putForeign(LOCK, "torn".getBytes(StandardCharsets.UTF_8), "c:1");
    storeA.beforeSize =
        key -> {
          if (storeA.sizes == 1) {
            cluster.replace(LOCK, foreign("jvm-d"), "d:1");
          } else if (storeA.sizes == 3) {
            cluster.drop("d:1");
          }
        };
    try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
      held.ensureHeld();
    }
    assertEquals(3, storeA.reads, "the torn read, jvm-d's record, ours");
    assertEquals(2, storeA.puts);
  }

  @Test
  void aLockOfOurOwnThatOutlivedItsPutIsRemovedAndTheKeyRacedAgain() {
    // A put that timed out (-901) yet took effect later: our token, not this attempt's.
    storeA.putAnswers.add(StoreStatus.RPC_TIMEOUT.code());
    a.lock(KEY, null, Deadline.none()).close();
    cluster.putForeign(LOCK, new LockRecord(a.instance(), 1, "jvm-a").encode(LOCK).array(), "a:1");
    try (KeyLocks.Held held = a.lock(KEY, null, Deadline.none())) {
      assertTrue(storeA.removes >= 2, "the stale lock was not removed");
    }
    assertFalse(cluster.has(LOCK));
  }

  @Test
  void aFailedReleaseIsRetriedByTheNextCallAndTheLockIsNotLost() {
    for (int i = 0; i < 1000; i++) {
      storeA.removeAnswers.add(StoreStatus.RPC_FAIL.code());
    }
    a.lock(KEY, null, Deadline.none())
        .close(); // retries until the operation timeout, then leaves it
    assertEquals(1, a.leftovers());
    assertTrue(cluster.has(LOCK));
    storeA.removeAnswers.clear();
    try (KeyLocks.Held other = a.lock(storeKey("orders", "k2"), null, Deadline.none())) {
      assertEquals(0, a.leftovers());
      assertFalse(cluster.has(LOCK));
    }
  }

  @Test
  void aPausedHoldersLockIsWaitedOnWithTheMastersMetadataAndTakenOnceItsSegmentGoes() {
    // A real Mooncake blocks a read from a stopped process's segment in its handshake (60 s):
    // B's read-back gives up after its bound, waits on sizes, and races once A's segment goes.
    ClusterKeyLocks waiter = boundedLocks(storeB, "jvm-b", new BoundedCalls("test-reads", 4));
    cluster.putForeign(KEY, "v".getBytes(StandardCharsets.UTF_8), "c:1");
    a.lock(KEY, null, Deadline.none()); // A holds, then stops
    cluster.pause("a:1");
    storeB.beforeSize =
        key -> {
          if (storeB.sizes == 3) {
            cluster.drop("a:1"); // client_ttl passed: the master drops A's segment
          }
        };
    Ride ride = new Ride();
    java.nio.ByteBuffer first = ride.buffer;
    long before = nanos.get();
    try (KeyLocks.Held held = waiter.lock(KEY, ride, Deadline.none())) {
      held.ensureHeld();
      assertEquals(List.of(first), ride.detached, "the stuck batch kept the ride's first buffer");
      assertEquals(List.of(), ride.givenBack, "given back while the stuck read could write to it");
      assertEquals(List.of(1L), ride.answers, "the entry, from the batch that proved the lock");
      assertTrue(ride.buffer != first, "the winning batch read into the stuck read's buffer");
    }
    assertTrue(nanos.get() - before < TIMEOUT.toNanos(), "waited past the operation timeout");
    assertEquals(2, storeB.batchReads, "the stuck read-back and the one after the put");
    assertEquals(0, storeB.reads, "a read of the paused holder's lock while one was stuck");
    assertEquals(4, storeB.sizes);
    assertEquals(1, waiter.stuckReads());
    cluster.resume("a:1"); // SIGCONT: the stuck read returns, and only then gives its buffer back
    awaitTrue(() -> waiter.stuckReads() == 0);
    assertEquals(List.of(first), ride.givenBack);
  }

  @Test
  void aSlowReadBackOfOurOwnLockIsReadAgainOnceItReturnsAndTheLockIsNotLeftBehind() {
    // Our own read-back was slow (a loaded machine): the master says the object has our size, so
    // it may be ours; it is read again (not while the slow read still runs) and found ours.
    ClusterKeyLocks slow = boundedLocks(storeA, "jvm-a", new BoundedCalls("test-reads", 4));
    cluster.pause("a:1");
    storeA.beforeSize =
        key -> {
          if (storeA.sizes == 2) {
            cluster.resume("a:1");
            awaitTrue(() -> slow.stuckReads() == 0);
          }
        };
    try (KeyLocks.Held held = slow.lock(KEY, null, Deadline.none())) {
      held.ensureHeld();
    }
    assertEquals(2, storeA.reads, "the slow read-back, then one read once it had returned");
    assertEquals(3, storeA.sizes, "two polls while the slow read ran");
    assertEquals(1, storeA.puts);
    assertFalse(cluster.has(LOCK), "our lock object was left behind");
  }

  @Test
  void beyondTheBoundOfStuckReadsLockCallsWaitAndTimeOutNamingTheStuckReads() {
    ClusterKeyLocks one = boundedLocks(storeB, "jvm-b", new BoundedCalls("test-reads", 1));
    cluster.putForeign(LOCK, foreign("jvm-c"), "c:1");
    cluster.pause("c:1"); // jvm-c holds KEY and is stopped
    CacheException paused =
        assertThrows(CacheException.class, () -> one.lock(KEY, null, Deadline.none()));
    assertTrue(paused.getMessage().contains("did not answer a read"), paused.getMessage());
    assertTrue(paused.getMessage().contains("a paused process"), paused.getMessage());
    assertEquals(1, one.stuckReads());
    // The one stuck read is the bound: another key's read-back is not started, and its lock call
    // times out saying why (nothing concluded without reading our token).
    String other = storeKey("orders", "k2");
    CacheException full =
        assertThrows(CacheException.class, () -> one.lock(other, null, Deadline.none()));
    assertTrue(full.getMessage().contains("not started"), full.getMessage());
    assertTrue(full.getMessage().contains("(at most 1)"), full.getMessage());
    cluster.resume("c:1");
    awaitTrue(() -> one.stuckReads() == 0);
    try (KeyLocks.Held held = one.lock(other, null, Deadline.none())) {
      held.ensureHeld(); // its own lock object, left by the call that timed out, is found ours
    }
    assertFalse(cluster.has(LockNames.lockKey(other)));
  }

  @Test
  void anAbsentReadIsAlwaysConfirmedUnderTheLock() {
    long stamp = a.readStamp(KEY);
    assertTrue(a.mayHaveChanged(KEY, stamp));
  }

  @Test
  void threeJvmsTimesTwoThreadsNeverShareAKey() throws Exception {
    List<ClusterKeyLocks> jvms = new ArrayList<>();
    for (int j = 0; j < 3; j++) {
      jvms.add(
          new ClusterKeyLocks(
              cluster.new Client("s" + j + ":1"), "jvm-" + j, LEASE, Duration.ofSeconds(30)));
    }
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    int[] counters = new int[3];
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (ClusterKeyLocks jvm : jvms) {
      for (int t = 0; t < 2; t++) {
        Thread thread =
            new Thread(
                () -> {
                  for (int i = 0; i < 300; i++) {
                    int k = i % 3;
                    try (KeyLocks.Held held =
                        jvm.lock(storeKey("c", "k" + k), null, Deadline.none())) {
                      if (k == 0 && inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                      }
                      counters[k]++; // not atomic on purpose: the lock must make it so
                      if (k == 0) {
                        inside.decrementAndGet();
                      }
                    }
                  }
                });
        thread.setUncaughtExceptionHandler(
            (th, e) -> {
              synchronized (failures) {
                failures.add(e);
              }
            });
        threads.add(thread);
        thread.start();
      }
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertEquals(List.of(), failures);
    assertEquals(0, overlaps.get());
    assertEquals(600, counters[0]);
    assertEquals(600, counters[1]);
    assertEquals(600, counters[2]);
    assertEquals(0, cluster.size(), "locks left behind");
  }

  /**
   * A store whose calls can be made to get no answer in time, as a bounded Mooncake call under a
   * dead master does ({@link CallTimeoutException}); records the time each call was allowed.
   */
  private static final class Unanswering implements LockStore {
    final LockStore store;
    final List<Long> allowed = new ArrayList<>();
    final Thread caller = Thread.currentThread();
    volatile boolean putTakesEffectUnanswered;
    volatile boolean removeUnanswered;

    Unanswering(LockStore store) {
      this.store = store;
    }

    /**
     * Calls on the lock caller's thread only: reads of lock objects run on the locks' bounded read
     * pool, whose caller waits at most its own read bound anyway.
     */
    private void note(Deadline deadline) {
      if (Thread.currentThread() == caller) {
        allowed.add(deadline.remainingNanos());
      }
    }

    private static CallTimeoutException noAnswer(String what) {
      return new CallTimeoutException(what + ": no answer within 1 ms; -901 RPC_TIMEOUT");
    }

    @Override
    public int createPinned(String key, ByteBuffer value, Deadline deadline) {
      note(deadline);
      int code = store.createPinned(key, value, deadline);
      if (putTakesEffectUnanswered) {
        throw noAnswer("put of '" + key + "'"); // it took effect; the caller cannot know
      }
      return code;
    }

    @Override
    public long read(String key, ByteBuffer destination, Deadline deadline) {
      note(deadline);
      return store.read(key, destination, deadline);
    }

    @Override
    public long[] readWith(
        String lockKey,
        ByteBuffer lockDestination,
        String key,
        ByteBuffer destination,
        Deadline deadline) {
      note(deadline);
      return store.readWith(lockKey, lockDestination, key, destination, deadline);
    }

    @Override
    public long size(String key, Deadline deadline) {
      note(deadline);
      return store.size(key, deadline);
    }

    @Override
    public int remove(String key, Deadline deadline) {
      note(deadline);
      if (removeUnanswered) {
        throw noAnswer("remove of '" + key + "'");
      }
      return store.remove(key, deadline);
    }

    @Override
    public String describe() {
      return store.describe();
    }
  }

  @Test
  void everyStoreCallOfAnAcquisitionAndAReleaseEndsByItsDeadline() {
    Unanswering store = new Unanswering(storeA);
    ClusterKeyLocks locks = locks(store, "jvm-a");
    try (KeyLocks.Held held = locks.lock(KEY, null, Deadline.none())) {
      assertFalse(store.allowed.isEmpty());
    }
    assertFalse(cluster.has(LOCK));
    assertTrue(store.allowed.size() >= 2, "put and remove at least: " + store.allowed);
    for (long allowed : store.allowed) {
      // Without a deadline each call would have its own operation timeout (here: unbounded).
      assertTrue(allowed <= TIMEOUT.toNanos(), "a call allowed " + allowed + " ns");
    }
  }

  @Test
  void aPutWithoutAnswerFailsTheLockNamingItAndItsRecordIsRemovedLater() {
    Unanswering store = new Unanswering(storeA);
    ClusterKeyLocks locks = locks(store, "jvm-a");
    store.putTakesEffectUnanswered = true;
    CacheException e =
        assertThrows(CacheException.class, () -> locks.lock(KEY, null, Deadline.none()));
    assertTrue(e.getMessage().contains("cluster lock not acquired"), e.getMessage());
    assertTrue(e.getMessage().contains("got no answer in time"), e.getMessage());
    assertTrue(e.getMessage().contains("-901 RPC_TIMEOUT"), e.getMessage());
    assertTrue(cluster.has(LOCK), "the scripted put took effect");
    assertEquals(1, locks.leftovers(), "a put of unknown outcome must be kept as a leftover");
    assertEquals(0, locks.held());
    store.putTakesEffectUnanswered = false;
    // The master answers again: the next lock call removes the record of ours, then takes the key.
    try (KeyLocks.Held held = locks.lock(KEY, null, Deadline.none())) {
      assertEquals(0, locks.leftovers());
    }
    assertFalse(cluster.has(LOCK));
    try (KeyLocks.Held held = b.lock(KEY, null, Deadline.none())) {
      assertTrue(cluster.has(LOCK), "another JVM could not take the key after it");
    }
  }

  @Test
  void aFailedReleaseIsRetriedInTheBackgroundWithoutAnotherLockCall() {
    // A holder resumed from a pause whose release floor ran out left its lock behind, blocking
    // other JVMs until its next lock call (RealDeadlinesTest on a real Mooncake): the leftover is
    // now retried on a thread of its own.
    Unanswering store = new Unanswering(storeA);
    ClusterKeyLocks locks = locks(store, "jvm-a");
    locks.retryLeftoversInBackground();
    try {
      KeyLocks.Held held = locks.lock(KEY, null, Deadline.none());
      store.removeUnanswered = true;
      held.close();
      assertEquals(1, locks.leftovers());
      store.removeUnanswered = false;
      awaitTrue(() -> locks.leftovers() == 0);
      assertFalse(cluster.has(LOCK), "the leftover's lock object is still there");
      try (KeyLocks.Held taken = b.lock(KEY, null, Deadline.none())) {
        assertTrue(cluster.has(LOCK), "another JVM could not take the key");
      }
    } finally {
      locks.close();
    }
  }

  @Test
  void aReleaseWithoutAnswerDoesNotThrowAndKeepsTheLockAsALeftover() {
    Unanswering store = new Unanswering(storeA);
    ClusterKeyLocks locks = locks(store, "jvm-a");
    KeyLocks.Held held = locks.lock(KEY, null, Deadline.none());
    store.removeUnanswered = true;
    held.close(); // a release never throws
    assertEquals(0, locks.held());
    assertEquals(1, locks.leftovers());
    store.removeUnanswered = false;
    try (KeyLocks.Held again = locks.lock(storeKey("orders", "k2"), null, Deadline.none())) {
      assertEquals(0, locks.leftovers(), "the next lock call did not remove the leftover");
    }
    assertFalse(cluster.has(LOCK));
  }
}
