package dev.mooncake.jcache.internal.management;

import javax.cache.management.CacheStatisticsMXBean;

/**
 * The spec's statistics plus what a distributed store adds: reads that were answered with bytes
 * that were not the key's value, and reads of objects whose segment could not be reached. Both are
 * counted whether or not statistics are enabled (they are rare, and a sign of trouble), and reset
 * by {@link #clear} with the rest.
 */
public interface MooncakeCacheStatisticsMXBean extends CacheStatisticsMXBean {

  /**
   * Reads whose bytes were not the key's whole value (another key's, cache's or tenant's object, a
   * torn mix, no header): each was read again, none was returned (docs/reliability.md).
   */
  long getIntegrityMismatches();

  /** Reads answered as misses because the object's segment could not be reached (-800). */
  long getUnreachableReads();
}
