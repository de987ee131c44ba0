package dev.mooncake.jcache.internal.doctor;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.OwnSegment;
import dev.mooncake.jcache.internal.backend.mooncake.PoolTopology;
import dev.mooncake.jcache.internal.connection.StoreConnection;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The doctor's checks of the production topology ({@code mode: standalone-store}, docs/pool.md):
 * the master's admin server answers, the pool's segments are mounted with room in them, and under
 * {@code consistency: cluster} this JVM's lock segment is mounted and a lock can be taken and
 * released. Prints one line per check; each missing thing is one {@code MISSING <what>: <why>}
 * line, and {@link #missing()} names them for the doctor's last line.
 */
final class TopologyCheck {
  private final PrintStream out;
  private final MooncakeConfig config;
  private final List<String> missing = new ArrayList<>();

  TopologyCheck(PrintStream out, MooncakeConfig config) {
    this.out = out;
    this.config = config;
  }

  static boolean applies(MooncakeConfig config) {
    return config.backend() == MooncakeConfig.Backend.MOONCAKE
        && config.mode() == MooncakeConfig.Mode.STANDALONE_STORE;
  }

  private boolean cluster() {
    return config.consistency().level() == MooncakeConfig.Consistency.Level.CLUSTER;
  }

  /** The master's admin server and the pool: what can be known before this client connects. */
  void beforeConnect() {
    String admin = config.masterMetricsAddress();
    if (admin == null) {
      out.println(
          "pool     not checked with the master: set master_metrics_address (its --metrics_port)"
              + " to check that the pool is mounted and has room");
      return;
    }
    try {
      PoolTopology.health(admin);
      out.println("master   admin server " + admin + " healthy");
    } catch (RuntimeException e) {
      missing("master", "the master's admin server does not answer: " + ConfigDoctor.cause(e));
      return;
    }
    PoolTopology topology;
    List<String> pools;
    try {
      topology = PoolTopology.read(admin);
      pools = topology.valueSegments(config);
    } catch (RuntimeException e) {
      missing("pool", "cannot read the master's segments: " + ConfigDoctor.cause(e));
      return;
    }
    if (pools.isEmpty()) {
      missing(
          "pool",
          "no pool segment is mounted ("
              + topology.source()
              + " lists none larger than lock_segment_size "
              + config.lockSegmentSize()
              + " bytes): start mooncake_client (docs/pool.md)");
      return;
    }
    long free = 0;
    long capacity = 0;
    for (String name : pools) {
      PoolTopology.Segment segment = topology.mounted(name);
      if (segment == null) {
        missing(
            "pool",
            "preferred segment "
                + name
                + " is not mounted ("
                + topology.source()
                + "): start its mooncake_client, or name the running pool");
        continue;
      }
      free += segment.freeBytes();
      capacity += segment.capacityBytes();
      out.printf(
          Locale.ROOT,
          "pool     %s mounted: %s, %s free%n",
          name,
          mib(segment.capacityBytes()),
          mib(segment.freeBytes()));
    }
    if (capacity > 0 && free < config.localBufferSize()) {
      missing(
          "pool space",
          mib(free)
              + " free in the pool, less than one value of local_buffer_size "
              + mib(config.localBufferSize())
              + ": puts answer -200 until Mooncake evicts; add or grow a pool (docs/pool.md)");
    }
  }

  /** Under cluster consistency: this JVM's lock segment is mounted and a lock round trip works. */
  void afterConnect() {
    if (!cluster()) {
      return;
    }
    try (StoreConnection connection = StoreConnection.open(config, Ticker.system())) {
      String own = connection.store() instanceof OwnSegment segment ? segment.ownSegment() : null;
      if (own == null) {
        missing("lock segment", "this client contributes no segment for its locks");
        return;
      }
      String admin = config.masterMetricsAddress();
      if (admin != null) {
        PoolTopology.Segment mounted;
        try {
          mounted = PoolTopology.read(admin).mounted(own);
        } catch (RuntimeException e) {
          missing("lock segment", "cannot read the master's segments: " + ConfigDoctor.cause(e));
          return;
        }
        if (mounted == null) {
          missing("lock segment", own + " is not mounted at the master");
          return;
        }
      }
      out.printf(
          Locale.ROOT, "locks    segment %s mounted (%s)%n", own, mib(config.lockSegmentSize()));
      long start = System.nanoTime();
      String key = "mooncake-doctor/lock-" + UUID.randomUUID();
      try (KeyLocks.Held held =
          connection
              .locks()
              .lock(key, null, Deadline.after(config.operationTimeout(), Ticker.system()))) {
        held.ensureHeld();
      }
      out.println("lock     taken and released in " + ConfigDoctor.millis(start));
    } catch (RuntimeException e) {
      missing("lock", "taking and releasing a cluster lock failed: " + ConfigDoctor.cause(e));
    }
  }

  /** The missing things, in the order found; empty when the topology is complete. */
  List<String> missing() {
    return missing;
  }

  private void missing(String what, String why) {
    missing.add(what);
    out.println("MISSING " + what + ": " + why);
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
  }
}
