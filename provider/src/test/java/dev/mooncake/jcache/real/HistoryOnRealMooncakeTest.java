package dev.mooncake.jcache.real;

import dev.mooncake.jcache.history.HistoryCluster;
import dev.mooncake.jcache.history.HistoryScenarios;
import java.nio.file.Path;

/**
 * The history scenarios on a real Mooncake ({@link RealHistoryCluster}: a master of each run's own,
 * default client TTL 10 s and lease 5 s), the master restart included; 4,000 operations per run
 * unless {@code -Dhistory.ops} says otherwise. Skips, saying why, outside the real-mooncake
 * profile.
 */
class HistoryOnRealMooncakeTest extends HistoryScenarios {

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

  /** The standalone scenario needs {@code MOONCAKE_CLIENT} (the pool binary). */
  @Override
  protected boolean hasPool() {
    return System.getenv("MOONCAKE_CLIENT") != null;
  }

  @Override
  protected boolean canRestartMaster() {
    return true;
  }
}
