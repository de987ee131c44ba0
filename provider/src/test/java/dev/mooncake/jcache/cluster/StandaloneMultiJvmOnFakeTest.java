package dev.mooncake.jcache.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;

/**
 * The multi-JVM scenarios over the fake's cross-process mode in {@code mode: standalone-store} with
 * {@code consistency: cluster}: every peer contributes a 16 MiB lock segment only, and a pool JVM
 * (an embedded client with a 64 MiB segment, as a {@code mooncake_client} process on a real master)
 * holds the values, named in {@code preferred_segments}. The fake names a process's first segment
 * {@code <host>:<pid>-1}.
 */
class StandaloneMultiJvmOnFakeTest extends MultiJvmOnFakeTest {
  private Peer pool;

  @Override
  protected String configJson() {
    try {
      if (pool == null) {
        Path poolConfig = Files.createTempFile("mcj-fake-pool-", ".json");
        Files.writeString(poolConfig, poolJson());
        pool = Peer.start("pool", poolConfig, environment());
        pool.ready();
      }
    } catch (Exception e) {
      throw new AssertionError("cannot start the pool JVM", e);
    }
    return """
        {
          "backend": "mooncake",
          "library": "%s",
          "mode": "standalone-store",
          "global_segment_size": 0,
          "lock_segment_size": "16MB",
          "preferred_segments": ["127.0.0.1:%d-1"],
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "local_buffer_size": "8MB",
          "operation_timeout_ms": 20000,
          "consistency": "cluster",
          "client_ttl_ms": %d,
          "lock_lease_ms": 1500
        }
        """
        .formatted(System.getProperty("mooncake.fixture.library"), pool.pid(), CLIENT_TTL_MS);
  }

  private static String poolJson() {
    return """
        {
          "backend": "mooncake",
          "library": "%s",
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "64MB",
          "local_buffer_size": "8MB",
          "consistency": "local"
        }
        """
        .formatted(System.getProperty("mooncake.fixture.library"));
  }

  @AfterAll
  void stopPool() throws InterruptedException {
    if (pool != null) {
      pool.close();
    }
  }
}
