package dev.mooncake.jcache.history;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The history scenarios over the fake library's cross-process mode ({@link FakeHistoryCluster}), in
 * the normal build: 4,000 operations per run unless {@code -Dhistory.ops} says otherwise.
 */
class HistoryOnFakeTest extends HistoryScenarios {

  @Override
  protected void assumeAvailable() {
    FakeHistoryCluster.assumeAvailable();
  }

  private boolean valueChecksOff;

  @Override
  protected HistoryCluster openCluster(Path dir) {
    return new FakeHistoryCluster(valueChecksOff);
  }

  @Test
  void withTheValueChecksOffEveryRunReadsValuesNotItsOwn() throws Exception {
    valueChecksOff = true;
    assertEveryRunReadsForeignValues();
  }

  @Override
  protected int defaultOperations() {
    return 4000;
  }
}
