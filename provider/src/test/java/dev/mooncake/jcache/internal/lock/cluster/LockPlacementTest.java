package dev.mooncake.jcache.internal.lock.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.CacheException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Acquisitions that check where their record landed ("Placement fallback"), against a stand-in for
 * the master's admin server that answers {@code /query_key} and {@code /get_segments_detail} as
 * Mooncake 3b5a594 does, over a scripted cluster whose placement the test chooses.
 */
class LockPlacementTest {
  private static final Duration LEASE = Duration.ofSeconds(5);
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final String OWN = "127.0.0.1:12001";
  private static final String OTHER = "127.0.0.1:12002";

  /** Segment name, its transfer endpoint and base address, as /get_segments_detail lists them. */
  private static final Map<String, String[]> SEGMENTS =
      Map.of(
          OWN, new String[] {"127.0.0.1:16001", "0x7f0000000000"},
          OTHER, new String[] {"127.0.0.1:16002", "0x7f1000000000"});

  private static final long SEGMENT_SIZE = 32L << 20;

  private final ScriptedCluster cluster = new ScriptedCluster();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final List<String> queried = new CopyOnWriteArrayList<>();
  private volatile boolean adminBroken;
  private HttpServer admin;

  @BeforeEach
  void startAdmin() throws IOException {
    admin = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    admin.createContext("/get_segments_detail", e -> answer(e, 200, segmentsDetail()));
    admin.createContext("/query_key", this::queryKey);
    admin.start();
  }

  @AfterEach
  void stopAdmin() {
    admin.stop(0);
  }

  private static String segmentsDetail() {
    List<String> entries = new ArrayList<>();
    SEGMENTS.forEach(
        (name, at) ->
            entries.add(
                """
                {"segment_name":"%s","te_endpoint":"%s","base_address":"%s","size_bytes":%d,\
                "protocol":"tcp","status":"OK"}"""
                    .formatted(name, at[0], at[1], SEGMENT_SIZE)));
    return "{\"total_segments\":2,\"segments\":[" + String.join(",", entries) + "]}";
  }

