package dev.mooncake.jcache.real;

import dev.mooncake.jcache.cluster.MultiJvmScenarios;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * The multi-JVM scenarios on a real Mooncake (the loopback master test-support/netns/bin/java
 * starts, default {@code --client_ttl} of 10 s): the documented bound for a killed holder's locks
 * is 15 s. Skips, saying why, without MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER.
 */
class MultiJvmOnRealMooncakeTest extends MultiJvmScenarios {
  /** This run's own tenant: the scenarios' keys (fresh ones among them) start absent. */
  private final String tenant = "multi-jvm-" + UUID.randomUUID();

  @Override
  protected void assumeAvailable() {
    RealMooncake.assumeAvailable();
  }

  /**
   * {@code operation_timeout_ms} 20 s: the paused holder's lock is taken by another JVM once the
   * master drops its segment, at client_ttl 10 s + ~1 s sweep; the rest is slack for a loaded
   * machine.
   */
  @Override
  protected String configJson() {
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
          "operation_timeout_ms": 20000,
          "tenant_id": "%s",
          "consistency": "cluster"
        }
        """
        .formatted(RealMooncake.metadataServer(), tenant);
  }

  @Override
  protected Map<String, String> environment() {
    return Map.of("MC_LOG_LEVEL", "WARNING");
  }

  /** client_ttl 10 s + the master's ~1 s sweep (cluster-consistency.md) + 4 s slack. */
  @Override
  protected Duration deathBound() {
    return Duration.ofSeconds(15);
  }
}
