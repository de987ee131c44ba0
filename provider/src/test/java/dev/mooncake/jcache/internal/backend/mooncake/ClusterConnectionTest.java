package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.connection.StoreConnection;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.ClusterKeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.FakeTicker;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.cache.CacheException;
import org.junit.jupiter.api.Test;

/** A store connection under consistency cluster, on the Mooncake backend over the fake. */
class ClusterConnectionTest {

  private static MooncakeConfig config(MooncakeConfig.Consistency consistency) {
    TestConfig config = new TestConfig();
    config.consistency = consistency;
    return config.build();
  }

  /** What the fake recorded about the put that created {@code key} (pins, layout). */
  private static String createdWith(ObjectStore store, String key) {
    ByteBuffer out = ByteBuffer.allocate(512);
    long n = store.getInto("__fake_mc__/replicate_config/of/" + key, out);
    assertTrue(n >= 0, "the fake does not know " + key + ": " + n);
    return new String(out.array(), 0, (int) n, StandardCharsets.UTF_8);
  }

  @Test
  void locksAreHardPinnedObjectsAndManagersOnOneClientShareThem() {
    try (StoreConnection first =
            StoreConnection.open(config(MooncakeConfig.Consistency.CLUSTER), Ticker.system());
        StoreConnection second =
            StoreConnection.open(config(MooncakeConfig.Consistency.CLUSTER), Ticker.system())) {
      assertInstanceOf(ClusterKeyLocks.class, first.locks());
      assertTrue(first.locks() == second.locks(), "two managers on one client, two lock sets");
      try (KeyLocks.Held held = first.locks().lock("mcj/dA/Yw/aw", null, Deadline.none())) {
        assertEquals(1, first.store().isExist("mcjlock/dA/Yw/aw"), "no lock object");
        String created = createdWith(first.store(), "mcjlock/dA/Yw/aw");
        assertTrue(created.contains("hard_pin=1"), created);
        held.ensureHeld();
      }
      assertEquals(0, first.store().isExist("mcjlock/dA/Yw/aw"), "the lock outlived its release");
    }
  }

  @Test
  void clusterLeasesReadTheTickerTheConnectionWasOpenedWith() {
    MooncakeConfig config = config(MooncakeConfig.Consistency.CLUSTER);
    FakeTicker ticker = new FakeTicker();
    try (StoreConnection connection = StoreConnection.open(config, ticker)) {
      try (KeyLocks.Held held = connection.locks().lock("mcj/dA/Yw/bw", null, Deadline.none())) {
        held.ensureHeld();
        ticker.advance(config.consistency().lockLease().plusMillis(1)); // no real time passes
        CacheException e = assertThrows(CacheException.class, held::ensureHeld);
        assertTrue(e.getMessage().contains("lease of"), e.getMessage());
      }
    }
  }

  @Test
  void aManagerAskingForTheOtherConsistencyOnASharedClientIsRefused() {
    try (StoreConnection cluster =
        StoreConnection.open(config(MooncakeConfig.Consistency.CLUSTER), Ticker.system())) {
      CacheException e =
          assertThrows(
              CacheException.class,
              () ->
                  StoreConnection.open(config(MooncakeConfig.Consistency.LOCAL), Ticker.system()));
      assertTrue(e.getMessage().contains("runs consistency \"cluster\""), e.getMessage());
      assertTrue(e.getMessage().contains("asks for \"local\""), e.getMessage());
      try (KeyLocks.Held held = cluster.locks().lock("mcj/a/b/c", null, Deadline.none())) {
        held.ensureHeld(); // the refused one gave back what it took
      }
    }
  }
}
