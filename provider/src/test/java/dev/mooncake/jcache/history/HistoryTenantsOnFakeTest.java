package dev.mooncake.jcache.history;

import java.nio.file.Path;

/** The tenant scenario over the fake library's cross-process mode, in the normal build. */
class HistoryTenantsOnFakeTest extends TenantScenarios {

  @Override
  protected void assumeAvailable() {
    FakeHistoryCluster.assumeAvailable();
  }

  @Override
  protected HistoryCluster openCluster(Path dir) {
    return new FakeHistoryCluster();
  }

  @Override
  protected int defaultOperations() {
    return 4000;
  }
}
