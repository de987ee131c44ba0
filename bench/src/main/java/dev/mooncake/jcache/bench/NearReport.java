package dev.mooncake.jcache.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Renders the {@code near-cache} block of docs/performance.md from the near-cache part's results:
 * throughput of each peer, the ratios near ÷ off and near ÷ Redisson with their errors, and the two
 * targets of issue 11.
 */
final class NearReport {
  static final String OFF = NearPeers.OFF;
  static final String REDISSON = "redisson";
  static final List<String> PEERS = List.of(NearPeers.NEAR, NearPeers.NEAR_SMALL, OFF, REDISSON);

  /** Issue 11: a near-cache hit at 1 KiB at least this many times a get through Mooncake. */
  static final double HIT_TARGET = 20;

  private NearReport() {}

  static String block(Results results, String skipped) {
    StringBuilder md = new StringBuilder();
    if (skipped != null) {
      md.append("_Last attempt skipped: ").append(skipped).append("_\n\n");
    }
    if (results == null) {
      md.append(
          "_Not measured yet: needs a Mooncake build with KV events (`MOONCAKE_STORE_LIBRARY`,"
              + " `MOONCAKE_MASTER`) and redis-server; `bench/run-mooncake.sh full --part"
              + " near-cache`._\n");
      return md.toString();
    }
    Report.meta(md, results);
    List<Record> records = results.records;
    md.append("\n**Targets** (issue 11). A ratio decides when ")
        .append(DECIDING_RULE)
        .append(":\n\n")
        .append("| target | status |\n|---|---|\n")
        .append("| near-cache hit at 1 KiB ≥ 20× a get through Mooncake | ")
        .append(hitTarget(records))
        .append(" |\n| near cache ahead of Redisson on every read-heavy workload | ")
        .append(aheadOfRedisson(records, NearPeers.NEAR))
        .append(" |\n");
    if (records.stream().anyMatch(r -> r.peer().equals(NearPeers.NEAR_SMALL))) {
      md.append("| (not a target) the same with a near cache of a tenth of the keys | ")
          .append(aheadOfRedisson(records, NearPeers.NEAR_SMALL))
          .append(" |\n");
    }
    md.append(
        "\n**Throughput** (ops/s, ± the 99.9 % error) and **ratios** (± the ratio's error from"
            + " both figures' errors: relative errors added in quadrature):\n\n");
    table(md, records);
    Report.misses(md, records);
    Report.errors(md, records);
    ErrorBars.list(md, records, results.timing);
    return md.toString();
  }

  private static void table(StringBuilder md, List<Record> records) {
    List<String> present =
        PEERS.stream().filter(p -> records.stream().anyMatch(r -> r.peer().equals(p))).toList();
    List<String[]> ratios = new ArrayList<>();
    for (String ours : List.of(NearPeers.NEAR, NearPeers.NEAR_SMALL)) {
      for (String peer : List.of(OFF, REDISSON)) {
        if (present.contains(ours) && present.contains(peer)) {
          ratios.add(new String[] {ours, peer});
        }
      }
    }
    md.append("| workload | keys | threads | value |");
    present.forEach(p -> md.append(' ').append(p).append(" |"));
    ratios.forEach(
        r ->
            md.append(' ')
                .append(shortName(r[0]))
                .append(" ÷ ")
                .append(shortName(r[1]))
                .append(" |"));
    md.append("\n|---|---|---|---|")
        .append("---:|".repeat(present.size() + ratios.size()))
        .append('\n');
    List<Record> rows =
        records.stream()
            .filter(r -> r.peer().equals(NearPeers.NEAR))
            .sorted(
                Comparator.comparingInt(
                        (Record r) -> NearCacheBenchmark.BENCHMARKS.indexOf(r.benchmark()))
                    .thenComparing(Record::keys, Comparator.reverseOrder())
                    .thenComparingInt(Record::threads)
                    .thenComparingInt(r -> Plan.ALL_VALUES.indexOf(r.value())))
            .toList();
    for (Record row : rows) {
      md.append("| ")
          .append(Report.label(row.benchmark()))
          .append(" | ")
          .append(row.keys())
          .append(" | ")
          .append(row.threads())
          .append(" | ")
          .append(Report.valueLabel(row.value()))
          .append(" |");
      for (String p : present) {
        Record r = same(records, row, p);
        md.append(' ')
            .append(r == null ? "—" : Report.ops(r.score()) + " ±" + Report.percent(r))
            .append(" |");
      }
      for (String[] pair : ratios) {
        Record a = same(records, row, pair[0]);
        Record b = same(records, row, pair[1]);
        md.append(' ').append(a == null || b == null ? "—" : ratioWithError(a, b)).append(" |");
      }
      md.append('\n');
    }
  }

  /** "near" for the near peers, "off" for the provider without a near cache. */
  private static String shortName(String peer) {
    return switch (peer) {
      case NearPeers.NEAR -> "near";
      case NearPeers.NEAR_SMALL -> "near-small";
      case OFF -> "off";
      default -> peer;
    };
  }

