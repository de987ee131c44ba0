package dev.mooncake.jcache.real;

import dev.mooncake.jcache.cluster.MultiJvmScenarios;
import java.time.Duration;
import java.util.Map;

/**
 * The multi-JVM scenarios on a real Mooncake (the loopback master test-support/netns/bin/java
 * starts, default {@code --client_ttl} of 10 s): the documented bound for a killed holder's locks
 * is 15 s. Skips, saying why, without MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER.
 */
class MultiJvmOnRealMooncakeTest extends MultiJvmScenarios {

  @Override
  protected void assumeAvailable() {
    RealMooncake.assumeAvailable();
  }

  @Override
  protected String configJson() {
    return """
        {
          "backend": "mooncake",
          "mode": "embedded",
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "64MB",
          "local_buffer_size": "16MB",
          "operation_timeout_ms": 20000,
          "tenant_id": "multi-jvm",
          "consistency": "cluster"
        }
        """;
  }

  @Override
  protected Map<String, String> environment() {
    return Map.of("MC_LOG_LEVEL", "WARNING");
  }

  @Override
  protected Duration deathBound() {
    return Duration.ofSeconds(15);
  }
}
