package dev.mooncake.jcache.internal.lock.cluster;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import java.time.Duration;
import javax.cache.CacheException;
import org.junit.jupiter.api.Test;

/** Cluster locks are made only on a store with a segment of its own. */
class ClusterLockingTest {

  @Test
  void clusterLocksNeedAStoreWithASegmentOfItsOwn() {
    try (InProcessStore store = InProcessStore.open(ConfigLoader.defaults())) {
      CacheException e =
          assertThrows(
              CacheException.class,
              () -> ClusterLocking.locks(store, Duration.ofSeconds(5), Duration.ofSeconds(1)));
      assertTrue(e.getMessage().contains("segment of its own"), e.getMessage());
      assertTrue(e.getMessage().contains("\"consistency\": \"local\""), e.getMessage());
    }
  }
}
