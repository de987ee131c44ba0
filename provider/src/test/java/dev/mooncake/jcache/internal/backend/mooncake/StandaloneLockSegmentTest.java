package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.connection.StoreConnection;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.ClusterKeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code standalone-store} with {@code consistency: cluster} over the fake: the client contributes
 * a lock segment only, lock objects go there (and go with it), values go to the pool named in
 * {@code preferred_segments} (and stay when the client leaves). The pool is another client with a
 * segment, as a {@code mooncake_client} process is on a real master.
 */
class StandaloneLockSegmentTest {
  private MooncakeStore decoy;
  private MooncakeStore pool;

  /**
   * The fake places an object without a usable preference in the oldest segment with room: the
   * decoy, opened first. Values found in the pool after the decoy left went there by preference.
   */
  @BeforeEach
  void startPool() {
    decoy = new TestConfig().open();
    TestConfig config = new TestConfig();
    config.globalSegmentSize = 64L << 20;
    pool = config.open();
  }

  @AfterEach
  void stopPool() {
    pool.close();
    decoy.close();
  }

  private TestConfig app() {
    TestConfig config = new TestConfig();
    config.mode = MooncakeConfig.Mode.STANDALONE_STORE;
    config.globalSegmentSize = 0;
    config.lockSegmentSize = MooncakeConfig.MIN_SEGMENT_SIZE;
    config.consistency = MooncakeConfig.Consistency.CLUSTER;
    config.replica = new MooncakeConfig.ReplicaSettings(1, false, false, List.of(pool.segment()));
    return config;
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void valuesGoToThePoolAndOutliveTheClientItsLocksGoWithIt() {
    MooncakeStore app = app().open();
    try {
      assertNotNull(app.ownSegment(), "a lock segment of its own");
      assertNotEquals(pool.segment(), app.ownSegment());
      assertTrue(app.describe().contains("contributing 16777216 bytes"), app.describe());
      assertTrue(app.describe().contains("preferred=" + pool.segment()), app.describe());
      for (int i = 0; i < 20; i++) {
        assertEquals(0, app.put("mcj/t/c/v" + i, bytes("value " + i)));
      }
      assertEquals(
          0, app.putPinnedInOwnSegment("mcjlock/t/c/v0", bytes("lock record"), Deadline.none()));
    } finally {
      app.close(); // the app JVM leaves: its segment goes
    }
    decoy.close();
    for (int i = 0; i < 20; i++) {
      assertEquals(1, pool.isExist("mcj/t/c/v" + i), "value " + i + " was not in the pool");
    }
    assertEquals(0, pool.isExist("mcjlock/t/c/v0"), "the lock outlived its holder's segment");
  }

  @Test
  void clusterLocksRunOnTheLockSegment() {
    try (StoreConnection connection = StoreConnection.open(app().build(), Ticker.system())) {
      assertInstanceOf(ClusterKeyLocks.class, connection.locks());
      try (KeyLocks.Held held = connection.locks().lock("mcj/dA/Yw/aw", null, Deadline.none())) {
        assertEquals(1, pool.isExist("mcjlock/dA/Yw/aw"), "no lock object");
        held.ensureHeld();
      }
      assertEquals(0, pool.isExist("mcjlock/dA/Yw/aw"), "the lock outlived its release");
    }
  }
}
