package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.config.MooncakeConfig;
import java.time.Duration;

/**
 * MooncakeConfig records for tests, built directly (the config parser is written elsewhere): the
 * built-in defaults with the Mooncake backend pointed at the fake store.
 */
final class TestConfig {
  String source = "test config";
  MooncakeConfig.Mode mode = MooncakeConfig.Mode.EMBEDDED;
  String metadataServer = "P2PHANDSHAKE";
  String masterServerAddress = "127.0.0.1:50051";
  String protocol = "tcp";
  String deviceName = "";
  String localHostname = "127.0.0.1";
  long globalSegmentSize = 16L << 20;
  long localBufferSize = 4L << 20;
  String library = Fake.library();
  MooncakeConfig.ReplicaSettings replica = MooncakeConfig.ReplicaSettings.DEFAULT;
  Duration operationTimeout = Duration.ofSeconds(2);
  MooncakeConfig.NativeSettings nativeSettings = MooncakeConfig.NativeSettings.DEFAULT;
  MooncakeConfig.Consistency consistency = ConfigLoader.defaults().consistency();
  long lockSegmentSize = 0;

  MooncakeConfig build() {
    return ConfigLoader.defaults().toBuilder()
        .source(source)
        .backend(MooncakeConfig.Backend.MOONCAKE)
        .mode(mode)
        .metadataServer(metadataServer)
        .masterServerAddress(masterServerAddress)
        .protocol(protocol)
        .deviceName(deviceName)
        .localHostname(localHostname)
        .globalSegmentSize(globalSegmentSize)
        .localBufferSize(localBufferSize)
        .nativeSettings(nativeSettings)
        .tenantId("test")
        .library(library)
        .replica(replica)
        .operationTimeout(operationTimeout)
        .consistency(consistency)
        .lockSegmentSize(lockSegmentSize)
        .build();
  }

  MooncakeStore open() {
    return (MooncakeStore) MooncakeStore.open(build());
  }
}
