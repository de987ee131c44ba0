package dev.mooncake.jcache.lock.cluster;

import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.backend.OwnSegment;
import java.time.Duration;
import javax.cache.CacheException;

/**
 * Cluster locks on one store connection: the locks, and the store the caches must use so that
 * every mutation under a lock is checked against its lease.
 *
 * @param locks the key locks
 * @param store the connection's store, wrapped by {@link LeaseCheckedStore}
 */
public record ClusterLocking(ClusterKeyLocks locks, ObjectStore store) {

  /**
   * Cluster locks on {@code store}, which must contribute a segment of its own: a lock lives
   * there so that it disappears with a holder that dies. Without one no bound on a dead holder's
   * locks could be given, so this refuses.
   */
  public static ClusterLocking on(ObjectStore store, Duration lease, Duration timeout) {
    String segment = store instanceof OwnSegment own ? own.ownSegment() : null;
    if (segment == null) {
      throw new CacheException("consistency \"cluster\" needs a Mooncake client that contributes"
          + " a segment of its own (mode \"embedded\", global_segment_size > 0), where its locks"
          + " live and die with it; " + store.describe() + " contributes none. Give it a segment,"
          + " or set \"consistency\": \"local\" (atomic only within one JVM; see"
          + " docs/cluster-consistency.md)");
    }
    String holder = segment + " pid " + ProcessHandle.current().pid();
    ClusterKeyLocks locks = new ClusterKeyLocks(
        new SegmentLockStore(store, (OwnSegment) store), holder, lease, timeout);
    return new ClusterLocking(locks, new LeaseCheckedStore(store, locks));
  }
}
