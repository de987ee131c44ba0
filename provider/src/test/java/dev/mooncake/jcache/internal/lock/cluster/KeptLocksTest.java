package dev.mooncake.jcache.internal.lock.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.calls.BoundedCalls;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.CacheException;
import org.junit.jupiter.api.Test;

/**
 * Lock keeping (docs/cluster-consistency.md, "Lock keeping") over the scripted cluster with an
 * injected clock: the holder's sweep is called by the test (or by the waiter's pause), so each
 * revocation, expiry and renewal happens at a known instant.
 */
class KeptLocksTest {
  private static final Duration LEASE = Duration.ofSeconds(5);
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final Duration IDLE = Duration.ofMillis(500);
  private static final String KEY = storeKey("k1");
  private static final String LOCK = LockNames.lockKey(KEY);
  private static final String WANT = LockNames.wantKey(KEY);

  private final ScriptedCluster cluster = new ScriptedCluster();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final ScriptedCluster.Client storeA = cluster.new Client("a:1");
  private final ScriptedCluster.Client storeB = cluster.new Client("b:1");

  /** What a waiting a does between its polls (tests that need another JVM's moves there). */
  private volatile Runnable whileAPauses = () -> {};

  private final ClusterKeyLocks a =
      keeping(
          storeA,
          "jvm-a",
          IDLE,
          n -> {
            advance(n);
            whileAPauses.run();
          });

  /** What a waiting JVM does between its polls; tests add the holder's sweep to it. */
  private volatile Runnable whileBWaits = () -> {};

  private final ClusterKeyLocks b =
      otherThan(
          a,
          () ->
              keeping(
                  storeB,
                  "jvm-b",
                  IDLE,
                  n -> {
                    advance(n);
                    whileBWaits.run();
                  }));

  private ClusterKeyLocks keeping(
      LockStore store, String holder, Duration idle, ClusterKeyLocks.Pause pause) {
    return new ClusterKeyLocks(
        store,
        holder,
        LEASE,
        TIMEOUT,
        nanos::get,
        pause,
        new BoundedCalls("kept-test", 4),
        ClusterKeyLocks.defaultReadBound(LEASE),
        idle);
  }

  private long advance(long n) {
    return nanos.addAndGet(n);
  }

  private void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  /**
   * Locks whose records differ in size from {@code a}'s (else a waiter reads them as maybe ours).
   */
  static ClusterKeyLocks otherThan(
      ClusterKeyLocks a, java.util.function.Supplier<ClusterKeyLocks> make) {
    int sizeOfA = new LockRecord(a.instance(), 1, "jvm-a").size();
    while (true) {
      ClusterKeyLocks locks = make.get();
      if (new LockRecord(locks.instance(), 1, "jvm-b").size() != sizeOfA) {
        return locks;
      }
    }
  }

  static String storeKey(String key) {
    Base64.Encoder e = Base64.getUrlEncoder().withoutPadding();
    return "mcj/"
        + e.encodeToString("default".getBytes(StandardCharsets.UTF_8))
        + "/"
        + e.encodeToString("orders".getBytes(StandardCharsets.UTF_8))
        + "/"
        + e.encodeToString(key.getBytes(StandardCharsets.UTF_8));
  }

  /** One operation of {@code locks} on the key: lock, then close. */
  private static void operate(ClusterKeyLocks locks, String key) {
    locks.lock(key, null, Deadline.none()).close();
  }

  /** A ride that hears how the lock proved itself. */
  private static final class Ride implements KeyLocks.Ride {
    boolean answered;
    boolean provenWithoutRead;

    @Override
    public ByteBuffer destination() {
      return ByteBuffer.allocate(64);
    }

    @Override
    public void answered(long result) {
      answered = true;
    }

    @Override
    public Runnable detach() {
      return () -> {};
    }

    @Override
    public void provenWithoutRead() {
      provenWithoutRead = true;
    }
  }

  private int callsOfA() {
    return storeA.puts + storeA.reads + storeA.batchReads + storeA.removes + storeA.sizes;
  }

  @Test
  void aKeptLockIsTakenAgainWithoutAStoreCallAndTheRideIsToldItIsProved() {
    operate(a, KEY);
    assertTrue(cluster.has(LOCK), "the lock was released, not kept");
    int before = callsOfA();
    Ride ride = new Ride();
    try (KeyLocks.Held held = a.lock(KEY, ride, Deadline.none())) {
      held.ensureHeld();
    }
    assertEquals(before, callsOfA(), "a kept lock went to the store");
    assertTrue(ride.provenWithoutRead);
    assertFalse(ride.answered, "nothing was read, so nothing may be answered");
    assertEquals(1, storeA.puts);
    assertEquals(0, storeA.removes);
  }

