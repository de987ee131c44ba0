package dev.mooncake.jcache.internal.lock.cluster;

import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.OwnSegment;
import dev.mooncake.jcache.internal.time.Ticker;
import java.time.Duration;
import javax.cache.CacheException;

/** Builds the cluster locks of one store connection. */
public final class ClusterLocking {
  private ClusterLocking() {}

  /**
   * Cluster locks on {@code store}, which must contribute a segment of its own: a lock lives there
   * so that it disappears with a holder that dies. Without one no bound on a dead holder's locks
   * could be given, so this refuses.
   */
  public static ClusterKeyLocks locks(ObjectStore store, Duration lease, Duration timeout) {
    return locks(store, lease, timeout, Duration.ZERO);
  }

  /**
   * {@link #locks(ObjectStore, Duration, Duration)} that keep each lock after its operation for up
   * to {@code keepIdle} unused (zero: not at all; docs/cluster-consistency.md, "Lock keeping").
   */
  public static ClusterKeyLocks locks(
      ObjectStore store, Duration lease, Duration timeout, Duration keepIdle) {
    return locks(store, lease, timeout, keepIdle, Ticker.system(), null);
  }

  /**
   * {@link #locks(ObjectStore, Duration, Duration, Duration)} whose leases, waits and deadlines
   * read {@code ticker} (the provider's injected clock).
   */
  public static ClusterKeyLocks locks(
      ObjectStore store, Duration lease, Duration timeout, Duration keepIdle, Ticker ticker) {
    return locks(store, lease, timeout, keepIdle, ticker, null);
  }

  /**
   * {@link #locks(ObjectStore, Duration, Duration, Duration, Ticker)} whose acquisitions also
   * check, at the master's admin server {@code masterMetricsAddress} (null: no check), that each
   * new lock record lives in this client's segment ({@link LockPlacement}).
   */
  public static ClusterKeyLocks locks(
      ObjectStore store,
      Duration lease,
      Duration timeout,
      Duration keepIdle,
      Ticker ticker,
      String masterMetricsAddress) {
    String segment = store instanceof OwnSegment own ? own.ownSegment() : null;
    if (segment == null) {
      throw new CacheException(
          "consistency \"cluster\" needs a Mooncake client that contributes"
              + " a segment of its own (mode \"embedded\", global_segment_size > 0, or"
              + " \"standalone-store\" with its lock_segment_size), where its locks"
              + " live and die with it; "
              + store.describe()
              + " contributes none. Give it a segment,"
              + " or set \"consistency\": \"local\" (atomic only within one JVM; see"
              + " docs/cluster-consistency.md)");
    }
    String holder = segment + " pid " + ProcessHandle.current().pid();
    ClusterKeyLocks locks =
        ClusterKeyLocks.keeping(
            new SegmentLockStore(store, (OwnSegment) store),
            holder,
            lease,
            timeout,
            keepIdle,
            ticker);
    locks.checkPlacement(LockPlacement.onMaster(masterMetricsAddress, segment));
    return locks;
  }
}
