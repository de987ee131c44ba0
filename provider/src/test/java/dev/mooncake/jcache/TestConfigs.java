package dev.mooncake.jcache;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.config.MooncakeConfig;
import java.util.List;

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
    return new MooncakeConfig("fixture", MooncakeConfig.Backend.MOONCAKE,
        MooncakeConfig.Mode.EMBEDDED, "P2PHANDSHAKE", "127.0.0.1:50051", "tcp", "", "127.0.0.1",
        16L << 20, 8L << 20, MooncakeConfig.NativeSettings.DEFAULT, "fixture", library, d.numWorkers(), d.perOpWorkers(),
        false, d.replica(), java.time.Duration.ofSeconds(2), d.eviction(),
        d.deserializationAllowList(), d.caches(), false, MooncakeConfig.Consistency.CLUSTER);
  }

  static MooncakeConfig withSegment(MooncakeConfig d, long segmentBytes, long bufferBytes) {
    return new MooncakeConfig(d.source(), d.backend(), d.mode(), d.metadataServer(),
        d.masterServerAddress(), d.protocol(), d.deviceName(), d.localHostname(),
        segmentBytes, bufferBytes, d.nativeSettings(), d.tenantId(), d.library(),
        d.numWorkers(), d.perOpWorkers(), d.singleCallsOnLanes(), d.replica(),
        d.operationTimeout(), d.eviction(), d.deserializationAllowList(), d.caches(), d.strict(), d.consistency());
  }

  static MooncakeConfig withLanes(MooncakeConfig d, java.util.Map<String,
      Integer> perOpWorkers, boolean singleCallsOnLanes) {
    return new MooncakeConfig(d.source(), d.backend(), d.mode(), d.metadataServer(),
        d.masterServerAddress(), d.protocol(), d.deviceName(), d.localHostname(),
        d.globalSegmentSize(), d.localBufferSize(), d.nativeSettings(), d.tenantId(), d.library(),
        2, perOpWorkers, singleCallsOnLanes, d.replica(),
        d.operationTimeout(), d.eviction(), d.deserializationAllowList(), d.caches(), d.strict(), d.consistency());
  }

  static MooncakeConfig withTenantAndAllowList(
      MooncakeConfig d, String tenant, List<String> allowList) {
    return new MooncakeConfig(d.source(), d.backend(), d.mode(), d.metadataServer(),
        d.masterServerAddress(), d.protocol(), d.deviceName(), d.localHostname(),
        d.globalSegmentSize(), d.localBufferSize(), d.nativeSettings(), tenant, d.library(),
        d.numWorkers(), d.perOpWorkers(), d.singleCallsOnLanes(), d.replica(),
        d.operationTimeout(), d.eviction(), allowList, d.caches(), d.strict(), d.consistency());
  }
}
