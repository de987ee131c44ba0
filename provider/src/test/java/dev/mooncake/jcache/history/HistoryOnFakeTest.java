package dev.mooncake.jcache.history;

import java.nio.file.Path;

/**
 * The history scenarios over the fake library's cross-process mode ({@link FakeHistoryCluster}), in
 * the normal build: 4,000 operations per run unless {@code -Dhistory.ops} says otherwise.
 */
class HistoryOnFakeTest extends HistoryScenarios {

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
