package dev.mooncake.jcache.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * What a run measures and for how long. Two parts: {@code in-process} (this provider on its
 * in-process store against Caffeine, Ehcache heap and off-heap, and the ConcurrentHashMap floor)
 * and {@code mooncake} (this provider on a real Mooncake against Redisson on redis-server and
 * against the raw C ABI); each part also measures the zero-copy API of this provider's peer there.
 * Four levels: {@code smoke} (checks that everything runs, seconds per benchmark, small data),
 * {@code short} (the one-command run, under 10 minutes for all three parts), {@code full} (the
 * whole in-process matrix and the Mooncake part's single-key mixes, 2 forks × 5 × 1 s: about 2.5
 * hours in-process) and {@code long} (the whole matrix, 3 forks × 5 × 2 s: most of a day).
 */
public record Plan(
    String part,
    String level,
    int forks,
    int warmupIterations,
    int warmupSeconds,
    int iterations,
    int iterationSeconds,
    long budget,
    int maxKeys,
    List<Segment> segments) {

  static final List<String> ALL_VALUES = List.of("string100", "1k", "64k", "1m");
  static final List<String> BOTH_KEYS = List.of("uniform", "zipf");
  static final List<String> WORKLOADS =
      List.of("readHeavy", "writeHeavy", "readHeavyBatch", "writeHeavyBatch");

  /** The sizes the zero-copy API is for: byte arrays only (it refuses String values). */
  static final List<String> BYTE_VALUES = List.of("1k", "64k", "1m");

  public static Plan of(String part, String level) {
    return switch (part) {
      case "in-process" -> inProcess(level);
      case "mooncake" -> mooncake(level);
      case "near-cache" -> NearPlan.of(level);
      default ->
          throw new IllegalArgumentException(
              "unknown part '" + part + "'; use in-process, mooncake or near-cache");
    };
  }

  private static Plan inProcess(String level) {
    List<String> all = Peers.IN_PROCESS;
    List<String> u = List.of("uniform");
    List<Segment> segments = new ArrayList<>();
    switch (level) {
      case "smoke", "short" -> {
        // each in-process target at the sizes it names, on the two single-key mixes: Ehcache's
        // off-heap tier at every size, Caffeine at 1 KiB, the two floors at 1 MiB (the short run
        // stays under 10 minutes with the Mooncake parts: docs/benchmarks.md, "Levels")
        for (String[] mix :
            new String[][] {{"read-heavy", "readHeavy"}, {"write-heavy", "writeHeavy"}}) {
          segments.add(
              new Segment(
                  mix[0], mix[1], List.of("mooncake", "ehcache-offheap"), ALL_VALUES, u, 1));
          segments.add(
              new Segment(mix[0] + " caffeine", mix[1], List.of("caffeine"), List.of("1k"), u, 1));
          segments.add(
              new Segment(
                  mix[0] + " floors",
                  mix[1],
                  List.of("chm-floor", Report.CONTRACT_FLOOR),
                  List.of("1m"),
                  u,
                  1));
        }
        // the first target's pair on Zipfian keys with two threads, and on batches
        List<String> pair = List.of("mooncake", "ehcache-offheap");
        segments.add(
            new Segment(
                "read-heavy zipf 2t", "readHeavy", pair, List.of("1k"), List.of("zipf"), 2));
        segments.add(new Segment("read-heavy batch", "readHeavyBatch", pair, List.of("1k"), u, 1));
        segments.addAll(shortZeroCopy(Report.OURS));
      }
      case "full" -> {
        // the whole workload matrix for every peer, timed to fit an afternoon (allocation per
        // op comes with every run: JMH's gc profiler)
        segments.addAll(matrix(WORKLOADS, all));
        segments.addAll(zeroCopy(Report.OURS));
      }
      case "long" -> {
        segments.addAll(matrix(WORKLOADS, all));
        segments.add(new Segment("get only", "getOnly", all, ALL_VALUES, u, 1));
        segments.add(new Segment("put only", "putOnly", all, ALL_VALUES, u, 1));
        segments.addAll(zeroCopy(Report.OURS));
      }
      default -> throw badLevel(level);
    }
    return timed("in-process", level, segments);
  }

  private static Plan mooncake(String level) {
    List<String> peers = Peers.MOONCAKE_PART;
    List<String> u = List.of("uniform");
    List<Segment> segments = new ArrayList<>();
    switch (level) {
      case "smoke", "short" -> {
        // the byte[] target (the default peer beside the by-value driver) and Redisson's ratio
        // at every size; the zero-copy target as in-process
        segments.add(
            new Segment(
                "read-heavy",
                "readHeavy",
                List.of("mooncake-store", "redisson"),
                ALL_VALUES,
                u,
                1,
                List.of(Report.C_ABI_BY_VALUE)));
        segments.addAll(shortZeroCopy(Report.OURS_ON_MOONCAKE));
      }
      case "full" -> {
        // the single-key mixes, every size, both key choices, 1 and 2 threads: what the targets
        // (per value size) need; batches on Mooncake are in the long run. The zero-copy API also
        // on a local-consistency cache: what the cluster lock costs a put, beside the driver
        segments.addAll(matrix(List.of("readHeavy", "writeHeavy"), peers));
        segments.addAll(zeroCopy(Report.OURS_ON_MOONCAKE, Report.OURS_ON_MOONCAKE_LOCAL));
      }
      case "long" -> {
        segments.addAll(matrix(WORKLOADS, peers));
        segments.addAll(zeroCopy(Report.OURS_ON_MOONCAKE, Report.OURS_ON_MOONCAKE_LOCAL));
      }
      default -> throw badLevel(level);
    }
    return timed("mooncake", level, segments);
  }

  /** These workloads at every value size and key choice, 1 and 2 threads: a segment each. */
  private static List<Segment> matrix(List<String> workloads, List<String> peers) {
    List<Segment> segments = new ArrayList<>();
    for (int threads : new int[] {1, 2}) {
      for (String workload : workloads) {
        segments.add(
            new Segment(
                workload + " " + threads + "t", workload, peers, ALL_VALUES, BOTH_KEYS, threads));
      }
    }
    return segments;
  }

  /**
   * The zero-copy API's get and put and, for comparison, the normal get of the same keys (one
   * thread: the copy counter is the cache's, not the thread's), on each of {@code peers}.
   */
  private static List<Segment> zeroCopy(String... peers) {
    List<Segment> segments = new ArrayList<>();
    for (String benchmark : ZeroCopyBenchmark.BENCHMARKS) {
      // "zero-copy get", "zero-copy normal get", "zero-copy put": --only 'zero-copy.*' takes all
      String name = "zero-copy " + Report.label(benchmark).replace("zero-copy ", "");
      segments.add(
          new Segment(name, benchmark, List.of(peers), BYTE_VALUES, List.of("uniform"), 1));
    }
    return segments;
  }

  /**
   * The short run's zero-copy segments: the zero-copy get and put at every size, the normal get
   * beside them at 1 MiB only (the copy the zero-copy get saves is largest there).
   */
  private static List<Segment> shortZeroCopy(String peer) {
    List<Segment> segments = new ArrayList<>();
    for (Segment s : zeroCopy(peer)) {
      segments.add(
          s.benchmark().equals("normalGet")
              ? new Segment(s.name(), s.benchmark(), s.peers(), List.of("1m"), s.keys(), 1)
              : s);
    }
    return segments;
  }

  private static Plan timed(String part, String level, List<Segment> segments) {
    int all = ValueKind.MAX_KEYS;
    return switch (level) {
      case "smoke" -> new Plan(part, level, 1, 1, 1, 1, 1, 64L << 20, all, segments);
      // one warm-up second: the short run is indicative (1 fork) and must stay under 10 minutes
      case "short" ->
          part.equals("in-process")
              ? new Plan(part, level, 1, 1, 1, 3, 1, Budget.DEFAULT, all, segments)
              : shortRemote(part, level, segments);
      // error bars that decide (±10 % at 99.9 %) need samples from several JVMs: JMH's error is
      // the t-interval over forks × iterations, and fork-to-fork spread dominates on a VM
      case "full" -> new Plan(part, level, 2, 2, 1, 5, 1, Budget.DEFAULT, all, segments);
      default -> new Plan(part, level, 3, 3, 2, 5, 2, Budget.DEFAULT, all, segments);
    };
  }

  /** The short run's data on a remote store: at most this many keys ({@link #shortRemote}). */
  static final int SHORT_REMOTE_KEYS = 20_000;

  /** And at most this many bytes of values (4,096 keys of 64 KiB, 256 of 1 MiB). */
  static final long SHORT_REMOTE_BUDGET = 256L << 20;

  /**
   * The short level of a part on a remote store (Mooncake, Redis): a fifth of the keys and a
   * quarter of the bytes of the other levels. There the fill is most of a combination's time
   * (100,000 keys took 15-18 s under cluster locks, Redisson's 1 GiB of 1 MiB values 22 s: a put is
   * a round trip), and a round trip costs the same whichever key it names, so the ratios change
   * little; in-process, where a fill takes a second and 100,000 keys are what misses the CPU cache,
   * the short level keeps the full data.
   */
  static Plan shortRemote(String part, String level, List<Segment> segments) {
    return new Plan(part, level, 1, 1, 1, 3, 1, SHORT_REMOTE_BUDGET, SHORT_REMOTE_KEYS, segments);
  }

  private static IllegalArgumentException badLevel(String level) {
    return new IllegalArgumentException(
        "unknown level '" + level + "'; use smoke, short, full or long");
  }

  public Plan withBudget(long bytes) {
    return new Plan(
        part,
        level,
        forks,
        warmupIterations,
        warmupSeconds,
        iterations,
        iterationSeconds,
        bytes,
        maxKeys,
        segments);
  }

  /** This plan with other segments. */
  private Plan withSegments(List<Segment> kept) {
    return new Plan(
        part,
        level,
        forks,
        warmupIterations,
        warmupSeconds,
        iterations,
        iterationSeconds,
        budget,
        maxKeys,
        kept);
  }

  /** The keys a trial of this kind of value stores: min(maxKeys, budget / value size). */
  public int keyCount(ValueKind kind) {
    return kind.keyCount(budget, maxKeys);
  }

  public Plan filtered(String regex) {
    List<Segment> kept = new ArrayList<>();
    for (Segment s : segments) {
      if (s.name().matches(regex)) {
        kept.add(s);
      }
    }
    return withSegments(kept);
  }

  /** Keeps only these peers and values (null: all); segments left empty are dropped. */
  public Plan restricted(List<String> peers, List<String> values) {
    List<Segment> kept = new ArrayList<>();
    for (Segment s : segments) {
      List<String> p =
          peers == null ? s.peers() : s.peers().stream().filter(peers::contains).toList();
      List<String> v =
          values == null ? s.values() : s.values().stream().filter(values::contains).toList();
      if (!v.isEmpty()
          && (!p.isEmpty()
              || (part.equals("mooncake")
                  && peers != null
                  && (peers.contains(Report.C_ABI) || peers.contains(Report.C_ABI_BY_VALUE))))) {
        kept.add(new Segment(s.name(), s.benchmark(), p, v, s.keys(), s.threads(), s.drivers()));
      }
    }
    return withSegments(kept);
  }

  public int runs() {
    return segments.stream().mapToInt(Segment::runs).sum();
  }
}
