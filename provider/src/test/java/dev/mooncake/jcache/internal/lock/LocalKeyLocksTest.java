package dev.mooncake.jcache.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.time.Deadline;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Per-key locks: exclusion, no leftovers, and read stamps that never miss a writer. */
class LocalKeyLocksTest {
  private final LocalKeyLocks locks = new LocalKeyLocks();

  @Test
  void locksExistOnlyWhileUsed() {
    for (int i = 0; i < 1000; i++) {
      try (KeyLocks.Held held = locks.lock("k" + i, null, Deadline.none())) {
        assertEquals(1, locks.size());
      }
    }
    assertEquals(0, locks.size(), "locks of keys no longer in use were kept");
  }

  @Test
  void aKeyIsHeldByOneThreadAndUnrelatedKeysDoNotWait() throws Exception {
    CountDownLatch otherKeyLocked = new CountDownLatch(1);
    CountDownLatch sameKeyLocked = new CountDownLatch(1);
    try (KeyLocks.Held held = locks.lock("a", null, Deadline.none())) {
      Thread other =
          new Thread(
              () -> {
                try (KeyLocks.Held b = locks.lock("b", null, Deadline.none())) {
                  otherKeyLocked.countDown();
                }
                try (KeyLocks.Held a = locks.lock("a", null, Deadline.none())) {
                  sameKeyLocked.countDown();
                }
              });
      other.start();
      assertTrue(otherKeyLocked.await(5, TimeUnit.SECONDS), "an unrelated key waited");
      assertFalse(sameKeyLocked.await(200, TimeUnit.MILLISECONDS), "two holders of one key");
    }
    assertTrue(sameKeyLocked.await(5, TimeUnit.SECONDS));
  }

  @Test
  void aReadStampSeesAnyLockTakenOrHeldSinceIt() {
    long quiet = locks.readStamp("k");
    assertFalse(locks.mayHaveChanged("k", quiet));

    try (KeyLocks.Held held = locks.lock("k", null, Deadline.none())) {
      assertTrue(locks.mayHaveChanged("k", quiet), "a lock taken after the stamp went unseen");
      long duringHold = locks.readStamp("k");
      assertTrue(locks.mayHaveChanged("k", duringHold), "a stamp taken while held looked quiet");
    }
    long after = locks.readStamp("k");
    assertFalse(locks.mayHaveChanged("k", after));
  }
}
