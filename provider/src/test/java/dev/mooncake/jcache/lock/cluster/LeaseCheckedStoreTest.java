package dev.mooncake.jcache.lock.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.backend.StoreStatus;
import dev.mooncake.jcache.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.lock.KeyLocks;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.CacheException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every put and remove under a cluster lock is checked against its lease, right before the call.
 */
class LeaseCheckedStoreTest {
  private static final Duration LEASE = Duration.ofSeconds(5);
  private final AtomicLong nanos = new AtomicLong();
  private final ClusterKeyLocks locks =
      new ClusterKeyLocks(
          new ScriptedCluster().new Client("a:1"),
          "jvm-a",
          LEASE,
          Duration.ofSeconds(1),
          nanos::get,
          nanos::addAndGet);
  private final InProcessStore inner = InProcessStore.open(ConfigLoader.defaults());
  private final ObjectStore store = new LeaseCheckedStore(inner, locks);

  @AfterEach
  void close() {
    store.close();
  }

  private static ByteBuffer value(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void writesUnderALiveLeasePassAndAfterItNothingIsWritten() {
    try (KeyLocks.Held held = locks.lock("mcj/a/b/k")) {
      assertEquals(0, store.put("mcj/a/b/k", value("one")));
      nanos.addAndGet(LEASE.toNanos());
      assertThrows(CacheException.class, () -> store.remove("mcj/a/b/k", true));
      assertThrows(CacheException.class, () -> store.put("mcj/a/b/k", value("two")));
      assertThrows(
          CacheException.class,
          () ->
              store.batchPut(
                  new String[] {"mcj/a/b/other", "mcj/a/b/k"},
                  new ByteBuffer[] {value("x"), value("y")}));
      assertEquals(1, inner.isExist("mcj/a/b/k"), "the refused remove went through");
      assertEquals(0, inner.isExist("mcj/a/b/other"), "a refused batch wrote part of itself");
      // Keys this JVM does not hold pass: unlocked paths (clear) are not checked.
      assertEquals(0, store.put("mcj/a/b/free", value("z")));
      assertTrue(store.removeByRegex("^mcj/a/b/", true) >= 2);
    }
    assertEquals(StoreStatus.OBJECT_NOT_FOUND.code(), store.remove("mcj/a/b/k", true));
  }

  @Test
  void clusterLocksNeedAStoreWithASegmentOfItsOwn() {
    CacheException e =
        assertThrows(
            CacheException.class, () -> ClusterLocking.locks(inner, LEASE, Duration.ofSeconds(1)));
    assertTrue(e.getMessage().contains("segment of its own"), e.getMessage());
    assertTrue(e.getMessage().contains("\"consistency\": \"local\""), e.getMessage());
  }
}
