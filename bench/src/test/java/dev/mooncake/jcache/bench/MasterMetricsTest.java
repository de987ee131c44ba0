package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class MasterMetricsTest {
  @Test
  void requestCountersByRpcNameSummedOverLabels() {
    String body =
        """
        # HELP master_put_start_requests_total Total PutStart requests
        # TYPE master_put_start_requests_total counter
        master_put_start_requests_total 12
        master_get_replica_list_requests_total{tenant="a"} 3
        master_get_replica_list_requests_total{tenant="b"} 4
        master_put_start_failures_total 2
        master_key_count 99
        client_put_requests_total 7
        master_remove_requests_total 5.0
        master_broken_requests_total many
        """;
    assertEquals(
        Map.of("put_start", 12L, "get_replica_list", 7L, "remove", 5L), MasterMetrics.parse(body));
  }

  @Test
  void deltaKeepsOnlyWhatMoved() {
    assertEquals(
        Map.of("put_start", 2L, "remove", 1L),
        MasterMetrics.delta(
            Map.of("put_start", 10L, "ping", 4L),
            Map.of("put_start", 12L, "ping", 4L, "remove", 1L)));
  }
}
