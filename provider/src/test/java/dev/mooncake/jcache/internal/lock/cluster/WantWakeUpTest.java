package dev.mooncake.jcache.internal.lock.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.calls.BoundedCalls;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lock keeping's wake-up by the master's KV events (docs/lock-keeping.md, "The wake-up"): a want's
 * {@code stored} event, published by the waiter's put (a publishing decorator over the scripted
 * cluster), makes the holder ask about that want at once and release its idle lock, with no poll
 * period in between; while the stream is live and no want is heard, a holder asks the master
 * nothing; a flush or a stream that is not live brings the poll back. The clock is injected: no
 * sweep here runs because time passed, unless a test advances it.
 */
class WantWakeUpTest {
  private static final Duration LEASE = Duration.ofSeconds(5);
  private static final Duration IDLE = Duration.ofSeconds(2);
  private static final String KEY = KeptLocksTest.storeKey("k1");
  private static final String LOCK = LockNames.lockKey(KEY);
  private static final String WANT = LockNames.wantKey(KEY);
  private static final long TICK = KeptLocks.POLL_NANOS;

  private final ScriptedCluster cluster = new ScriptedCluster();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final ScriptedCluster.Client clientA = cluster.new Client("a:1");
  private final ScriptedCluster.Client clientB = cluster.new Client("b:1");
  private final PublishingLockStore storeA = new PublishingLockStore(cluster, clientA);
  private final PublishingLockStore storeB = new PublishingLockStore(cluster, clientB);
  private final ClusterKeyLocks a = locks(storeA, "jvm-a");
  private final WantEvents.Feed feedA = a.openWantFeed();
  private final ClusterKeyLocks b = KeptLocksTest.otherThan(a, () -> locks(storeB, "jvm-b"));

  private ClusterKeyLocks locks(LockStore store, String holder) {
    return new ClusterKeyLocks(
        store,
        holder,
        LEASE,
        Duration.ofSeconds(2),
        nanos::get,
        nanos::addAndGet,
        new BoundedCalls("wake-test", 4),
        ClusterKeyLocks.defaultReadBound(LEASE),
        IDLE);
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  /** The stream as the master publishes it: every JVM's puts reach a's subscription. */
  private void eventsReachA() {
    storeA.stored = feedA::stored;
    storeB.stored = feedA::stored;
    feedA.flushed(true);
  }

  /** What a sweep asked the master (the scripted store answers existence with sizes). */
  private int asked() {
    return clientA.sizes;
  }

  private static void operate(ClusterKeyLocks locks, String key) {
    locks.lock(key, null, Deadline.none()).close();
  }

  /** b's waiter: its want goes to the cluster (and, with events, to a's feed). */
  private void bWants() {
    storeB.createPinned(WANT, java.nio.ByteBuffer.wrap(new byte[8]), Deadline.none());
  }

  @Test
  void withTheStreamLiveAnIdleHolderAsksNothingUntilAWantIsHeardThenReleasesAtOnce() {
    eventsReachA();
    operate(a, KEY);
    a.sweep(); // the first round after the stream became live asks about every lock once
    int first = asked();
    assertEquals(2, first, "the want and the lock object, once");
    for (int i = 0; i < 50; i++) {
      nanos.addAndGet(TICK);
      a.sweep();
    }
    assertEquals(first, asked(), "a live stream with no want heard still polled");
    assertTrue(cluster.has(LOCK));
    bWants(); // published: a hears it
    a.sweep(); // the wake-up's sweep, the clock not moved: no poll period passed
    assertFalse(cluster.has(LOCK), "the heard want did not release the idle lock");
    assertEquals(first + 2, asked(), "the wake-up asks about the heard lock only");
    assertEquals(0, a.held());
  }

  @Test
  void aWantHeardWhileTheHolderStillAcquiredIsAskedAtItsFirstSweep() {
    eventsReachA();
    operate(a, storeKeyOther()); // some other lock, so the stream's first full round is done
    a.sweep();
    bWants(); // heard before a holds the key
    operate(a, KEY); // a acquires (the want does not stop a create-only put) and keeps it
    nanos.addAndGet(TICK);
    a.sweep();
    assertFalse(cluster.has(LOCK), "a want heard before the lock was taken was forgotten");
  }

  @Test
  void aFlushMakesTheNextSweepAskAboutEveryLock() {
    eventsReachA();
    operate(a, KEY);
    a.sweep();
    storeB.stored = key -> {}; // the master drops the want's event (back-pressure: a gap)
    bWants();
    nanos.addAndGet(TICK);
    a.sweep();
    assertTrue(cluster.has(LOCK), "nothing heard, nothing asked: the lock stays");
    feedA.flushed(true); // the gap flushes the stream
    a.sweep();
    assertFalse(cluster.has(LOCK), "after a flush the sweep did not ask every want");
  }

  @Test
  void whileTheStreamIsNotLiveTheSweepPollsEveryRound() {
    operate(a, KEY); // no feed is live: events off
    for (int i = 1; i <= 3; i++) {
      nanos.addAndGet(TICK);
      a.sweep();
      assertEquals(2 * i, asked(), "the fallback poll skipped a round");
    }
    eventsReachA();
    feedA.flushed(false); // the stream dropped
    nanos.addAndGet(TICK);
    a.sweep();
    assertEquals(8, asked(), "a stream that is not live must poll");
  }

  @Test
  void aLiveStreamStillAsksAboutEveryLockOncePerSecond() {
    eventsReachA();
    operate(a, KEY);
    a.sweep();
    nanos.addAndGet(KeptLocks.LIVE_CHECK_NANOS - 1);
    a.sweep();
    assertEquals(2, asked());
    cluster.drop("a:1"); // our lock object went without a flush (our segment dropped)
    nanos.addAndGet(1);
    a.sweep();
    assertEquals(4, asked(), "no slow check of the lock objects");
    assertEquals(0, a.held(), "a lost lock object stayed trusted");
  }

  @Test
  void aWaiterInAnotherJvmGetsTheKeyWithoutTheHolderPolling() {
    eventsReachA();
    operate(a, KEY);
    a.sweep();
    int askedBefore = asked();
    storeB.stored =
        key -> {
          feedA.stored(key);
          a.sweep(); // the sweep the event wakes (the thread's own test is below)
        };
    long before = nanos.get();
    try (KeyLocks.Held held = b.lock(KEY, null, Deadline.none())) {
      held.ensureHeld();
    }
    assertEquals(askedBefore + 2, asked(), "the holder asked more than the heard want");
    assertTrue(
        nanos.get() - before < TICK,
        "the waiter waited a poll period or more: " + (nanos.get() - before) + " ns");
  }

  @Test
  void theEventWakesTheSweepThreadWhosePeriodNeverEnds() throws InterruptedException {
    CountDownLatch released = new CountDownLatch(1);
    storeA.removed =
        key -> {
          if (key.equals(LOCK)) {
            released.countDown();
          }
        };
    eventsReachA();
    a.startKeeping(TimeUnit.HOURS.toNanos(1));
    operate(a, KEY);
    a.sweep(); // the stream's first full round, so only a heard want makes the thread ask
    bWants();
    assertTrue(released.await(30, TimeUnit.SECONDS), "the event did not wake the sweep's thread");
    assertFalse(cluster.has(LOCK));
  }

  private static String storeKeyOther() {
    return KeptLocksTest.storeKey("other");
  }
}
