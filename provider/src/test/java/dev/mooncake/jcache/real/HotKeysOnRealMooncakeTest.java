package dev.mooncake.jcache.real;

import dev.mooncake.jcache.cluster.HotKeysScenarios;
import java.util.Map;
import java.util.UUID;

/**
 * The hot-keys scenarios on a real Mooncake (the loopback master test-support/netns/bin/java
 * starts), under the default lease, client TTL and {@code operation_timeout_ms}; the events mode
 * runs when the master publishes KV events (MCJ_EVENTS_ENDPOINT), else skips saying why. Skips
 * without MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER.
 */
class HotKeysOnRealMooncakeTest extends HotKeysScenarios {
  /** This run's own tenant. */
  private final String tenant = "hot-keys-" + UUID.randomUUID();

  @Override
  protected void assumeAvailable() {
    RealMooncake.assumeAvailable();
  }

  @Override
  protected String configJson(String settings) {
    return """
        {
          "backend": "mooncake",
          "mode": "embedded",
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "%s",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "64MB",
          "local_buffer_size": "16MB",
          "tenant_id": "%s",
          "consistency": "cluster",
          %s
        }
        """
        .formatted(RealMooncake.metadataServer(), tenant, settings);
  }

  @Override
  protected Map<String, String> environment() {
    return Map.of("MC_LOG_LEVEL", "WARNING");
  }

  @Override
  protected String eventsEndpoint() {
    return System.getenv("MCJ_EVENTS_ENDPOINT");
  }
}
