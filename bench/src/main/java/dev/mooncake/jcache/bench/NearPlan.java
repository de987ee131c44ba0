package dev.mooncake.jcache.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code near-cache} part: this provider on a real Mooncake with a near cache ({@link
 * NearPeers}) against the same without one ({@code mooncake-store-local}) and Redisson's JCache, in
 * one run with one master (started with KV events) and one redis-server. It runs after the {@code
 * mooncake} part in bench/run-mooncake.sh and keeps its results apart (bench/results/perf-data/
 * near-cache.json), so either part can be run again alone without losing the other.
 *
 * <p>Timing: the ratios decide only with error bars within ±10 % (issue 16), and on this machine
 * fork-to-fork spread dominates, so the {@code full} level takes 3 forks of 5 × 2 s (each fork
 * fills and warms 100,000 keys for most of a minute here: forks are what a run costs).
 */
final class NearPlan {
  private NearPlan() {}

  static Plan of(String level) {
    List<String> trio = List.of(NearPeers.NEAR, NearPeers.OFF, "redisson");
    List<String> withSmall =
        List.of(NearPeers.NEAR, NearPeers.NEAR_SMALL, NearPeers.OFF, "redisson");
    List<String> zipf = List.of("zipf");
    List<Segment> segments = new ArrayList<>();
    Segment hit =
        new Segment("near hit get", "nearHitGet", trio, List.of("1k"), List.of("uniform"), 1);
    switch (level) {
      case "smoke", "short" -> {
        // the two targets' headline figures only, on the short level's smaller data
        // (Plan.shortRemote): every fork of 100,000 keys filled for 7-9 s
        segments.add(hit);
        segments.add(new Segment("near read-heavy", "nearReadHeavy", trio, List.of("1k"), zipf, 1));
      }
      case "full", "long" -> {
        segments.add(hit);
        segments.add(
            new Segment("near read-heavy", "nearReadHeavy", withSmall, Plan.ALL_VALUES, zipf, 1));
        segments.add(
            new Segment(
                "near read-heavy 2t",
                "nearReadHeavy",
                trio,
                Plan.ALL_VALUES,
                level.equals("long") ? Plan.BOTH_KEYS : zipf,
                2));
        if (level.equals("long")) {
          segments.add(
              new Segment(
                  "near read-heavy uniform",
                  "nearReadHeavy",
                  trio,
                  Plan.ALL_VALUES,
                  List.of("uniform"),
                  1));
        }
      }
      default ->
          throw new IllegalArgumentException(
              "unknown level '" + level + "'; use smoke, short, full or long");
    }
    String part = "near-cache";
    int all = ValueKind.MAX_KEYS;
    return switch (level) {
      case "smoke" -> new Plan(part, level, 1, 1, 1, 1, 1, 64L << 20, all, segments);
      case "short" -> Plan.shortRemote(part, level, segments);
      case "full" -> new Plan(part, level, 3, 3, 1, 5, 2, Budget.DEFAULT, all, segments);
      default -> new Plan(part, level, 5, 3, 2, 5, 2, Budget.DEFAULT, all, segments);
    };
  }
}
