package dev.mooncake.jcache.cluster;

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
    MultiJvmOnFakeTest.assumeFake();
  }

  @Override
  protected String startPoolAndConfigure() throws Exception {
    pool = FakePool.start("pool", 64L << 20, environment());
    return StandaloneMultiJvmOnFakeTest.appConfig(pool.segment());
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
