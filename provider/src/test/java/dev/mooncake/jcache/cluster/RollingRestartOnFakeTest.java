package dev.mooncake.jcache.cluster;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The rolling restart over the fake library's cross-process mode, in the default {@code mvn
 * verify}: a {@link FakePool} holds the values, the app JVMs contribute 16 MiB lock segments; the
 * fake drops a killed JVM's segment after {@code MCJ_FAKE_CLIENT_TTL_MS} (3 s).
 */
class RollingRestartOnFakeTest extends RollingRestartScenario {
  private final Path table =
      Path.of("/dev/shm", "mcj-rolling-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
  private FakePool.Started pool;

  @Override
  protected void assumeAvailable() {
    assumeTrue(
        System.getProperty("mooncake.fixture.library") != null,
        "skipped: mooncake.fixture.library (the fake libmooncake_store.so) is not set");
    assumeTrue(Files.isDirectory(Path.of("/dev/shm")), "skipped: no /dev/shm");
  }

  @Override
  protected String startPoolAndConfigure() throws Exception {
    pool = FakePool.start("pool", 64L << 20, environment());
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
        .formatted(
            System.getProperty("mooncake.fixture.library"),
            pool.segment(),
            MultiJvmOnFakeTest.CLIENT_TTL_MS);
  }

  @Override
  protected void stopPool() throws Exception {
    if (pool != null) {
      pool.close();
    }
    MultiJvmOnFakeTest.removeTable(table);
  }

  @Override
  protected Map<String, String> environment() {
    return MultiJvmOnFakeTest.environment(table);
  }
}
