package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.StoreException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Finding the pool's segments in the master's {@code /get_segments_detail}. */
class PoolSegmentsTest {
  private static final long LOCKS = 16L << 20;

  /** As a real master (3b5a594) answered with a 16 MiB client and a 256 MiB pool, plus more. */
  private static String detail(String... segments) {
    return "{\"total_segments\":"
        + segments.length
        + ",\"segments\":["
        + String.join(",", segments)
        + "]}";
  }

  private static String segment(String name, long size, String status) {
    return "{\"segment_name\":\""
        + name
        + "\",\"size_bytes\":"
        + size
        + ",\"te_endpoint\":\"127.0.0.1:16328\",\"protocol\":\"tcp\",\"status\":\""
        + status
        + "\",\"allocator_used_bytes\":0,\"allocator_capacity_bytes\":"
        + size
        + "}";
  }

  @Test
  void poolsAreTheSegmentsLargerThanALockSegmentLargestFirst() {
    String answer =
        detail(
            segment("127.0.0.1:12836", LOCKS, "OK"), // this client's lock segment
            segment("127.0.0.1:13801", 256L << 20, "OK"),
            segment("127.0.0.1:14000", LOCKS, "OK"), // another app JVM's lock segment
            segment("127.0.0.1:15000", 1L << 30, "OK"),
            segment("127.0.0.1:16000", 2L << 30, "UNMOUNTING"));
    assertEquals(
        List.of("127.0.0.1:15000", "127.0.0.1:13801"),
        PoolSegments.choose(answer, LOCKS, "127.0.0.1:12836"));
  }

  @Test
  void noPoolIsAnEmptyListAndGarbageIsRefused() {
    assertEquals(List.of(), PoolSegments.choose(detail(segment("a:1", LOCKS, "OK")), LOCKS, "b:2"));
    StoreException e =
        assertThrows(StoreException.class, () -> PoolSegments.choose("<html>", LOCKS, "a:1"));
    assertTrue(e.getMessage().contains("not JSON"), e.getMessage());
    e = assertThrows(StoreException.class, () -> PoolSegments.choose("{}", LOCKS, "a:1"));
    assertTrue(e.getMessage().contains("no segment list"), e.getMessage());
  }

  @Test
  void configuredSegmentsWinAndOnlyStandaloneClusterDiscovers() {
    TestConfig config = new TestConfig();
    config.replica = new MooncakeConfig.ReplicaSettings(1, false, false, List.of("pool:1"));
    assertEquals(List.of("pool:1"), PoolSegments.forValues(config.build(), "me:1"));
    assertEquals(List.of(), PoolSegments.forValues(new TestConfig().build(), "me:1"));
  }

  @Test
  void anUnreachableMasterIsNamedInTheFailure() {
    TestConfig config = new TestConfig();
    config.mode = MooncakeConfig.Mode.STANDALONE_STORE;
    config.globalSegmentSize = 0;
    config.lockSegmentSize = LOCKS;
    // port 1 on loopback: nothing listens there, the connection is refused at once
    MooncakeConfig c = config.build().toBuilder().masterMetricsAddress("127.0.0.1:1").build();
    StoreException e = assertThrows(StoreException.class, () -> PoolSegments.forValues(c, "me:1"));
    assertTrue(e.getMessage().contains("http://127.0.0.1:1/get_segments_detail"), e.getMessage());
    assertTrue(e.getMessage().contains("master_metrics_address"), e.getMessage());
  }
}