  @Test
  void withKeepingOffEveryOperationReleasesItsLock() {
    ClusterKeyLocks off = keeping(storeA, "jvm-off", Duration.ZERO, this::advance);
    operate(off, KEY);
    assertFalse(cluster.has(LOCK));
    operate(off, KEY);
    assertEquals(2, storeA.puts);
  }

  @Test
  void aWaiterPutsAWantAndTheHoldersPollReleasesTheIdleLock() {
    operate(a, KEY);
    whileBWaits = a::sweep; // the holder's sweep runs while b waits
    try (KeyLocks.Held held = b.lock(KEY, null, Deadline.none())) {
      held.ensureHeld();
      assertEquals(0, a.held(), "the holder still counts the lock");
      assertFalse(cluster.has(WANT), "the waiter's want outlived its acquisition");
    }
    assertTrue(storeB.puts >= 3, "lock put, want put, lock put again: " + storeB.puts);
  }

  @Test
  void aWaiterRemovesItsWantOnceItHoldsTheKey() {
    ClusterKeyLocks notKeeping = keeping(storeA, "jvm-a", Duration.ZERO, this::advance);
    KeyLocks.Held held = notKeeping.lock(KEY, null, Deadline.none());
    whileBWaits =
        () -> {
          if (cluster.has(WANT)) {
            held.close(); // released at its operation's end, the want untouched
          }
        };
    try (KeyLocks.Held taken = b.lock(KEY, null, Deadline.none())) {
      taken.ensureHeld();
      assertFalse(cluster.has(WANT), "the waiter's want outlived its acquisition");
    }
  }

  @Test
  void withoutAPollTheWaiterWaitsAndTimesOut() {
    operate(a, KEY); // no sweep runs: the want is never seen
    assertThrows(CacheException.class, () -> b.lock(KEY, null, Deadline.none()));
    assertTrue(cluster.has(LOCK));
    assertFalse(cluster.has(WANT), "a waiter that gave up left its want");
  }

  @Test
  void aLockInUseWhenWantedIsReleasedAtTheEndOfItsOperationAndNotHandedOn() {
    KeyLocks.Held held = a.lock(KEY, null, Deadline.none());
    storeB.createPinned(WANT, ByteBuffer.wrap(new byte[8]), Deadline.none());
    a.sweep();
    assertTrue(cluster.has(LOCK), "the sweep took a lock in use");
    held.ensureHeld(); // still ours until its operation ends
    held.close();
    assertFalse(cluster.has(LOCK), "a wanted lock was kept");
    assertFalse(cluster.has(WANT), "the holder did not remove the want it served");
    // the next operation of this JVM competes in the cluster (a put), and the key cools down
    operate(a, KEY);
    assertEquals(2, storeA.puts, "the lock was handed on after it was wanted");
    assertFalse(cluster.has(LOCK), "a key just revoked was kept again");
    advance(Duration.ofNanos(KeptLocks.COOLDOWN_NANOS));
    operate(a, KEY);
    assertTrue(cluster.has(LOCK), "the cool-down did not end");
  }

  @Test
  void anIdleLockGoesAfterTheIdleTime() {
    operate(a, KEY);
    advance(IDLE.minusMillis(1));
    a.sweep();
    assertTrue(cluster.has(LOCK), "released before its idle time");
    advance(Duration.ofMillis(1));
    a.sweep();
    assertFalse(cluster.has(LOCK), "kept past its idle time");
    assertEquals(0, a.held());
  }

  @Test
  void aLockOlderThanHalfALeaseIsReadBackBeforeReuseAndTheReadRenewsItsLease() {
    ClusterKeyLocks longIdle =
        keeping(storeA, "jvm-a", LEASE.multipliedBy(3).dividedBy(4).minusMillis(1), this::advance);
    operate(longIdle, KEY);
    advance(LEASE.dividedBy(2));
    int reads = storeA.reads + storeA.batchReads;
    try (KeyLocks.Held held = longIdle.lock(KEY, null, Deadline.none())) {
      assertEquals(reads + 1, storeA.reads + storeA.batchReads, "no renewal read");
      advance(LEASE.dividedBy(2).plusMillis(100)); // past the first proof's lease
      held.ensureHeld(); // the renewal's read proves it to its own send time + lease
      advance(LEASE.dividedBy(2));
      assertThrows(CacheException.class, held::ensureHeld);
    }
    assertEquals(1, storeA.puts, "renewal is a read, not a new acquisition");
  }

