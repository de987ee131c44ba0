package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.cluster.Peer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a JVM that leaves takes with it in {@code mode: embedded} (issue 31; docs/reliability.md,
 * "What a leaving JVM takes with it"), for both {@code value_placement}s: three JVMs of 64 MiB
 * segments each; 300 entries written by one JVM, or 100 by each; then the writer closes, another
 * JVM closes, or one is killed with SIGKILL; the entries still present are counted from a JVM that
 * stayed. And the capacity one writer can use: 96 values of 1 MiB from one JVM (half the three
 * segments, 1.5 times its own). Prints every figure. Own master on port 50111, so that only these
 * JVMs' segments count. Skips, saying why, without MOONCAKE_* or the netns wrapper.
 */
class EmbeddedLossOnRealMooncakeTest {
  private static final int PORT = 50111;
  private static final int ENTRIES = 300;

  /**
   * A closed or killed JVM's segment leaves the master's list at once (close) or after client_ttl
   * 10 s plus the ~1 s sweep (kill); the rest is slack for a loaded machine.
   */
  private static final long DROP_BOUND_MS = RealMooncake.CLIENT_TTL_MS + RealMooncake.DROP_SLACK_MS;

  @TempDir Path dir;

  @BeforeEach
  void available() {
    RealMooncake.assumeAvailable();
  }

  @Test
  void lossAndCapacityForEachValuePlacement() throws Exception {
    Map<String, Map<String, String>> figures = new LinkedHashMap<>();
    try (RealMaster master = RealMaster.start(PORT, dir.resolve("master.log"))) {
      for (String placement : List.of("own-segment", "any-segment")) {
        Map<String, String> row = new LinkedHashMap<>();
        Path config = config(placement);
        row.put("one writer, writer closes", oneWriter(master, config, 0, false));
        row.put("one writer, another JVM closes", oneWriter(master, config, 2, false));
        row.put("one writer, writer killed -9", oneWriter(master, config, 0, true));
        row.put("one writer, another JVM killed -9", oneWriter(master, config, 2, true));
        row.put("100 by each, one JVM closes", spread(master, config, false));
        row.put("100 by each, one JVM killed -9", spread(master, config, true));
        row.put("one writer, 96 x 1 MiB, nobody leaves", capacity(master, config));
        figures.put(placement, row);
      }
    }
    System.out.println("[embedded loss] entries lost (of those written) per value_placement");
    figures.forEach(
        (placement, row) ->
            row.forEach(
                (what, lost) -> System.out.printf("  %-12s %-40s %s%n", placement, what, lost)));

    Map<String, String> own = figures.get("own-segment");
    assertEquals("300 of 300", own.get("one writer, writer closes"), own.toString());
    assertEquals("0 of 300", own.get("one writer, another JVM closes"), own.toString());
    assertEquals("100 of 300", own.get("100 by each, one JVM closes"), own.toString());
    Map<String, String> any = figures.get("any-segment");
    int writerCloses = lost(any.get("one writer, writer closes"));
    int otherCloses = lost(any.get("one writer, another JVM closes"));
    // random placement: each JVM holds some of one writer's entries, none holds all
    assertTrue(writerCloses > 0 && writerCloses < ENTRIES, any.toString());
    assertTrue(otherCloses > 0 && otherCloses < ENTRIES, any.toString());
  }

  /** Three JVMs, the first writes 300 entries, JVM {@code leaver} closes or is killed. */
  private String oneWriter(RealMaster master, Path config, int leaver, boolean kill)
      throws Exception {
    List<Peer> peers = start(config);
    try {
      String prefix = "w" + UUID.randomUUID() + "-";
      assertTrue(peers.get(0).ask("fill " + prefix + " " + ENTRIES + " 64").contains("errors=0"));
      leave(master, peers.get(leaver), kill);
      int present =
          Integer.parseInt(peers.get(1).ask("present " + prefix + " " + ENTRIES).substring(3));
      return (ENTRIES - present) + " of " + ENTRIES;
    } finally {
      closeAll(peers);
    }
  }

  /** Three JVMs write 100 entries each, the third closes or is killed. */
  private String spread(RealMaster master, Path config, boolean kill) throws Exception {
    List<Peer> peers = start(config);
    try {
      String prefix = "s" + UUID.randomUUID() + "-";
      int each = ENTRIES / 3;
      for (int p = 0; p < 3; p++) {
        String reply = peers.get(p).ask("fill " + prefix + p + "- " + each + " 64");
        assertTrue(reply.contains("errors=0"), reply);
      }
      leave(master, peers.get(2), kill);
      int present = 0;
      for (int p = 0; p < 3; p++) {
        present +=
            Integer.parseInt(peers.get(0).ask("present " + prefix + p + "- " + each).substring(3));
      }
      return (ENTRIES - present) + " of " + ENTRIES;
    } finally {
      closeAll(peers);
    }
  }

  /** One JVM writes 96 values of 1 MiB: 1.5 times its own segment, half of all three. */
  private String capacity(RealMaster master, Path config) throws Exception {
    List<Peer> peers = start(config);
    try {
      String prefix = "c" + UUID.randomUUID() + "-";
      int values = 96;
      String reply = peers.get(0).ask("fill " + prefix + " " + values + " " + (1 << 20));
      int present =
          Integer.parseInt(peers.get(1).ask("present " + prefix + " " + values).substring(3));
      return (values - present) + " of " + values + " (writer: " + reply.substring(3) + ")";
    } finally {
      closeAll(peers);
    }
  }

  private List<Peer> start(Path config) throws Exception {
    List<Peer> peers = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      peers.add(Peer.start("jvm" + p, config, Map.of("MC_LOG_LEVEL", "WARNING")));
    }
    for (Peer peer : peers) {
      peer.ready();
    }
    return peers;
  }

  /** Closes or kills {@code peer}, then waits until the master lists two segments. */
  private void leave(RealMaster master, Peer peer, boolean kill) throws Exception {
    if (kill) {
      peer.signal("KILL");
      peer.awaitExit();
    } else {
      peer.close();
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DROP_BOUND_MS);
    while (StandalonePool.segments(master.metricsPort()).size() > 2
        && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(100); // the master's state: nothing to wait on
    }
    assertEquals(
        2,
        StandalonePool.segments(master.metricsPort()).size(),
        "the leaver's segment is still mounted after " + DROP_BOUND_MS + " ms");
  }

  /** Closes every peer still running (a killed one is gone already). */
  private void closeAll(List<Peer> peers) throws Exception {
    for (Peer peer : peers) {
      peer.close();
    }
  }

  private static int lost(String figure) {
    return Integer.parseInt(figure.substring(0, figure.indexOf(' ')));
  }

  private Path config(String placement) throws Exception {
    Path file = dir.resolve("embedded-" + placement + ".json");
    Files.writeString(
        file,
        """
        {
          "backend": "mooncake",
          "mode": "embedded",
          "master_server_address": "127.0.0.1:%d",
          "metadata_server": "%s",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "64MB",
          "local_buffer_size": "16MB",
          "operation_timeout_ms": 20000,
          "tenant_id": "loss-%s",
          "value_placement": "%s"
        }
        """
            .formatted(PORT, RealMooncake.metadataServer(PORT), UUID.randomUUID(), placement));
    return file;
  }
}
