package dev.mooncake.jcache.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot keys under many threads (issue 42): 3 JVMs of 200 platform threads each {@code invoke}
 * increments of 16 keys under the default {@code operation_timeout_ms}, with lock keeping off, on
 * with the poll, and on with the KV-event wake-up where the cluster publishes events. At most 1 %
 * of the calls may time out, and no acknowledged increment may be lost (each key ends between its
 * acknowledged increments and those plus the calls whose outcome stayed unknown). Also two JVMs
 * alternating writes on the same keys (keeping's worst case), keeping off and on. Each run prints
 * its throughput and timeout share ({@code [hot-keys …]} lines; docs/lock-keeping.md quotes them).
 * The run length is {@code mcj.hotkeys.millis} (default 8000 per run).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class HotKeysScenarios {
  private static final int JVMS = 3;
  private static final int THREADS_PER_JVM = 200;
  private static final int KEYS = 16;
  private static final long MILLIS = Long.getLong("mcj.hotkeys.millis", 8000);

  @TempDir Path dir;

  /** Skips (with the reason) when this cluster is not available here. */
  protected abstract void assumeAvailable();

  /** The provider config of every peer, with {@code settings} (more JSON members) added. */
  protected abstract String configJson(String settings);

  /** Environment of the peer JVMs. */
  protected abstract Map<String, String> environment();

  /** The KV event endpoint of this cluster, or null when it publishes none. */
  protected abstract String eventsEndpoint();

  @BeforeEach
  void skipUnlessAvailable() {
    assumeAvailable();
  }

  /** What one run measured, summed over its JVMs. */
  record Outcome(long done, long timeouts, long errors, long millis) {
    double timeoutShare() {
      long calls = done + timeouts + errors;
      return calls == 0 ? 1 : (double) timeouts / calls;
    }

    double perSecond() {
      return done * 1000.0 / Math.max(1, millis);
    }
  }

  @Test
  void hotKeysWithoutLockKeeping() throws Exception {
    hotKeys("keeping off", "\"lock_keep_idle_ms\": 0");
  }

  @Test
  void hotKeysKeepingWithThePoll() throws Exception {
    hotKeys("keeping on, poll", "\"lock_keep_idle_ms\": 500");
  }

  @Test
  void hotKeysKeepingWokenByEvents() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        eventsEndpoint() != null, "skipped: this cluster publishes no KV events");
    hotKeys(
        "keeping on, events",
        "\"lock_keep_idle_ms\": 500, \"events_endpoint\": \"" + eventsEndpoint() + "\"");
  }

  @Test
  void alternatingWritesOnTheSameKeysKeepingOffAndOn() throws Exception {
    Outcome off = run("alternating, keeping off", "\"lock_keep_idle_ms\": 0", 2, 1, 4);
    Outcome on = run("alternating, keeping on", "\"lock_keep_idle_ms\": 500", 2, 1, 4);
    System.out.printf(
        "[hot-keys %s] alternating: keeping on/off throughput %.2f%n",
        getClass().getSimpleName(), on.perSecond() / off.perSecond());
  }

  private void hotKeys(String mode, String settings) throws Exception {
    Outcome outcome = run(mode, settings, JVMS, THREADS_PER_JVM, KEYS);
    assertTrue(
        outcome.timeoutShare() <= 0.01,
        mode + ": more than 1 % of the calls timed out: " + outcome);
  }

  /** Starts the JVMs on the settings, runs the increments, checks every key, reports. */
  private Outcome run(String mode, String settings, int jvms, int threads, int keys)
      throws Exception {
    Path config = dir.resolve("hot-" + System.nanoTime() + ".json");
    Files.writeString(config, configJson(settings));
    List<Peer> peers = new ArrayList<>();
    try {
      for (int i = 0; i < jvms; i++) {
        peers.add(
            Peer.start(
                "h" + i,
                HotKeysPeer.class.getName(),
                List.of(config.toString(), "h" + i),
                environment()));
      }
      for (Peer peer : peers) {
        peer.ready();
      }
      assertEquals("OK done", peers.get(0).ask("set " + keys));
      for (Peer peer : peers) {
        peer.send("run " + threads + " " + keys + " " + MILLIS);
      }
      long[] acked = new long[keys];
      long done = 0;
      long timeouts = 0;
      long errors = 0;
      long millis = 0;
      long absent = 0;
      for (Peer peer : peers) {
        Map<String, String> reply = fields(peer, peer.reply());
        done += Long.parseLong(reply.get("done"));
        timeouts += Long.parseLong(reply.get("timeouts"));
        errors += Long.parseLong(reply.get("errors"));
        absent += Long.parseLong(reply.get("absent"));
        millis = Math.max(millis, Long.parseLong(reply.get("millis")));
        String[] perKey = reply.get("acked").split(",");
        for (int k = 0; k < keys; k++) {
          acked[k] += Long.parseLong(perKey[k]);
        }
      }
      Outcome outcome = new Outcome(done, timeouts, errors, millis);
      System.out.printf(
          "[hot-keys %s] %s: %d JVMs x %d threads, %d keys, %d ms: %d increments (%.0f/s),"
              + " %d timed out (%.3f %%), %d unknown, %d absent%n",
          getClass().getSimpleName(),
          mode,
          jvms,
          threads,
          keys,
          millis,
          done,
          outcome.perSecond(),
          timeouts,
          100 * outcome.timeoutShare(),
          errors,
          absent);
      assertEquals(0, absent, mode + ": a key that always exists was seen absent");
      String[] stored = peers.get(jvms - 1).ask("get " + keys).substring(3).split(" ");
      for (int k = 0; k < keys; k++) {
        long value = Long.parseLong(stored[k]);
        assertTrue(
            value >= acked[k] && value <= acked[k] + errors,
            mode
                + ": key hot"
                + k
                + " holds "
                + value
                + " after "
                + acked[k]
                + " acknowledged increments and "
                + errors
                + " of unknown outcome");
      }
      return outcome;
    } finally {
      for (Peer peer : peers) {
        peer.close();
      }
    }
  }

  private static Map<String, String> fields(Peer peer, String reply) {
    assertTrue(reply.startsWith("OK "), "peer " + peer.id + ": " + reply);
    Map<String, String> fields = new HashMap<>();
    for (String part : reply.substring(3).split(" ")) {
      String[] kv = part.split("=", 2);
      fields.put(kv[0], kv[1]);
    }
    return fields;
  }
}
