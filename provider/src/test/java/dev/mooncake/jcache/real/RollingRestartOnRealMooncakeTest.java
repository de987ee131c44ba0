package dev.mooncake.jcache.real;

import dev.mooncake.jcache.cluster.RollingRestartScenario;
import java.nio.file.Files;
import java.util.Map;
import java.util.UUID;

/**
 * The rolling restart on a real Mooncake: a {@code mooncake_client} pool ({@link StandalonePool})
 * holds the values, three app JVMs in {@code standalone-store} + {@code cluster} find it through
 * the master's metrics port. A killed JVM's lock segment goes after the master's client TTL (10 s),
 * less than the 20 s operation timeout its replacement waits for a lock it held. Skips, saying why,
 * without MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER / MOONCAKE_CLIENT.
 */
class RollingRestartOnRealMooncakeTest extends RollingRestartScenario {
  private StandalonePool pool;

  @Override
  protected void assumeAvailable() {
    StandalonePool.assumeAvailable();
  }

  @Override
  protected String startPoolAndConfigure() throws Exception {
    pool = StandalonePool.start("256MB", Files.createTempFile("mooncake-pool-", ".log"));
    return StandalonePool.appConfig("rolling-" + UUID.randomUUID());
  }

  @Override
  protected void stopPool() throws Exception {
    if (pool != null) {
      pool.close();
    }
  }

  @Override
  protected Map<String, String> environment() {
    return Map.of("MC_LOG_LEVEL", "WARNING");
  }
}
