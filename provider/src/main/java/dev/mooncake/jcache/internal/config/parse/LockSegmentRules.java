package dev.mooncake.jcache.internal.config.parse;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.config.MooncakeConfig.Backend;
import dev.mooncake.jcache.config.MooncakeConfig.Consistency;
import dev.mooncake.jcache.config.MooncakeConfig.Mode;
import java.util.List;
import java.util.Optional;

/**
 * {@code lock_segment_size}: the lock-only segment that lets a {@code standalone-store} client run
 * {@code consistency: cluster} (docs/cluster-consistency.md, "Standalone-store"). Its cluster locks
 * live in that small segment, so they go with it when it dies; its values go to the pool's
 * segments, named by {@code preferred_segments}, so they outlive it.
 */
final class LockSegmentRules {
  /** The default: Mooncake's smallest segment. Lock records are under 128 bytes each. */
  static final long DEFAULT = MooncakeConfig.MIN_SEGMENT_SIZE;

  private LockSegmentRules() {}

  /** The lock segment's size for these settings: 0 unless standalone-store runs cluster. */
  static long size(
      ConfigObject config,
      Optional<Long> given,
      Backend backend,
      Mode mode,
      Consistency.Level level) {
    boolean needed =
        backend == Backend.MOONCAKE
            && mode == Mode.STANDALONE_STORE
            && level == Consistency.Level.CLUSTER;
    if (!needed) {
      if (given.isPresent()) {
        throw config.error(
            "lock_segment_size",
            "is used only in mode \"standalone-store\" with \"consistency\": \"cluster\" (there it"
                + " is the segment that holds this client's cluster locks); this config runs mode "
                + mode.configValue()
                + " with consistency "
                + level.configValue()
                + (mode == Mode.EMBEDDED ? ", where locks live in global_segment_size" : "")
                + ". Remove it");
      }
      return 0;
    }
    long size = given.orElse(DEFAULT);
    if (size < MooncakeConfig.MIN_SEGMENT_SIZE) {
      throw config.error(
          "lock_segment_size",
          size
              + " bytes is below 16 MiB, the smallest segment Mooncake mounts (its setup answers"
              + " -600 INVALID_PARAMS below it)");
    }
    return size;
  }

  /**
   * {@code master_metrics_address}: where the pool's segments are listed (with a lock segment), and
   * where acquisitions check that a lock record landed in its holder's segment; only under {@code
   * cluster}, and a valid {@code host:port}.
   */
  static String metricsAddress(
      ConfigObject config, Optional<String> given, Consistency.Level level) {
    if (given.isEmpty()) {
      return null;
    }
    if (level != Consistency.Level.CLUSTER) {
      throw config.error(
          "master_metrics_address",
          "is used only with \"consistency\": \"cluster\" (it finds the pool's segments in"
              + " \"standalone-store\" and checks where lock records land); remove it");
    }
    String address = given.get().strip();
    MooncakeConfigReader.check(config, "master_metrics_address", HostPort::parse, address);
    return address;
  }

  /**
   * Standalone-store with cluster locks needs the pool's segment names, or where to read them:
   * without them Mooncake places values at random among all segments, the lock segments of the app
   * JVMs included, where they would go when those JVMs restart.
   */
  static void checkPoolNamed(
      ConfigObject config, long lockSegmentSize, List<String> preferred, String metricsAddress) {
    if (lockSegmentSize > 0 && preferred.isEmpty() && metricsAddress == null) {
      throw config.error(
          "preferred_segments",
          "must name the pool's segment(s) in mode \"standalone-store\" with \"consistency\":"
              + " \"cluster\", or master_metrics_address must say where the master lists them:"
              + " this client contributes a lock segment of "
              + lockSegmentSize
              + " bytes, and without a preference Mooncake places values at random, in that"
              + " segment too, which goes when this JVM stops. Name the segments of the"
              + " mooncake_client pool (as GET /get_all_segments on the master's metrics port"
              + " lists them), set master_metrics_address (host:port of that port), or set"
              + " \"consistency\": \"local\"");
    }
  }
}
