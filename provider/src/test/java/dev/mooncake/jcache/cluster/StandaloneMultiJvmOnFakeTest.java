package dev.mooncake.jcache.cluster;

import org.junit.jupiter.api.AfterAll;

/**
 * The multi-JVM scenarios over the fake's cross-process mode in {@code mode: standalone-store} with
 * {@code consistency: cluster}: every peer contributes a 16 MiB lock segment only, and a pool JVM
 * ({@link FakePool}: a client that contributes a 64 MiB segment and nothing else, as a {@code
 * mooncake_client} process on a real master) holds the values, named in {@code preferred_segments}.
 */
class StandaloneMultiJvmOnFakeTest extends MultiJvmOnFakeTest {
  private FakePool.Started pool;

  @Override
  protected String configJson() {
    try {
      if (pool == null) {
        pool = FakePool.start("pool", 64L << 20, environment());
      }
    } catch (Exception e) {
      throw new AssertionError("cannot start the pool JVM", e);
    }
    return appConfig(pool.segment());
  }

  /** An app JVM's config: standalone-store + cluster, values preferring {@code poolSegment}. */
  static String appConfig(String poolSegment) {
    return """
        {
          "backend": "mooncake",
          "library": "%s",
          "mode": "standalone-store",
          "global_segment_size": 0,
          "lock_segment_size": "16MB",
          "preferred_segments": ["%s"],
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
        .formatted(System.getProperty("mooncake.fixture.library"), poolSegment, CLIENT_TTL_MS);
  }

  @AfterAll
  void stopPool() throws InterruptedException {
    if (pool != null) {
      pool.close();
    }
  }
}
