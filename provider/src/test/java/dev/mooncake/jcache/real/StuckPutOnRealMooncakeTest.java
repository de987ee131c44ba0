package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.cluster.Peer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A put that its writer leaves in flight for ever, on a real Mooncake: the writer JVM is killed
 * with {@code kill -9} between Mooncake's PutStart and PutEnd (its transfer held by a pool stopped
 * with SIGSTOP at that moment). Mooncake's remove answers -703 for such an object for ever; only a
 * later put of the key, once the old put is older than {@code put_start_discard_timeout_sec},
 * clears it. The next JVM must be able to write the key (seen in a rolling restart: the replacement
 * of a killed JVM could not write its entry again for a minute and more), and reads meanwhile
 * answer absent. Own master on port 50121 with a discard timeout of 2 s (30 s by default); {@code
 * standalone-store} + {@code cluster}. Skips, saying why, without MOONCAKE_* or the netns wrapper.
 */
class StuckPutOnRealMooncakeTest {
  private static final int PORT = 50121;
  private static final int POOL_PORT = 50122;
  private static final int DISCARD_SECONDS = 2;

  /** How long the writer's put may take to reach the pool's segment (PutStart): ms at most. */
  private static final long ALLOCATION_BOUND_MS = 10_000;

  @Test
  void aPutLeftInFlightByAKilledWriterIsWrittenOverByTheNextJvm(@TempDir Path dir)
      throws Exception {
    StandalonePool.assumeAvailable();
    try (RealMaster master =
            RealMaster.start(
                PORT,
                dir.resolve("master.log"),
                "--put_start_discard_timeout_sec=" + DISCARD_SECONDS);
        StandalonePool pool =
            StandalonePool.start(
                "64MB",
                dir.resolve("pool.log"),
                POOL_PORT,
                PORT,
                master.metricsPort(),
                Map.of(),
                List.of())) {
      Path config = dir.resolve("app.json");
      Files.writeString(
          config,
          StandalonePool.appConfig(
                  "stuck-" + UUID.randomUUID(),
                  "\"preferred_segments\": [\"" + pool.segment() + "\"]")
              .replace("127.0.0.1:50051", "127.0.0.1:" + PORT));
      Map<String, String> environment = Map.of("MC_LOG_LEVEL", "ERROR");

      try (Peer writer = Peer.start("writer", config, environment)) {
        writer.ready();
        long before = StandalonePool.allocatedIn(master.metricsPort(), pool.segment());
        RealMooncake.signal(pool.pid(), "-STOP");
        try {
          writer.send("put k from-the-killed-writer"); // its transfer waits for the stopped pool
          awaitAllocatedAbove(master.metricsPort(), pool.segment(), before);
          writer.signal("KILL"); // after PutStart, before PutEnd: in flight for ever
          writer.awaitExit();
        } finally {
          RealMooncake.signal(pool.pid(), "-CONT");
        }
      }

      try (Peer next = Peer.start("next", config, environment)) {
        next.ready();
        assertEquals("OK null", next.ask("get k"), "a put in flight reads as absent");
        long start = System.nanoTime();
        String put = next.ask("put k from-the-next-jvm");
        long putMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf(
            "[stuck-put] the next JVM's put over the killed writer's put in flight: %s after %d ms"
                + " (the writer's lock left in its dead segment until client_ttl, then Mooncake's"
                + " discard of the put after %d s)%n",
            put, putMs, DISCARD_SECONDS);
        assertEquals("OK done", put);
        assertEquals("OK from-the-next-jvm", next.ask("get k"));
      }
    }
  }

  /** Waits until the master has allocated more in {@code segment}: the writer's PutStart. */
  private static void awaitAllocatedAbove(int metricsPort, String segment, long before)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ALLOCATION_BOUND_MS);
    while (StandalonePool.allocatedIn(metricsPort, segment) <= before) {
      assertTrue(System.nanoTime() < deadline, "the writer's put allocated nothing in the pool");
      TimeUnit.MILLISECONDS.sleep(20); // the master's state: nothing to wait on
    }
  }
}