  @Test
  void aKeptLockIsReleasedByThreeQuartersOfItsLease() {
    ClusterKeyLocks longIdle = keeping(storeA, "jvm-a", LEASE.minusMillis(1), this::advance);
    operate(longIdle, KEY);
    advance(LEASE.multipliedBy(3).dividedBy(4).minusMillis(1));
    longIdle.sweep();
    assertTrue(cluster.has(LOCK));
    advance(Duration.ofMillis(1));
    longIdle.sweep();
    assertFalse(cluster.has(LOCK), "kept past 3/4 of its lease");
  }

  @Test
  void aHolderPausedPastItsLeaseWritesNothingAndIsNotReusedWithoutARead() {
    KeyLocks.Held held = a.lock(KEY, null, Deadline.none());
    advance(LEASE.plusMillis(1)); // SIGSTOP
    assertThrows(CacheException.class, held::ensureHeld);
    held.close();
    assertFalse(cluster.has(LOCK), "past its lease, the release still removes our own lock");
    assertEquals(0, a.held(), "a lock past its lease was kept");
  }

  @Test
  void aKeptLockWhoseObjectWentIsNeverTrustedNorRemoved() {
    KeyLocks.Held held = a.lock(KEY, null, Deadline.none());
    cluster.drop("a:1"); // a master restart, or our segment dropped
    a.sweep();
    assertThrows(CacheException.class, held::ensureHeld, "a lost lock still proved itself");
    KeyLocks.Held taken = b.lock(KEY, null, Deadline.none()); // another JVM takes the key
    int removes = storeA.removes;
    held.close();
    assertEquals(removes, storeA.removes, "a lost lock was removed: it could be another's");
    assertTrue(cluster.has(LOCK), "the other JVM's lock went");
    taken.close();
    b.close(); // it kept the key: release it
    operate(a, KEY);
    assertEquals(2, storeA.puts, "a lost lock was reused");
  }

  @Test
  void anIdleKeptLockWhoseObjectWentIsForgottenWithoutARemove() {
    operate(a, KEY);
    cluster.drop("a:1");
    a.sweep();
    assertEquals(0, a.held());
    assertEquals(0, storeA.removes);
  }

  @Test
  void aWrongAbsentAnswerLeavesNoLockBehind() {
    operate(a, KEY);
    storeA.sizeAnswers.add(-704L); // the want: absent
    storeA.sizeAnswers.add(-704L); // our lock object: absent, wrongly (it is still there)
    a.sweep();
    assertEquals(0, a.held(), "a lock answered absent was still trusted");
    assertTrue(cluster.has(LOCK));
    operate(a, storeKey("k2")); // the next lock call removes it once a read shows our token
    assertFalse(cluster.has(LOCK), "our lock object stayed behind, blocking every other JVM");
  }

  @Test
  void aDeadKeepersLocksGoWithItsSegment() {
    operate(a, KEY); // kept; then the JVM is killed: its segment goes after client_ttl
    cluster.drop("a:1");
    try (KeyLocks.Held held = b.lock(KEY, null, Deadline.none())) {
      held.ensureHeld();
    }
  }

  @Test
  void closingReleasesEveryKeptLockAndKeepsNoMore() {
    String other = storeKey("k2");
    operate(a, KEY);
    operate(a, other);
    a.close();
    assertFalse(cluster.has(LOCK));
    assertFalse(cluster.has(LockNames.lockKey(other)));
    operate(a, KEY);
    assertFalse(cluster.has(LOCK), "a closed lock kept a lock");
    a.close(); // idempotent
  }

  @Test
  void aFailedPollMakesTheNextReuseReadTheLockBack() {
    operate(a, KEY);
    storeA.sizeAnswers.add(-900L); // the want's answer (the scripted store asks sizes)
    a.sweep();
    int reads = storeA.reads + storeA.batchReads;
    operate(a, KEY);
    assertEquals(reads + 1, storeA.reads + storeA.batchReads, "reused without a renewal");
  }

  @Test
  void noMoreThanTheBoundAreKept() {
    for (int i = 0; i < KeptLocks.MAX_KEPT + 10; i++) {
      operate(a, storeKey("k" + i));
    }
    assertEquals(KeptLocks.MAX_KEPT, a.held());
  }

  @Test
  void theWantKeyLivesOutsideTheCachesNamespaceAndTheLocks() {
    assertTrue(WANT.startsWith("mcjwant/"), WANT);
    assertEquals(WANT.substring("mcjwant/".length()), LOCK.substring("mcjlock/".length()));
  }

