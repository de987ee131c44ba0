package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.cluster.MultiJvmScenarios;
import dev.mooncake.jcache.cluster.Peer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mode: standalone-store} with {@code consistency: cluster} on a real Mooncake: every JVM
 * contributes a 16 MiB lock segment only, a {@code mooncake_client} pool owns the values. The
 * multi-JVM scenarios (exact invoke counts over 3 JVMs, one putIfAbsent winner, a killed holder's
 * lock taken within 15 s, a paused holder refusing its write) run as in embedded mode, plus: values
 * land in the pool and outlive the JVM that wrote them. Skips, saying why, without
 * MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER / MOONCAKE_CLIENT.
 */
class StandaloneClusterOnRealMooncakeTest extends MultiJvmScenarios {
  private final String tenant = "standalone-" + UUID.randomUUID();
  private StandalonePool pool;

  @Override
  protected void assumeAvailable() {
    StandalonePool.assumeAvailable();
  }

  /** Starts the pool on first use: the peers' config names its segment. */
  @Override
  protected String configJson() {
    return configJson(false);
  }

  /**
   * {@code discover}: no preferred_segments; the store reads the pool's segment off the master's
   * metrics port ({@code master_metrics_address}) when it opens.
   */
  private String configJson(boolean discover) {
    try {
      if (pool == null) {
        pool = StandalonePool.start("256MB", Files.createTempFile("mooncake-pool-", ".log"));
      }
    } catch (Exception e) {
      throw new AssertionError("cannot start the mooncake_client pool", e);
    }
    return StandalonePool.appConfig(
        tenant,
        discover
            ? StandalonePool.DISCOVER
            : "\"preferred_segments\": [\"" + pool.segment() + "\"]");
  }

  @Override
  protected Map<String, String> environment() {
    return Map.of("MC_LOG_LEVEL", "WARNING");
  }

  /** client_ttl 10 s + the master's ~1 s sweep (cluster-consistency.md) + 4 s slack. */
  @Override
  protected Duration deathBound() {
    return Duration.ofSeconds(15);
  }

  @AfterAll
  void stopPool() throws InterruptedException {
    if (pool != null) {
      pool.close();
    }
  }

  /** The writer and the reader find the pool through the master's metrics port. */
  @Test
  void valuesLandInThePoolAndOutliveTheJvmThatWroteThem(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("standalone.json");
    Files.writeString(config, configJson(true));
    int values = 50;
    long inPoolBefore = StandalonePool.allocatedIn(pool.segment());
    Set<String> segmentsBefore = StandalonePool.segments();
    Set<String> writerSegments;
    try (Peer writer = Peer.start("writer", config, environment())) {
      writer.ready();
      writerSegments = StandalonePool.segments();
      writerSegments.removeAll(segmentsBefore);
      assertEquals(1, writerSegments.size(), "the writer's lock segment: " + writerSegments);
      String lockSegment = writerSegments.iterator().next();
      long inLockSegmentBefore = StandalonePool.allocatedIn(lockSegment);
      for (int i = 0; i < values; i++) {
        assertEquals("OK done", writer.ask("put pool-" + i + " value-" + i));
      }
      long inPool = StandalonePool.allocatedIn(pool.segment()) - inPoolBefore;
      long inLockSegment = StandalonePool.allocatedIn(lockSegment) - inLockSegmentBefore;
      System.out.printf(
          "[standalone] %d values: +%d bytes in the pool %s, +%d in the writer's lock segment%n",
          values, inPool, pool.segment(), inLockSegment);
      assertTrue(inPool > 0, "nothing landed in the pool");
      assertEquals(0, inLockSegment, "values landed in the writer's lock segment");
    }
    // The writer closed its store and exited: its lock segment is gone (bounded by client_ttl).
    long deadline =
        System.nanoTime()
            + TimeUnit.MILLISECONDS.toNanos(
                RealMooncake.CLIENT_TTL_MS + RealMooncake.DROP_SLACK_MS);
    while (StandalonePool.segments().stream().anyMatch(writerSegments::contains)
        && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(100); // the master's state: nothing to wait on
    }
    assertTrue(
        StandalonePool.segments().stream().noneMatch(writerSegments::contains),
        "the writer's segment is still mounted");
    try (Peer reader = Peer.start("reader", config, environment())) {
      reader.ready();
      for (int i = 0; i < values; i++) {
        assertEquals("OK value-" + i, reader.ask("get pool-" + i), "value " + i + " was lost");
      }
    }
  }
}
