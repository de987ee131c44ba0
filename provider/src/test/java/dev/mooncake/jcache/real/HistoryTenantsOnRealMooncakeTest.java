package dev.mooncake.jcache.real;

import dev.mooncake.jcache.history.HistoryCluster;
import dev.mooncake.jcache.history.TenantScenarios;
import java.nio.file.Path;

/**
 * The tenant scenario on a real Mooncake: every value in the segment of the JVM whose {@code
 * local_hostname} is {@code 127.0.0.1:17071} ({@link RealHistoryCluster}). Skips, saying why,
 * outside the real-mooncake profile.
 */
class HistoryTenantsOnRealMooncakeTest extends TenantScenarios {

  @Override
  protected void assumeAvailable() {
    RealMooncake.assumeAvailable();
  }

  @Override
  protected HistoryCluster openCluster(Path dir) throws Exception {
    return new RealHistoryCluster(dir);
  }

  @Override
  protected int defaultOperations() {
    return 4000;
  }
}