  /** a kept KEY, b's want seen by a's sweep: released to the want, cooling down and yielding. */
  private void revokeAToB() {
    operate(a, KEY);
    storeB.createPinned(WANT, ByteBuffer.wrap(new byte[8]), Deadline.none());
    a.sweep();
    assertFalse(cluster.has(LOCK), "the want did not revoke the kept lock");
    storeB.remove(WANT, Deadline.none()); // b was served (or gave up)
  }

  @Test
  void aContendedKeyIsHandedOnToQueuedThreadsAtMostTheBoundInARow() throws Exception {
    revokeAToB(); // the key cools down: not kept after an operation, only handed on
    advance(Duration.ofNanos(KeptLocks.YIELD_NANOS));
    int threads = KeptLocks.MAX_HAND_ONS + 4;
    int puts = storeA.puts;
    KeyLocks.Held first = a.lock(KEY, null, Deadline.none());
    java.util.List<Thread> queued = new java.util.ArrayList<>();
    java.util.concurrent.atomic.AtomicInteger failures =
        new java.util.concurrent.atomic.AtomicInteger();
    for (int i = 0; i < threads; i++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  operate(a, KEY);
                } catch (RuntimeException e) {
                  failures.incrementAndGet();
                }
              });
      t.start();
      queued.add(t);
    }
    long spinUntil = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (a.waiting(KEY) < threads) { // every thread queued on the in-JVM lock
      assertTrue(System.nanoTime() < spinUntil, "the threads did not queue");
      Thread.onSpinWait();
    }
    first.close();
    for (Thread t : queued) {
      t.join();
    }
    assertEquals(0, failures.get());
    // 1 + MAX_HAND_ONS operations on the first lock, the rest on a second one
    assertEquals(puts + 2, storeA.puts, "hand-ons were not bounded, or did not happen");
    assertFalse(cluster.has(LOCK), "a cooling key stayed kept after its queue ran dry");
  }

  @Test
  void aJvmThatGaveAKeyUpToAWantLetsTheWaiterTakeItFirst() {
    revokeAToB();
    int puts = storeA.puts;
    long before = nanos.get();
    operate(a, KEY); // nobody takes it: a waits out the yield, then puts its own lock
    assertEquals(puts + 1, storeA.puts);
    assertTrue(
        nanos.get() - before >= KeptLocks.YIELD_NANOS,
        "a's acquisition put before the yield ended: " + (nanos.get() - before) + " ns");
  }

  @Test
  void aYieldingJvmWaitsForTheWaiterThatTookTheKeyAndWantsItBack() {
    revokeAToB();
    KeyLocks.Held[] bHeld = new KeyLocks.Held[1];
    ClusterKeyLocks yielding =
        a; // a's pauses run b: b takes the key during a's yield, then releases it to a's want
    whileAPauses =
        () -> {
          if (bHeld[0] == null) {
            bHeld[0] = b.lock(KEY, null, Deadline.none());
          } else if (cluster.has(WANT) && bHeld[0] != null) {
            bHeld[0].close();
            b.sweep();
          }
        };
    int puts = storeA.puts;
    operate(yielding, KEY);
    assertTrue(bHeld[0] != null, "b never took the key during a's yield");
    assertTrue(storeB.puts >= 2, "b did not put its lock");
    assertEquals(puts + 2, storeA.puts, "a's want and a's lock: no lock put during the yield");
  }

  /**
   * A kept lock counts as held, so lockAll must not keep one of a later key while it waits for an
   * earlier one: another JVM holding the earlier key and waiting for the later would wait for it
   * until both deadlines (seen in a two-JVM history: putAll against putAll, 20 s apart).
   */
  @Test
  void lockAllReleasesTheKeptLocksOfLaterKeysBeforeItWaitsForAnEarlierOne() {
    String first = storeKey("k0");
    String later = KEY;
    operate(a, later); // a keeps the later key
    assertTrue(cluster.has(LOCK));
    KeyLocks.Held bHoldsFirst = b.lock(first, null, Deadline.none());
    boolean[] laterFreeWhileWaiting = new boolean[1];
    whileAPauses =
        () -> {
          // b now wants the later key; it can only get it if a gave it up while waiting
          if (!cluster.has(LOCK) && !laterFreeWhileWaiting[0]) {
            laterFreeWhileWaiting[0] = true;
            operate(b, later);
            bHoldsFirst.close();
          } else if (laterFreeWhileWaiting[0]) {
            b.sweep(); // b keeps what it took; a's want revokes it
          }
        };
    java.util.List<KeyLocks.Held> held = a.lockAll(new String[] {first, later}, Deadline.none());
    try {
      assertTrue(laterFreeWhileWaiting[0], "a waited for the first key holding the later one");
      held.forEach(KeyLocks.Held::ensureHeld);
    } finally {
      KeyLocks.closeAll(held);
    }
  }
}