  private static Record same(List<Record> records, Record row, String peer) {
    return Report.find(records, peer, row.benchmark(), row.keys(), row.threads(), row.value());
  }

  /** a ÷ b with its error: relative errors of both added in quadrature (first order). */
  static String ratioWithError(Record a, Record b) {
    double ratio = a.score() / b.score();
    double rel = ratioRelativeError(a, b);
    return Report.ratio(ratio)
        + (Double.isNaN(rel) ? " ±?" : String.format(Locale.ROOT, " ±%.0f%%", 100 * rel));
  }

  static double ratioRelativeError(Record a, Record b) {
    return Math.hypot(a.relativeError(), b.relativeError());
  }

  private static boolean decides(Record a, Record b) {
    return !Report.undecided(a) && !Report.undecided(b);
  }

  /**
   * The ratio's range from both figures' 99.9 % intervals: (a − its error) ÷ (b + its error) to (a
   * + its error) ÷ (b − its error). A target that holds at the low end (or fails at the high end)
   * is decided even when the error bars are wider than ±10 %.
   */
  static double low(Record a, Record b) {
    return (a.score() - a.error()) / (b.score() + b.error());
  }

  static double high(Record a, Record b) {
    return b.score() <= b.error()
        ? Double.POSITIVE_INFINITY
        : (a.score() + a.error()) / (b.score() - b.error());
  }

  /** Whether the ratio's range lies wholly on one side of {@code min}: met or missed either way. */
  static boolean rangeDecides(Record a, Record b, double min) {
    return low(a, b) >= min || high(a, b) < min;
  }

  /** When {@link #ratioDecides} holds, in words: the sentence every targets block states. */
  static final String DECIDING_RULE =
      "both its figures' 99.9 % errors are within ±10 %, or when its whole range, (ours − error) ÷"
          + " (peer + error) to (ours + error) ÷ (peer − error), lies on one side of the target";

  /**
   * Whether a ratio's verdict against {@code min} stands: both figures' errors within ±10 %, or its
   * whole range on one side of {@code min}. The one rule of every target line.
   */
  static boolean ratioDecides(Record a, Record b, double min) {
    return decides(a, b) || rangeDecides(a, b, min);
  }

  /** How a ratio stands against a minimum: decided either way, or not. */
  private static String verdict(Record a, Record b, double min) {
    double ratio = a.score() / b.score();
    if (ratioDecides(a, b, min)) {
      return ratio >= min ? "**met**" : "**not met**";
    }
    return ratio >= min ? "**met** (point estimate only)" : "**not met** (point estimate only)";
  }

  private static String range(Record a, Record b) {
    return "range "
        + Report.ratio(low(a, b))
        + "-"
        + (Double.isInfinite(high(a, b)) ? "∞" : Report.ratio(high(a, b)));
  }

  private static String hitTarget(List<Record> records) {
    Record near = Report.find(records, NearPeers.NEAR, "nearHitGet", "uniform", 1, "1k");
    Record off = Report.find(records, OFF, "nearHitGet", "uniform", 1, "1k");
    if (near == null || off == null) {
      return "**not measured yet**";
    }
    return verdict(near, off, HIT_TARGET)
        + ": "
        + ratioWithError(near, off)
        + " ("
        + range(near, off)
        + "; "
        + Report.ops(near.score())
        + " vs "
        + Report.ops(off.score())
        + " gets/s)";
  }

  private static String aheadOfRedisson(List<Record> records, String ours) {
    int measured = 0;
    int behind = 0;
    int undecided = 0;
    List<String> open = new ArrayList<>();
    double lowest = Double.MAX_VALUE;
    String lowestAt = null;
    for (Record a : records) {
      if (!a.peer().equals(ours) || !a.benchmark().equals("nearReadHeavy")) {
        continue;
      }
      Record b = same(records, a, REDISSON);
      if (b == null) {
        continue;
      }
      measured++;
      double ratio = a.score() / b.score();
      if (ratio < 1) {
        behind++;
      }
      if (!decides(a, b) && low(a, b) < 1 && high(a, b) >= 1) {
        undecided++;
        open.add(
            Report.valueLabel(a.value()) + " " + Report.ratio(ratio) + " (" + range(a, b) + ")");
      }
      if (ratio < lowest) {
        lowest = ratio;
        lowestAt = a.keys() + ", " + a.threads() + "t, " + Report.valueLabel(a.value());
      }
    }
    if (measured == 0) {
      return "**not measured yet**";
    }
    String status =
        behind > 0
            ? "**not met**: behind on " + behind + " of " + measured
            : undecided > 0
                ? "**not decided**: ahead on the point estimates of all " + measured + " measured"
                : "**met** on all " + measured + " read-heavy workloads measured";
    return status
        + "; lowest "
        + Report.ratio(lowest)
        + " ("
        + lowestAt
        + ")"
        + (undecided == 0
            ? "; every ratio decided (error bars within ±10 %, or its whole range on one side of"
                + " 1×)"
            : "; not decided by the error bars on "
                + undecided
                + " of "
                + measured
                + ": "
                + String.join(", ", open));
  }
}
