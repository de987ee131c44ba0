package dev.mooncake.jcache;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.config.MooncakeConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Configs for tests: the built-in defaults with one thing changed. */
final class TestConfigs {
  private TestConfigs() {}

  static MooncakeConfig inProcess() {
    return ConfigLoader.defaults();
  }

  /** The Mooncake backend over the test-only fake libmooncake_store.so the build makes. */
  static MooncakeConfig mooncakeFixture() {
    MooncakeConfig d = ConfigLoader.defaults();
    String library = System.getProperty("mooncake.fixture.library");
    if (library == null) {
      throw new IllegalStateException("system property mooncake.fixture.library is not set");
    }
    return d.toBuilder()
        .source("fixture")
        .backend(MooncakeConfig.Backend.MOONCAKE)
        .mode(MooncakeConfig.Mode.EMBEDDED)
        .metadataServer("P2PHANDSHAKE")
        .masterServerAddress("127.0.0.1:50051")
        .protocol("tcp")
        .deviceName("")
        .localHostname("127.0.0.1")
        .globalSegmentSize(16L << 20)
        .localBufferSize(8L << 20)
        .nativeSettings(MooncakeConfig.NativeSettings.DEFAULT)
        .tenantId("fixture")
        .library(library)
        .singleCallsOnLanes(false)
        .operationTimeout(Duration.ofSeconds(2))
        .strict(false)
        .consistency(MooncakeConfig.Consistency.CLUSTER)
        .build();
  }

  static MooncakeConfig withSegment(MooncakeConfig d, long segmentBytes, long bufferBytes) {
    return d.toBuilder().globalSegmentSize(segmentBytes).localBufferSize(bufferBytes).build();
  }

  static MooncakeConfig withLanes(
      MooncakeConfig d, Map<String, Integer> perOpWorkers, boolean singleCallsOnLanes) {
    return d.toBuilder()
        .numWorkers(2)
        .perOpWorkers(perOpWorkers)
        .singleCallsOnLanes(singleCallsOnLanes)
        .build();
  }

  static MooncakeConfig withTenantAndAllowList(
      MooncakeConfig d, String tenant, List<String> allowList) {
    return d.toBuilder().tenantId(tenant).deserializationAllowList(allowList).build();
  }
}
