package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.cluster.Peer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pool process restarts on a real Mooncake ({@code mooncake_client}, {@link StandalonePool}): a
 * pool's restart loses what it held, and under P2PHANDSHAKE it comes back under another segment
 * name, which the app JVMs find again without a restart ({@code PoolPlacement}); with {@code
 * replica_num} 2 over two pools, one pool's restart loses nothing. Skips, saying why, without
 * MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER / MOONCAKE_CLIENT.
 */
class PoolRestartOnRealMooncakeTest {
  private static final int ENTRIES = 100;

  /** The app JVMs re-list the pools every second and log the change on stdout (awaited). */
  private static final Map<String, String> ENVIRONMENT =
      Map.of(
          "MC_LOG_LEVEL",
          "WARNING",
          "JAVA_TOOL_OPTIONS",
          "-Dmooncake.jcache.poolRefreshMillis=1000 -Dorg.slf4j.simpleLogger.logFile=System.out"
              + " -Dorg.slf4j.simpleLogger.log.dev.mooncake.jcache.internal.backend.mooncake.PoolPlacement"
              + "=info");

  /** Skips without Mooncake; else waits until segments of earlier tests' processes are gone. */
  @BeforeEach
  void skipUnlessAvailable() throws Exception {
    StandalonePool.assumeAvailable();
    RealMooncake.awaitNoDepartedSegments(0);
  }

  private static Path log(String name) throws Exception {
    return Files.createTempFile("mooncake-" + name + "-", ".log");
  }

  /** Starts an app JVM on {@code config}; answers it and its lock segment. */
  private static Peer app(String id, Path config, Set<String> lockSegment) throws Exception {
    Set<String> before = StandalonePool.segments();
    Peer app = Peer.start(id, config, ENVIRONMENT);
    app.ready();
    Set<String> added = new HashSet<>(StandalonePool.segments());
    added.removeAll(before);
    assertEquals(1, added.size(), "the lock segment of " + id + ": " + added);
    lockSegment.addAll(added);
    return app;
  }

  /**
   * Waits, bounded, until the master no longer lists {@code segment} (a pool that stopped); answers
   * how long that took (ms).
   */
  private static long awaitGone(String segment) throws Exception {
    long start = System.nanoTime();
    long bound = RealMooncake.CLIENT_TTL_MS + RealMooncake.DROP_SLACK_MS;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(bound);
    while (StandalonePool.segments().contains(segment) && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(100); // the master's state: nothing to wait on
    }
    assertTrue(!StandalonePool.segments().contains(segment), segment + " still mounted");
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  private static int absent(Peer app, String prefix) throws Exception {
    int absent = 0;
    for (int i = 0; i < ENTRIES; i++) {
      String value = app.ask("get " + prefix + i);
      assertTrue(value.startsWith("OK "), value);
      absent += value.equals("OK null") ? 1 : 0;
    }
    return absent;
  }

  private static void put(Peer app, String prefix) throws Exception {
    for (int i = 0; i < ENTRIES; i++) {
      assertEquals("OK done", app.ask("put " + prefix + i + " value-" + i));
    }
  }

  @Test
  void aRestartedPoolLosesWhatItHeldAndIsFoundAgainUnderItsNewName(@TempDir Path dir)
      throws Exception {
    Path config = dir.resolve("app.json");
    Files.writeString(config, StandalonePool.appConfig("pool-restart-" + UUID.randomUUID()));
    StandalonePool first = StandalonePool.start("256MB", log("pool-a"));
    StandalonePool second = null;
    Set<String> lockSegment = new HashSet<>();
    try (Peer app = app("app", config, lockSegment)) {
      put(app, "before-");
      assertTrue(StandalonePool.allocatedIn(first.segment()) > 0, "nothing in the pool");
      String old = first.segment();
      first.close();
      long goneMs = awaitGone(old);
      second = StandalonePool.start("256MB", log("pool-b"));
      assertNotEquals(old, second.segment(), "P2PHANDSHAKE gave the new pool another name");
      String now = second.segment();
      // The app logs the change within its 1 s interval; the peer's reply bound covers it.
      app.await(line -> line.contains("the pool's segments are now [" + now + "]"));

      int lost = absent(app, "before-");
      String lock = lockSegment.iterator().next();
      long inLockBefore = StandalonePool.allocatedIn(lock);
      long inPoolBefore = StandalonePool.allocatedIn(now);
      put(app, "after-");
      long inPool = StandalonePool.allocatedIn(now) - inPoolBefore;
      long inLock = StandalonePool.allocatedIn(lock) - inLockBefore;
      System.out.printf(
          "[pool-restart] one pool, %d entries: %d lost by its restart (stopped with SIGTERM, its"
              + " segment unlisted %d ms after it exited); re-discovered %s (was %s);"
              + " %d new entries: +%d bytes in the new pool, +%d in the app's lock segment%n",
          ENTRIES, lost, goneMs, now, old, ENTRIES, inPool, inLock);
      assertEquals(ENTRIES, lost, "a pool's restart loses what it held (documented)");
      assertTrue(inPool > 0, "nothing landed in the new pool");
      assertEquals(0, inLock, "values landed in the app's lock segment");
      assertEquals(0, absent(app, "after-"));
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
    }
  }

  @Test
  void twoReplicasOverTwoPoolsSurviveOnePoolsRestart(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("app.json");
    String json = StandalonePool.appConfig("two-pools-" + UUID.randomUUID());
    Files.writeString(config, json.replace("\"mode\":", "\"replica_num\": 2,\n  \"mode\":"));
    StandalonePool a = StandalonePool.start("256MB", log("pool-a"), 50052);
    StandalonePool b = StandalonePool.start("256MB", log("pool-b"), 50053);
    StandalonePool restarted = null;
    Set<String> lockSegment = new HashSet<>();
    try (Peer app = app("app", config, lockSegment)) {
      long inA = StandalonePool.allocatedIn(a.segment());
      long inB = StandalonePool.allocatedIn(b.segment());
      put(app, "twice-");
      inA = StandalonePool.allocatedIn(a.segment()) - inA;
      inB = StandalonePool.allocatedIn(b.segment()) - inB;
      String old = a.segment();
      a.close();
      awaitGone(old);
      int lostWithOneDown = absent(app, "twice-");
      restarted = StandalonePool.start("256MB", log("pool-a2"), 50052);
      String back = restarted.segment();
      // awaited before any other command: a reply's wait would skip (consume) the log line
      app.await(line -> line.contains("the pool's segments are now") && line.contains(back));
      int lostAfterRestart = absent(app, "twice-");
      long inBack = StandalonePool.allocatedIn(back);
      put(app, "again-");
      inBack = StandalonePool.allocatedIn(back) - inBack;
      System.out.printf(
          "[pool-restart] two pools, replica_num 2, %d entries: +%d bytes in %s, +%d in %s;"
              + " after %s stopped: %d lost; after it came back as %s: %d lost, and %d new"
              + " entries put +%d bytes there%n",
          ENTRIES,
          inA,
          old,
          inB,
          b.segment(),
          old,
          lostWithOneDown,
          back,
          lostAfterRestart,
          ENTRIES,
          inBack);
      assertTrue(inA > 0 && inB > 0, "a replica in each pool");
      assertEquals(0, lostWithOneDown, "entries lost with one of two pools down");
      assertEquals(0, lostAfterRestart, "entries lost after the pool's restart");
      assertTrue(inBack > 0, "new entries have no replica in the restarted pool");
    } finally {
      a.close();
      b.close();
      if (restarted != null) {
        restarted.close();
      }
    }
  }
}
