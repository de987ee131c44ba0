package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mooncake.jcache.cluster.Peer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lock placement on a real Mooncake (docs/cluster-consistency.md, "Placement fallback"): three JVMs
 * with 16 MiB segments and {@code master_metrics_address}; the first fills its own segment with
 * hard-pinned values, so its lock records can only land in another JVM's segment. Its acquisitions
 * must be refused (the record removed), never counted as held; the three then race for one key, and
 * the holder is killed with SIGKILL: at no point do two JVMs hold the key, and every held lock's
 * record lives outside the full segment. Own master on port 50141. Prints what it saw.
 */
@Disabled(
    "cannot make the condition yet: on Mooncake 3b5a594 the full JVM's segment stops growing at"
        + " 88.9 % (14,913,630 of 16,777,216 bytes) whatever value size is put, yet its ~50-byte"
        + " lock records still land in it (the solo take is held, its placement checked), so no"
        + " record is misplaced and the race never meets the case (runs of 2026-12-06, r35-placement)")
class LockPlacementOnRealMooncakeTest {
  private static final int PORT = 50141;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path dir;

  @BeforeEach
  void available() {
    RealMooncake.assumeAvailable();
  }

  @Test
  void aFullSegmentsLocksAreRefusedAndTheKeyNeverHasTwoHolders() throws Exception {
    try (RealMaster master = RealMaster.start(PORT, dir.resolve("master.log"))) {
      Path config = config(master.metricsPort());
      List<Peer> peers = new ArrayList<>();
      try {
        for (int p = 0; p < 3; p++) {
          peers.add(Peer.start("jvm" + p, config, Map.of("MC_LOG_LEVEL", "WARNING")));
        }
        for (Peer peer : peers) {
          peer.ready();
        }
        Peer full = peers.get(0);
        // hard-pinned values preferring its own segment, each size until its segment's use stops
        // growing (then they land elsewhere), smaller and smaller until not even a lock fits; its
        // own lock records are refused once it is full (errors are expected then)
        // one value at a time, so that what spills leaves the other segments room
        JsonNode fullest = null;
        int batch = 0;
        for (int size :
            new int[] {1 << 20, 1 << 18, 1 << 16, 1 << 14, 1 << 12, 1 << 10, 256, 64, 1}) {
          long used = -1;
          String reply = "";
          // until 3 puts in a row leave its use unchanged (one may spill while room is left)
          for (int tries = 0, flat = 0; tries < 400 && flat < 3; tries++) {
            reply = full.ask("fill f" + batch++ + "- 1 " + size);
            fullest = fullestSegment(master.metricsPort());
            long now = fullest.path("allocator_used_bytes").asLong();
            flat = now == used ? flat + 1 : 0;
            used = now;
          }
          System.out.println(
              "[placement] filled with " + size + " chars: " + reply + ", used " + used);
        }
        System.out.println("[placement] fullest segment: " + fullest);

        String refused = full.ask("take solo-key v");
        System.out.println("[placement] the full JVM alone: " + refused);
        assertTrue(refused.startsWith("ERR "), refused);
        assertTrue(refused.contains("the holder's segment is full"), refused);
        assertTrue(lockKeys(master.metricsPort()).isEmpty(), "its refused record was removed");

        // the race: all three at once
        for (Peer peer : peers) {
          peer.send("hold raced-key");
        }
        int holder = -1;
        for (int p = 0; p < 3; p++) {
          String line = answerOf(peers.get(p));
          System.out.println("[placement] race, jvm" + p + ": " + line);
          if (line.equals("HOLDING")) {
            assertEquals(-1, holder, "two JVMs hold raced-key: jvm" + holder + " and jvm" + p);
            holder = p;
            assertRecordOutside(fullest, master.metricsPort());
          }
        }
        assertTrue(holder > 0, "a JVM with room holds the key, never the full one: " + holder);

        // kill -9 the holder: its record goes with its segment; the other JVM with room takes it
        peers.get(holder).signal("KILL");
        peers.get(holder).awaitExit();
        int other = 3 - holder;
        for (int p : new int[] {0, other}) {
          peers.get(p).send("hold raced-key");
        }
        String otherLine = answerOf(peers.get(other));
        System.out.println("[placement] after kill -9, jvm" + other + ": " + otherLine);
        assertEquals("HOLDING", otherLine);
        assertRecordOutside(fullest, master.metricsPort());
        String fullLine = answerOf(full);
        System.out.println("[placement] after kill -9, jvm0: " + fullLine);
        assertFalse(fullLine.equals("HOLDING"), "two JVMs hold raced-key after the kill");
        peers.get(other).send("go");
        assertTrue(peers.get(other).reply().startsWith("OK "));
      } finally {
        for (Peer peer : peers) {
          peer.close();
        }
      }
    }
  }

  /** The next answer of {@code peer} to a hold: {@code HOLDING}, or its {@code ERR …}. */
  private static String answerOf(Peer peer) throws InterruptedException {
    return peer.await(line -> line.equals("HOLDING") || line.startsWith("ERR "));
  }

  /** The one lock record there is now lives outside the full segment. */
  private static void assertRecordOutside(JsonNode fullest, int metricsPort) throws Exception {
    List<String> locks = lockKeys(metricsPort);
    assertEquals(1, locks.size(), "one lock record while one JVM holds: " + locks);
    JsonNode replicas = get(metricsPort, "/query_key?key=" + locks.get(0)).path("data");
    for (JsonNode replica : replicas) {
      assertFalse(
          replica.path("transport_endpoint_").asText().equals(fullest.path("te_endpoint").asText()),
          "a held lock's record lives in the full segment " + fullest + ": " + replicas);
    }
  }

  private static List<String> lockKeys(int metricsPort) throws Exception {
    String all = text(metricsPort, "/get_all_keys");
    return all.lines().filter(k -> k.startsWith("mcjlock/")).toList();
  }

  private static JsonNode fullestSegment(int metricsPort) throws Exception {
    JsonNode fullest = null;
    for (JsonNode segment : get(metricsPort, "/get_segments_detail").path("segments")) {
      if (fullest == null
          || segment.path("allocator_usage_percent").asDouble()
              > fullest.path("allocator_usage_percent").asDouble()) {
        fullest = segment;
      }
    }
    return fullest;
  }

  private static JsonNode get(int metricsPort, String path) throws Exception {
    return JSON.readTree(text(metricsPort, path));
  }

  private static String text(int metricsPort, String path) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private Path config(int metricsPort) throws Exception {
    Path file = dir.resolve("placement.json");
    Files.writeString(
        file,
        """
        {
          "backend": "mooncake",
          "mode": "embedded",
          "consistency": "cluster",
          "master_server_address": "127.0.0.1:%d",
          "master_metrics_address": "127.0.0.1:%d",
          "metadata_server": "%s",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "16MB",
          "local_buffer_size": "8MB",
          "operation_timeout_ms": 20000,
          "with_hard_pin": true,
          "abi": "%s",
          "value_placement": "own-segment",
          "tenant_id": "placement-%s"
        }
        """
            .formatted(
                PORT,
                metricsPort,
                RealMooncake.metadataServer(PORT),
                RealMooncake.abi(),
                UUID.randomUUID()));
    return file;
  }
}
