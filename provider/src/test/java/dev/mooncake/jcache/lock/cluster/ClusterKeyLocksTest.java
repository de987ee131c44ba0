package dev.mooncake.jcache.lock.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.backend.StoreStatus;
import dev.mooncake.jcache.lock.KeyLocks;
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

  private final ScriptedCluster cluster = new ScriptedCluster();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final ScriptedCluster.Client storeA = cluster.new Client("a:1");
  private final ScriptedCluster.Client storeB = cluster.new Client("b:1");
  private final ClusterKeyLocks a = locks(storeA, "jvm-a");
  private final ClusterKeyLocks b = locks(storeB, "jvm-b");

  private ClusterKeyLocks locks(LockStore store, String holder) {
    return new ClusterKeyLocks(store, holder, LEASE, TIMEOUT, nanos::get, nanos::addAndGet);
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
    try (KeyLocks.Held held = a.lock(KEY)) {
      long before = nanos.get();
      CacheException e = assertThrows(CacheException.class, () -> b.lock(KEY));
      assertTrue(e.getMessage().contains("cache 'orders'"), e.getMessage());
      assertTrue(e.getMessage().contains(KEY), e.getMessage());
      assertTrue(e.getMessage().contains("held by jvm-a"), e.getMessage());
      assertTrue(e.getMessage().contains("operation_timeout_ms"), e.getMessage());
      long waited = nanos.get() - before;
      assertTrue(waited <= TIMEOUT.toNanos() && waited > TIMEOUT.toNanos() / 2, "waited " + waited);
      assertEquals(0, b.held());
    }
    assertFalse(cluster.has(LOCK), "the lock object outlived its release");
    try (KeyLocks.Held held = b.lock(KEY)) {
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
    KeyLocks.Held outer = a.lock(KEY);
    KeyLocks.Held inner = a.lock(KEY);
    assertEquals(1, storeA.puts, "re-entry went to the store");
    inner.close();
    inner.close(); // idempotent
    assertTrue(cluster.has(LOCK), "the inner close released the outer lock");
    assertThrows(CacheException.class, () -> b.lock(KEY));
    outer.close();
    assertFalse(cluster.has(LOCK));
    assertEquals(0, a.held());
  }

  @Test
  void aLockCostsOnePutOneReadAndOneRemove() {
    try (KeyLocks.Held held = a.lock(KEY)) {
      held.ensureHeld();
    }
    assertEquals(1, storeA.puts);
    assertEquals(1, storeA.reads);
    assertEquals(1, storeA.removes);
  }

  /** A ride that remembers what it heard. */
  private static final class Ride implements KeyLocks.Ride {
    final java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(64);
    final List<Long> answers = new ArrayList<>();
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
  }

  @Test
  void theReadBackReadsTheKeyInTheSameBatchAndTellsTheRideOnlyWhenTheLockIsOurs() {
    cluster.putForeign(KEY, "entry".getBytes(StandardCharsets.UTF_8), "c:1");
    Ride ride = new Ride();
    try (KeyLocks.Held held = a.lock(KEY, ride)) {
      assertEquals(List.of(5L), ride.answers);
      assertEquals("entry", new String(ride.buffer.array(), 0, 5, StandardCharsets.UTF_8));
      Ride again = new Ride();
      try (KeyLocks.Held inner = a.lock(KEY, again)) {
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
  void whileAnotherJvmHoldsTheKeyPollsReadTheLockAloneAndOnlyTheWinningBatchIsHeard() {
    Ride ride = new Ride();
    KeyLocks.Held heldByA = a.lock(KEY);
    // B's first read-back (a batch) finds A's token: the entry answer is dropped. A then releases,
    // so B's next poll (the lock alone) finds nothing, B puts again and its batch wins.
    storeB.beforeRead =
        key -> {
          if (storeB.batchReads + storeB.reads == 1) {
            heldByA.close();
          }
        };
    cluster.putForeign(KEY, "v".getBytes(StandardCharsets.UTF_8), "c:1");
    try (KeyLocks.Held held = b.lock(KEY, ride)) {
      assertEquals(List.of(1L), ride.answers, "only the batch that proved the lock is heard");
    }
    assertEquals(2, storeB.puts);
    assertEquals(2, storeB.batchReads, "a read right after each put of ours");
    assertEquals(1, storeB.reads, "the poll while A held it");
  }

  @Test
  void afterTheLeaseTheHolderRefusesToWriteAndItsReleaseRemovesOnlyItsOwnLock() {
    KeyLocks.Held held = a.lock(KEY);
    advance(LEASE.minusMillis(1));
    held.ensureHeld();
    advance(Duration.ofMillis(1));
    CacheException e = assertThrows(CacheException.class, held::ensureHeld);
    assertTrue(e.getMessage().contains("lock_lease_ms"), e.getMessage());
    assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());

    // Paused past client_ttl: Mooncake dropped A's segment, B took the key.
    cluster.drop("a:1");
    KeyLocks.Held taken = b.lock(KEY);
    held.close();
    assertTrue(cluster.has(LOCK), "the late release removed another JVM's lock");
    assertThrows(CacheException.class, () -> a.lock(KEY), "two holders");
    taken.close();
  }

  @Test
  void aLateReleaseOfALockStillOursRemovesIt() {
    KeyLocks.Held held = a.lock(KEY);
    advance(LEASE.plusSeconds(1));
    held.close();
    assertFalse(cluster.has(LOCK));
    assertEquals(2, storeA.reads, "the late release did not read the token back first");
  }

  @Test
  void aDeadHoldersLockGoesWithItsSegment() {
    a.lock(KEY); // never released: the process dies
    assertThrows(CacheException.class, () -> b.lock(KEY));
    cluster.drop("a:1");
    try (KeyLocks.Held held = b.lock(KEY)) {
      held.ensureHeld();
    }
  }

  @Test
  void aPutInFlightIsReadAgainAndAVanishedHolderIsRacedAgain() {
    storeA.readAnswers.add((long) StoreStatus.REPLICA_IS_NOT_READY.code());
    storeA.readAnswers.add((long) StoreStatus.REPLICA_IS_NOT_READY.code());
    try (KeyLocks.Held held = a.lock(KEY)) {
      assertEquals(3, storeA.reads);
      assertEquals(1, storeA.puts);
    }
    // B's put finds A's lock; A releases before B reads back (-704): B puts again and wins.
    KeyLocks.Held held = a.lock(KEY);
    storeB.beforeRead =
        key -> {
          if (cluster.has(LOCK) && storeB.reads == 0) {
            held.close();
          }
        };
    try (KeyLocks.Held mine = b.lock(KEY)) {
      assertEquals(2, storeB.puts);
      assertEquals(2, storeB.reads);
    }
  }

  @Test
  void transientStoreErrorsAreRetriedAndOthersFailClearly() {
    storeA.putAnswers.add(StoreStatus.RPC_FAIL.code());
    storeA.putAnswers.add(StoreStatus.NO_AVAILABLE_HANDLE.code());
    try (KeyLocks.Held held = a.lock(KEY)) {
      assertEquals(3, storeA.puts);
    }
    storeA.putAnswers.add(StoreStatus.INVALID_PARAMS.code());
    CacheException e = assertThrows(CacheException.class, () -> a.lock(KEY));
    assertTrue(e.getMessage().contains("-600 INVALID_PARAMS"), e.getMessage());
    assertEquals(0, a.held());
    try (KeyLocks.Held held = a.lock(KEY)) {
      held.ensureHeld(); // the failure left nothing behind
    }
  }

  @Test
  void aForeignObjectAtTheLockKeyIsReported() {
    cluster.putForeign(LOCK, "not a lock".getBytes(StandardCharsets.UTF_8), "c:1");
    CacheException e = assertThrows(CacheException.class, () -> a.lock(KEY));
    assertTrue(e.getMessage().contains("is not a lock of this provider"), e.getMessage());
  }

  @Test
  void anUnreachableOrTornLockReadIsReadAgain() {
    // Seen on a real Mooncake: -800 reading a dead holder's lock until its segment goes, and a
    // read torn by a remove racing it (bytes of another object). Neither fails the lock call.
    cluster.putForeign(LOCK, "torn".getBytes(StandardCharsets.UTF_8), "c:1");
    storeA.readAnswers.add((long) StoreStatus.TRANSFER_FAIL.code());
    storeA.readAnswers.add((long) StoreStatus.LEASE_EXPIRED.code());
    storeA.beforeRead =
        key -> {
          if (storeA.reads == 3) {
            cluster.drop("c:1");
          }
        };
    try (KeyLocks.Held held = a.lock(KEY)) {
      held.ensureHeld();
      assertTrue(cluster.has(LOCK));
    }
    assertEquals(5, storeA.reads, "-800, -707, the torn read, -704, ours");
    assertEquals(2, storeA.puts);
  }

  @Test
  void aLockOfOurOwnThatOutlivedItsPutIsRemovedAndTheKeyRacedAgain() {
    // A put that timed out (-901) yet took effect later: our token, not this attempt's.
    storeA.putAnswers.add(StoreStatus.RPC_TIMEOUT.code());
    a.lock(KEY).close();
    cluster.putForeign(LOCK, new LockRecord(a.instance(), 1, "jvm-a").encode().array(), "a:1");
    try (KeyLocks.Held held = a.lock(KEY)) {
      assertTrue(storeA.removes >= 2, "the stale lock was not removed");
    }
    assertFalse(cluster.has(LOCK));
  }

  @Test
  void aFailedReleaseIsRetriedByTheNextCallAndTheLockIsNotLost() {
    for (int i = 0; i < 1000; i++) {
      storeA.removeAnswers.add(StoreStatus.RPC_FAIL.code());
    }
    a.lock(KEY).close(); // retries until the operation timeout, then leaves it
    assertEquals(1, a.leftovers());
    assertTrue(cluster.has(LOCK));
    storeA.removeAnswers.clear();
    try (KeyLocks.Held other = a.lock(storeKey("orders", "k2"))) {
      assertEquals(0, a.leftovers());
      assertFalse(cluster.has(LOCK));
    }
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
                    try (KeyLocks.Held held = jvm.lock(storeKey("c", "k" + k))) {
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
}