  /** As the master: the raw query (it decodes nothing), one replica in the object's segment. */
  private void queryKey(HttpExchange exchange) throws IOException {
    String key = exchange.getRequestURI().getRawQuery().substring("key=".length());
    queried.add(key);
    String segment = cluster.segmentOf(key);
    if (adminBroken) {
      answer(exchange, 500, "oops");
    } else if (segment == null) {
      answer(
          exchange,
          404,
          "{\"success\":false,\"error_code\":-704,\"error_message\":\"OBJECT_NOT_FOUND\"}");
    } else {
      String[] at = SEGMENTS.get(segment);
      long address = Long.parseUnsignedLong(at[1].substring(2), 16) + 4096;
      answer(
          exchange,
          200,
          """
          {"success":true,"data":[{"size_":50,"buffer_address_":%d,"protocol_":"tcp",\
          "transport_endpoint_":"%s"}]}"""
              .formatted(address, at[0]));
    }
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /**
   * A client of segment {@link #OWN} whose puts land in {@code landsIn}: the own segment, or {@link
   * #OTHER} as Mooncake does when the preferred one is full.
   */
  private LockStore client(String landsIn) {
    ScriptedCluster.Client own = cluster.new Client(OWN);
    ScriptedCluster.Client placed = cluster.new Client(landsIn);
    return new ForwardingLockStore(own) {
      @Override
      public int createPinned(String key, ByteBuffer value, Deadline deadline) {
        return placed.createPinned(key, value, deadline);
      }

      @Override
      public int[] createAllPinned(String[] keys, ByteBuffer[] values, Deadline deadline) {
        return placed.createAllPinned(keys, values, deadline);
      }
    };
  }

  private ClusterKeyLocks locks(LockStore store, boolean checked) {
    ClusterKeyLocks locks =
        TestLocks.on(store, "jvm-a", LEASE, TIMEOUT, nanos::get, nanos::addAndGet);
    if (checked) {
      locks.checkPlacement(
          LockPlacement.onMaster("127.0.0.1:" + admin.getAddress().getPort(), OWN));
    }
    return locks;
  }

  private static String storeKey(String key) {
    return "mcj/ZGVmYXVsdA/b3JkZXJz/" + key; // tenant "default", cache "orders"
  }

  @Test
  void aRecordInTheHoldersSegmentCountsAsHeldAfterOneQuery() {
    ClusterKeyLocks locks = locks(client(OWN), true);
    try (KeyLocks.Held held = locks.lock(storeKey("aw"), null, Deadline.none())) {
      held.ensureHeld();
      assertEquals(List.of(LockNames.lockKey(storeKey("aw"))), queried);
    }
    assertFalse(cluster.has(LockNames.lockKey(storeKey("aw"))), "released");
  }

  @Test
  void aRecordThatLandedInAnotherSegmentIsRemovedAndTheOperationRefused() {
    ClusterKeyLocks locks = locks(client(OTHER), true);
    String lockKey = LockNames.lockKey(storeKey("aw"));
    CacheException e =
        assertThrows(CacheException.class, () -> locks.lock(storeKey("aw"), null, Deadline.none()));
    assertTrue(e.getMessage().contains("landed in segment " + OTHER), e.getMessage());
    assertTrue(e.getMessage().contains("the holder's segment is full"), e.getMessage());
    assertTrue(e.getMessage().contains("cache 'orders'"), e.getMessage());
    assertFalse(cluster.has(lockKey), "the misplaced record is removed");
    assertEquals(0, locks.held());
    assertEquals(0, locks.leftovers());
  }

  @Test
  void aBatchLeavesNoMisplacedRecordAndHoldsNothing() {
    ClusterKeyLocks locks = locks(client(OTHER), true);
    String[] keys = {storeKey("aw"), storeKey("bw"), storeKey("cw")};
    CacheException e =
        assertThrows(CacheException.class, () -> locks.lockAll(keys, Deadline.none()));
    assertTrue(e.getMessage().contains("the holder's segment is full"), e.getMessage());
    assertEquals(0, cluster.size(), "no record of the batch stays");
    assertEquals(0, locks.held());
  }

  @Test
  void aRecordWhosePlaceCannotBeLearntIsNotHeld() {
    adminBroken = true;
    ClusterKeyLocks locks = locks(client(OWN), true);
    CacheException e =
        assertThrows(CacheException.class, () -> locks.lock(storeKey("aw"), null, Deadline.none()));
    assertTrue(e.getMessage().contains("could not be checked"), e.getMessage());
    assertTrue(e.getMessage().contains("HTTP 500"), e.getMessage());
    assertEquals(0, cluster.size());
  }

  @Test
  void withoutTheAdminServerNothingIsAsked() {
    ClusterKeyLocks locks = locks(client(OTHER), false);
    try (KeyLocks.Held held = locks.lock(storeKey("aw"), null, Deadline.none())) {
      held.ensureHeld(); // the gap the check closes: held although it lives elsewhere
    }
    assertTrue(queried.isEmpty());
  }

  /** A lock store that forwards every call to {@code to}. */
  private static class ForwardingLockStore implements LockStore {
    private final LockStore to;

    ForwardingLockStore(LockStore to) {
      this.to = to;
    }

    @Override
    public int createPinned(String key, ByteBuffer value, Deadline deadline) {
      return to.createPinned(key, value, deadline);
    }

    @Override
    public long read(String key, ByteBuffer destination, Deadline deadline) {
      return to.read(key, destination, deadline);
    }

    @Override
    public long[] readWith(
        String lockKey, ByteBuffer lockDestination, String key, ByteBuffer dest, Deadline d) {
      return to.readWith(lockKey, lockDestination, key, dest, d);
    }

    @Override
    public long[] readAll(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
      return to.readAll(keys, destinations, deadline);
    }

    @Override
    public long size(String key, Deadline deadline) {
      return to.size(key, deadline);
    }

    @Override
    public int remove(String key, Deadline deadline) {
      return to.remove(key, deadline);
    }

    @Override
    public String describe() {
      return to.describe();
    }
  }
}
