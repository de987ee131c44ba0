package dev.mooncake.jcache.internal.near;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class NearCacheTest {
  private static final long ETERNAL = Long.MAX_VALUE;

  private static <E> NearCache<E> live(int max) {
    NearCache<E> near = new NearCache<>(max);
    near.flush(true);
    return near;
  }

  @Test
  void servesWhatWasInstalledUntilInvalidated() {
    NearCache<String> near = NearCacheTest.<String>live(10);
    near.install("k", "v1", ETERNAL, near.token("k"));
    assertEquals("v1", near.get("k", 0));
    near.invalidate("k");
    assertNull(near.get("k", 0));
  }

  @Test
  void aReadInFlightDuringAnInvalidationInstallsNothing() {
    NearCache<String> near = NearCacheTest.<String>live(10);
    long token = near.token("k"); // a read starts
    near.invalidate("k"); // the event for k arrives meanwhile
    near.install("k", "stale", ETERNAL, token);
    assertNull(near.get("k", 0));
    near.install("k", "fresh", ETERNAL, near.token("k"));
    assertEquals("fresh", near.get("k", 0));
  }

  /**
   * An own write forgets the copy exactly as an event does (a read in flight installs nothing), and
   * each counter counts only its own cause.
   */
  @Test
  void anOwnWriteForgetsTheCopyAndTheCountersTellTheCausesApart() {
    NearCache<String> near = NearCacheTest.<String>live(10);
    near.install("k", "v1", ETERNAL, near.token("k"));
    assertEquals("v1", near.get("k", 0));
    long token = near.token("k"); // a read of k starts
    near.invalidateOwnWrite("k"); // this JVM writes k meanwhile
    assertNull(near.get("k", 0), "the written key's old copy is gone");
    near.install("k", "old", ETERNAL, token);
    assertNull(near.get("k", 0), "the read in flight kept nothing");
    near.install("k", "v2", ETERNAL, near.token("k"));
    near.invalidate("k"); // an event
    assertNull(near.get("k", 0));
    near.flush(true);

    assertEquals(1, near.hits());
    assertEquals(3, near.misses());
    assertEquals(2, near.installs());
    assertEquals(1, near.refusedInstalls());
    assertEquals(1, near.ownInvalidations());
    assertEquals(1, near.invalidations());
    assertEquals(2, near.flushes()); // live() flushed once
  }

  @Test
  void aReadInFlightDuringAFlushInstallsNothing() {
    NearCache<String> near = NearCacheTest.<String>live(10);
    long token = near.token("k");
    near.flush(true);
    near.install("k", "stale", ETERNAL, token);
    assertNull(near.get("k", 0));
  }

  @Test
  void notLiveServesAndKeepsNothing() {
    NearCache<String> near = new NearCache<>(10);
    assertEquals(NearCache.REFUSED, near.token("k"));
    near.install("k", "v", ETERNAL, 0);
    assertNull(near.get("k", 0));
    near.flush(true);
    near.install("k", "v", ETERNAL, near.token("k"));
    assertEquals("v", near.get("k", 0));
    near.flush(false); // the subscription dropped
    assertNull(near.get("k", 0));
    near.install("k", "v", ETERNAL, near.token("k"));
    assertNull(near.get("k", 0));
    assertEquals(0, near.size());
  }

  @Test
  void expiredEntriesAreMisses() {
    NearCache<String> near = NearCacheTest.<String>live(10);
    near.install("k", "v", 100, near.token("k"));
    assertEquals("v", near.get("k", 99));
    assertNull(near.get("k", 100));
    assertEquals(0, near.size());
  }

  @Test
  void boundedByMaxEntries() {
    NearCache<String> near = NearCacheTest.<String>live(100);
    for (int i = 0; i < 1000; i++) {
      near.install("k" + i, "v", ETERNAL, near.token("k" + i));
    }
    assertTrue(near.size() <= 100, "size " + near.size());
    assertThrows(IllegalArgumentException.class, () -> new NearCache<>(0));
  }

  /**
   * Readers install what they read while a writer changes the value and invalidates after each
   * write: once an invalidation returned, no later get may see a value older than that write.
   */
  @Test
  void neverServesAValueOlderThanTheLastInvalidation() throws Exception {
    NearCache<Long> near = NearCacheTest.<Long>live(16);
    AtomicLong store = new AtomicLong();
    AtomicLong invalidatedUpTo = new AtomicLong(-1);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong violations = new AtomicLong();
    CountDownLatch done = new CountDownLatch(2);
    Runnable reader =
        () -> {
          while (!stop.get()) {
            long floor = invalidatedUpTo.get();
            Long held = near.get("k", 0);
            if (held == null) {
              long token = near.token("k");
              near.install("k", store.get(), ETERNAL, token);
            } else if (held < floor) {
              violations.incrementAndGet();
            }
          }
          done.countDown();
        };
    new Thread(reader).start();
    new Thread(reader).start();
    for (long v = 1; v <= 200_000; v++) {
      store.set(v);
      near.invalidate("k");
      invalidatedUpTo.set(v);
    }
    stop.set(true);
    done.await();
    assertEquals(0, violations.get());
  }
}
