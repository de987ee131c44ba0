package dev.mooncake.jcache.internal.lock.cluster;

import dev.mooncake.jcache.internal.calls.BoundedCalls;
import java.time.Duration;
import java.util.function.LongSupplier;

/** Cluster locks as the tests build them: on the test's clock and pause, keeping none. */
public final class TestLocks {
  private TestLocks() {}

  /**
   * Locks on {@code clock} whose waiters wait through {@code pause} (a fake clock's advance), with
   * the production read bound, reads on their own threads, and no lock kept after its operation.
   */
  public static ClusterKeyLocks on(
      LockStore store,
      String holder,
      Duration lease,
      Duration timeout,
      LongSupplier clock,
      ClusterKeyLocks.Pause pause) {
    return new ClusterKeyLocks(
        store,
        holder,
        lease,
        timeout,
        clock,
        pause,
        new BoundedCalls("lock-reads", ClusterKeyLocks.MAX_STUCK_READS),
        ClusterKeyLocks.defaultReadBound(lease),
        Duration.ZERO);
  }
}
