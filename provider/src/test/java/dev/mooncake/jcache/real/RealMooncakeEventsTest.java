package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mooncake.jcache.cluster.ClusterEventsScenarios;
import dev.mooncake.jcache.cluster.Peer;
import java.io.IOException;
import java.util.Map;

/**
 * The cluster-events scenarios on a real Mooncake: the loopback master test-support/netns/bin/java
 * starts with {@code --enable_kv_events --kv_events_bind_endpoint=tcp://127.0.0.1:5557
 * --kv_events_backend_id=mcj-test} (it exports the endpoint as MCJ_EVENTS_ENDPOINT). A publisher
 * interruption is the master paused with SIGSTOP past the subscribers' 3 s heartbeat timeout, then
 * resumed. Gaps cannot be forced on a real master (it drops events only under back-pressure), so
 * that scenario skips. Skips, saying why, without MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER or a
 * master with KV events.
 */
class RealMooncakeEventsTest extends ClusterEventsScenarios {

  @Override
  protected void assumeAvailable() {
    RealMooncake.assumeAvailable();
    assumeTrue(
        System.getenv("MCJ_EVENTS_ENDPOINT") != null,
        "skipped: the master has no KV events (MCJ_EVENTS_ENDPOINT unset: mooncake_master --help"
            + " lists no --enable_kv_events; build Mooncake with -DENABLE_KV_EVENTS=ON)");
  }

  @Override
  protected String clusterSettings() {
    return """
          "backend": "mooncake",
          "mode": "embedded",
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "%s",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "64MB",
          "local_buffer_size": "16MB",
          "operation_timeout_ms": 20000,
          "consistency": "local"\
        """
        .formatted(RealMooncake.metadataServer());
  }

  @Override
  protected String eventsEndpoint() {
    return System.getenv("MCJ_EVENTS_ENDPOINT");
  }

  @Override
  protected Map<String, String> environment() {
    return Map.of("MC_LOG_LEVEL", "WARNING");
  }

  @Override
  protected void dropNextEvents(Peer writer, int n) {
    assumeTrue(
        false,
        "skipped: a real master drops events only under back-pressure (its"
            + " --kv_events_queue_capacity); no gap can be forced on demand");
  }

  private static void signalMaster(String signal) throws IOException, InterruptedException {
    String pid = System.getenv("MCJ_MASTER_PID");
    assumeTrue(pid != null, "skipped: the wrapper did not say which process the master is");
    int code = new ProcessBuilder("kill", "-" + signal, pid).inheritIO().start().waitFor();
    if (code != 0) {
      throw new AssertionError("kill -" + signal + " " + pid + " answered " + code);
    }
  }

  @Override
  protected void interruptPublisher() throws Exception {
    signalMaster("STOP");
  }

  @Override
  protected void resumePublisher() throws Exception {
    signalMaster("CONT");
  }

  @Override
  protected boolean storeWorksWhilePublisherIsAway() {
    return false;
  }
}
