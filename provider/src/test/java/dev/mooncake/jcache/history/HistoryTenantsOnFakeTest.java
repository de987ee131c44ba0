package dev.mooncake.jcache.history;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The tenant scenario over the fake library's cross-process mode, in the normal build: 16,000
 * operations per run (about 5 s of churn; with the fake's reused blocks and 1 ms reads the provider
 * of 2026-12-03 read a value not its own in 3 of 4 such runs, in 2 of 5 at 4,000).
 */
class HistoryTenantsOnFakeTest extends TenantScenarios {

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
    assertEveryRunReadsForeignValues(false);
  }

  /** The zero-copy churn's control: its destination and owner checks must see foreign bytes. */
  @Test
  void withTheValueChecksOffEveryZeroCopyRunSeesBytesNotItsOwn() throws Exception {
    valueChecksOff = true;
    assertEveryRunReadsForeignValues(true);
  }

  @Override
  protected int defaultOperations() {
    return 16_000;
  }
}
