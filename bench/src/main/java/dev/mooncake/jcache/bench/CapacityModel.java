package dev.mooncake.jcache.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * docs/capacity.md's model: the master CPU a JCache operation costs is the sum of the measured CPU
 * of the store calls it makes (their lists from {@code RoundTripsTest}), and one master core serves
 * as many JVMs as fit into a second of CPU. Pure arithmetic over {@link MasterCapacity}'s figures
 * (CPU µs per call, by call kind), so that the page's fleet sizes come from code.
 */
final class CapacityModel {
  static final String GET_HIT = "get_into, hit";
  static final String GET_MISS = "get_into, miss";
  static final String PUT_NEW = "put_from, new key";
  static final String PUT_PRESENT = "put_from, present key";
  static final String PUT_PINNED = "put_from pinned, new key";
  static final String GET_SIZE = "get_size";
  static final String IS_EXIST = "is_exist";
  static final String BATCH_GET_2 = "batch_get_into, 2 keys";
  static final String BATCH_EXIST_2 = "batch_is_exist, 2 keys";
  static final String BATCH_EXIST_512 = "batch_is_exist, 512 keys";
  static final String BATCH_PUT_16 = "batch_put_from, 16 new keys";
  static final String REMOVE = "remove";
  static final String REMOVE_PINNED = "remove, pinned";

  /** The keeper's want poll: one batch_is_exist every 10 ms (lockkeep's KeptLocks.POLL). */
  static final int POLLS_PER_SECOND = 100;

  /**
   * A put over a present key of an eternal cache without listeners, by protocol: the store calls of
   * {@code RoundTripsTest}'s "put existing" rows (the kept ones from branch lockkeep, b62b975).
   */
  enum Put {
    LOCAL(List.of(REMOVE, PUT_NEW, GET_SIZE)),
    CLUSTER(List.of(PUT_PINNED, BATCH_GET_2, REMOVE, PUT_NEW, REMOVE_PINNED)),
    /** Lock keeping, the key's lock kept by this JVM: the entry's remove and put. */
    KEPT_HELD(List.of(REMOVE, PUT_NEW)),
    /** Lock keeping, a key no JVM holds: as cluster, the lock's release deferred, not saved. */
    KEPT_NOT_HELD(List.of(PUT_PINNED, BATCH_GET_2, REMOVE, PUT_NEW, REMOVE_PINNED));

    final List<String> calls;

    Put(List<String> calls) {
      this.calls = calls;
    }
  }

  private final Map<String, Double> micros;

  /** {@code micros}: the master's CPU µs per call, by call kind (the constants above). */
  CapacityModel(Map<String, Double> micros) {
    this.micros = micros;
  }

  double cost(String kind) {
    Double c = micros.get(kind);
    if (c == null) {
      throw new IllegalArgumentException("no measured CPU per call for '" + kind + "'");
    }
    return c;
  }

  /** Master CPU µs of one put over a present key under {@code put}. */
  double put(Put put) {
    return put.calls.stream().mapToDouble(this::cost).sum();
  }

  /** Master CPU µs of one mixed op: {@code putShare} puts, the rest get hits. */
  double mixedOp(Put put, double putShare) {
    return (1 - putShare) * cost(GET_HIT) + putShare * put(put);
  }

  /** One batch_is_exist of {@code keys} keys, linear between the measured 2 and 512 keys. */
  double batchExist(int keys) {
    double perKey = (cost(BATCH_EXIST_512) - cost(BATCH_EXIST_2)) / 510;
    return cost(BATCH_EXIST_2) + (keys - 2) * perKey;
  }

  /**
   * The keeping JVM's background master CPU per second: the want poll (one batch_is_exist of a want
   * key and a lock key per kept lock, {@link #POLLS_PER_SECOND} times a second) and, for locks
   * still in use, a renewal read (batch_get_into of [lock, entry]) each half lease.
   */
  double keeperMicrosPerSecond(int keptLocks, double renewalsPerSecond) {
    return POLLS_PER_SECOND * batchExist(2 * keptLocks) + renewalsPerSecond * cost(BATCH_GET_2);
  }

  /** Master CPU µs per second of one JVM doing {@code opsPerSecond} mixed ops. */
  double jvmMicrosPerSecond(Put put, double putShare, double opsPerSecond, double background) {
    return opsPerSecond * mixedOp(put, putShare) + background;
  }

  /** The most JVMs whose load fits into one core's second (1,000,000 µs). */
  static long fleet(double jvmMicrosPerSecond) {
    if (!(jvmMicrosPerSecond > 0)) {
      throw new IllegalArgumentException("a JVM's master CPU per second must be > 0");
    }
    return (long) Math.floor(1_000_000 / jvmMicrosPerSecond);
  }

  /** The page's workload: ops/s per JVM, put share, locks a keeping JVM keeps, lease (s). */
  static final double OPS_PER_SECOND = 1_000;

  static final double PUT_SHARE = 0.1;
  static final int FEW_KEPT_LOCKS = 10;
  static final int KEPT_LOCKS = 100;
  static final int FLEET = 100;
  static final double LEASE_SECONDS = 5;

  /**
   * The fleet one master core serves at the page's workload, per protocol, as a markdown table. A
   * JVM's heartbeat (one Ping a second) is costed as an is_exist; keeping JVMs keep {@link
   * #FEW_KEPT_LOCKS} or {@link #KEPT_LOCKS} locks: with affinity (each JVM writes keys it holds)
   * each is renewed once per half lease; without it every put takes a fresh lock, kept for the idle
   * time (1 s: 100 puts/s keep 100 locks), and pays today's calls.
   */
  String fleetTable() {
    double ping = cost(IS_EXIST);
    StringBuilder t =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "Fleet per master core: JVMs each doing %.0f ops/s, %.0f %% get hits / %.0f %% puts"
                    + " over present keys, 1 KiB, eternal cache%n%n"
                    + "| protocol | master µs per op | background µs/s per JVM | master µs/s per JVM"
                    + " | JVMs per core | cores for %d JVMs |%n|---|---:|---:|---:|---:|---:|%n",
                OPS_PER_SECOND,
                100 * (1 - PUT_SHARE),
                100 * PUT_SHARE,
                FLEET));
    row(t, "local", Put.LOCAL, ping);
    row(t, "cluster", Put.CLUSTER, ping);
    for (int kept : new int[] {FEW_KEPT_LOCKS, KEPT_LOCKS}) {
      row(
          t,
          "cluster, lock keeping, puts on keys this JVM keeps (" + kept + " kept)",
          Put.KEPT_HELD,
          ping + keeperMicrosPerSecond(kept, kept / (LEASE_SECONDS / 2)));
    }
    row(
        t,
        "cluster, lock keeping, puts on keys no JVM keeps (" + KEPT_LOCKS + " kept)",
        Put.KEPT_NOT_HELD,
        ping + keeperMicrosPerSecond(KEPT_LOCKS, 0));
    return t.toString();
  }

  private void row(StringBuilder t, String name, Put put, double background) {
    double perJvm = jvmMicrosPerSecond(put, PUT_SHARE, OPS_PER_SECOND, background);
    t.append(
        String.format(
            Locale.ROOT,
            "| %s | %.1f | %,.0f | %,.0f | %,d | %.1f |%n",
            name,
            mixedOp(put, PUT_SHARE),
            background,
            perJvm,
            fleet(perJvm),
            FLEET * perJvm / 1e6));
  }
}
