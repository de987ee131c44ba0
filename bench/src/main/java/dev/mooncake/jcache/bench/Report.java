package dev.mooncake.jcache.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Renders docs/performance.md's generated blocks from the stored results of both parts: the
 * in-process table, the Mooncake table and the targets. Everything outside the blocks ({@code <!--
 * BEGIN GENERATED: name -->} … {@code <!-- END GENERATED: name -->}) is left as is.
 */
final class Report {
  static final String OURS = "mooncake";
  static final String OURS_ON_MOONCAKE = "mooncake-store";

  /**
   * The same with {@code "consistency": "local"}: no cross-JVM locks, the C driver's guarantees.
   */
  static final String OURS_ON_MOONCAKE_LOCAL = NearPeers.OFF;

  static final String C_ABI = "c-abi";

  /** The C driver copying each value into or out of fresh memory, as a by-value get/put must. */
  static final String C_ABI_BY_VALUE = "c-abi-by-value";

  /**
   * In-process floor doing the store contract's copies (FloorPeer's one copy each way, plus one).
   */
  static final String CONTRACT_FLOOR = "contract-floor";

  /** A figure decides only when its 99.9 % error is within this fraction of its score. */
  static final double DECIDING_ERROR = 0.10;

  static final List<String> BENCHMARK_ORDER =
      List.of(
          "readHeavy",
          "writeHeavy",
          "readHeavyBatch",
          "writeHeavyBatch",
          "getOnly",
          "putOnly",
          "zeroCopyGet",
          "normalGet",
          "zeroCopyPut");
  static final List<String> MIXES =
      List.of("readHeavy", "writeHeavy", "readHeavyBatch", "writeHeavyBatch");
  static final int ALL_MIX_WORKLOADS = 4 * 2 * 2 * 4; // mixes × distributions × threads × values

  /**
   * A zero-copy get may allocate less than this per op and still pass: less than the smallest value
   * measured (1 KiB), so no copy of a value can hide in it. What it allocates is the store key (a
   * String built per call: ~200 B) and call bookkeeping, the same at every size.
   */
  static final double ZERO_COPY_ALLOC_LIMIT = 1024;

  private Report() {}

  // ---------------------------------------------------------------------------------------------
  // Blocks

  static String inProcessBlock(Results results) {
    if (results == null) {
      return "_Not measured yet: run `bench/run-short.sh`._\n";
    }
    StringBuilder md = new StringBuilder();
    meta(md, results);
    List<String> peers = Peers.IN_PROCESS;
    List<Record> workloads = withoutZeroCopy(results.records);
    if (!workloads.isEmpty()) { // a run of the zero-copy segments alone has none
      md.append(
          "\n**Throughput** (ops/s; one op = one call; ± is JMH's 99.9 % error) and"
              + " **ours ÷ peer** (above 1: this provider is faster):\n\n");
      throughputTable(md, workloads, OURS, peers);
      md.append(
          "\n**Heap allocated per op** (JMH `-prof gc`, `gc.alloc.rate.norm`; off-heap memory"
              + " is not counted):\n\n");
      allocationTable(md, workloads, peers);
    }
    zeroCopyTable(md, results.records, OURS);
    misses(md, results.records);
    errors(md, results.records);
    ErrorBars.list(md, results.records, results.timing);
    return md.toString();
  }

  static String mooncakeBlock(Results results, String skipped) {
    StringBuilder md = new StringBuilder();
    if (skipped != null) {
      md.append("_Last attempt skipped: ").append(skipped).append("_\n\n");
    }
    if (results == null) {
      md.append(
          "_Not measured yet: needs a Mooncake build (`MOONCAKE_STORE_LIBRARY`,"
              + " `MOONCAKE_MASTER`) and redis-server; see \"The Mooncake part\" above._\n");
      return md.toString();
    }
    meta(md, results);
    List<String> peers =
        List.of(OURS_ON_MOONCAKE, OURS_ON_MOONCAKE_LOCAL, "redisson", C_ABI, C_ABI_BY_VALUE);
    List<Record> workloads = withoutZeroCopy(results.records);
    if (!workloads.isEmpty()) {
      md.append("\n**Throughput** (ops/s) and **ours ÷ peer**:\n\n");
      throughputTable(md, workloads, OURS_ON_MOONCAKE, peers);
      md.append("\n**Heap allocated per op** (JVM peers only):\n\n");
      allocationTable(md, workloads, List.of(OURS_ON_MOONCAKE, OURS_ON_MOONCAKE_LOCAL, "redisson"));
    }
    zeroCopyTable(md, results.records, OURS_ON_MOONCAKE, OURS_ON_MOONCAKE_LOCAL);
    misses(md, results.records);
    errors(md, results.records);
    ErrorBars.list(md, results.records, results.timing);
    return md.toString();
  }

  static String targetsBlock(Results inProcess, Results mooncake) {
    List<Record> in = inProcess == null ? List.of() : inProcess.records;
    List<Record> mc = mooncake == null ? List.of() : mooncake.records;
    StringBuilder md = new StringBuilder();
    for (Results r : new Results[] {inProcess, mooncake}) {
      if (r != null && isSmoke(r)) {
        md.append("_Computed from a smoke run (")
            .append(r.pieces.get(r.pieces.size() - 1).date())
            .append("): placeholders until `bench/run-short.sh` runs on a quiet machine._\n\n");
        break;
      }
    }
    md.append("A ratio's verdict is \"decided\" when ")
        .append(NearReport.DECIDING_RULE)
        .append(".\n\n");
    md.append("| target | status |\n|---|---|\n");
    md.append("| in-process ≥ Ehcache off-heap on every workload | ")
        .append(
            atLeast(
                in,
                OURS,
                "ehcache-offheap",
                1.0,
                r -> MIXES.contains(r.benchmark()),
                ALL_MIX_WORKLOADS))
        .append(" |\n");
    md.append("| in-process ≥ 0.7× Caffeine JCache on 1 KiB byte[] values | ")
        .append(
            atLeast(
                in,
                OURS,
                "caffeine",
                0.7,
                r -> MIXES.contains(r.benchmark()) && r.value().equals("1k"),
                ALL_MIX_WORKLOADS / 4))
        .append(" |\n");
    md.append("| in-process 1 MiB within 1.1× of the floor doing the store contract's copies | ")
        .append(
            atLeast(
                in,
                OURS,
                CONTRACT_FLOOR,
                1 / 1.1,
                r -> MIXES.contains(r.benchmark()) && r.value().equals("1m"),
                ALL_MIX_WORKLOADS / 4))
        .append("; beside the one-copy ConcurrentHashMap floor: ")
        .append(
            atLeast(
                in,
                OURS,
                "chm-floor",
                1 / 1.1,
                r -> MIXES.contains(r.benchmark()) && r.value().equals("1m"),
                ALL_MIX_WORKLOADS / 4))
        .append(" |\n");
    md.append("| Mooncake byte[] API ≥ 0.95× the by-value C driver, per value size | ")
        .append("consistency cluster (the default): ")
        .append(perSize(mc, OURS_ON_MOONCAKE, C_ABI_BY_VALUE, 0.95, Plan.ALL_VALUES))
        .append("; consistency local (no cross-JVM locks, as the driver): ")
        .append(perSize(mc, OURS_ON_MOONCAKE_LOCAL, C_ABI_BY_VALUE, 0.95, Plan.ALL_VALUES))
        .append(" |\n");
    md.append("| Mooncake zero-copy API ≥ 0.95× the plain C driver | ")
        .append(zeroCopyVsDriver(mc))
        .append(" |\n");
    md.append("| vs Redisson: ratio per size, level (≥ 0.95×) at 64 KiB and above | ")
        .append(perSize(mc, OURS_ON_MOONCAKE, "redisson", 0.95, List.of("64k", "1m")))
        .append(ratiosPerSize(mc, "redisson"))
        .append(" |\n");
    md.append("| every figure's 99.9 % error within ±10 % | ")
        .append(errorBarStatus(in, mc))
        .append(" |\n");
    md.append("| zero-copy get: no bytes copied in Java | ")
        .append(zeroCopy(in, mc))
        .append(" |\n");
    return md.toString();
  }

  // ---------------------------------------------------------------------------------------------
  // Tables

  static void meta(StringBuilder md, Results results) {
    if (isSmoke(results)) {
      md.append(
          "> **Smoke run**: it only checks that everything runs (small data, one short"
              + " iteration, one fork). Its numbers are not measurements; run `bench/run-short.sh`"
              + " on a quiet machine for those.\n\n");
    }
    MetaLines.append(md, results);
  }

  private static boolean isSmoke(Results results) {
    return results.level().equals("smoke")
        || results.pieces.stream()
            .anyMatch(p -> p.meta().getOrDefault("Level", "").startsWith("smoke"));
  }

  private static void throughputTable(
      StringBuilder md, List<Record> records, String ours, List<String> peers) {
    Map<String, Map<String, Record>> rows = rows(records);
    List<String> present = presentPeers(records, peers);
    md.append("| workload | keys | threads | value |");
    for (String p : present) {
      md.append(' ').append(p).append(" |");
    }
    for (String p : present) {
      if (!p.equals(ours)) {
        md.append(" ÷ ").append(p).append(" |");
      }
    }
    md.append('\n').append("|---|---|---|---|");
    md.append("---:|".repeat(present.size() * 2 - (present.contains(ours) ? 1 : 0)));
    md.append('\n');
    for (Map<String, Record> row : rows.values()) {
      Record any = row.values().iterator().next();
      rowHead(md, any);
      for (String p : present) {
        Record r = row.get(p);
        md.append(' ')
            .append(r == null ? "—" : ops(r.score()) + " ±" + percent(r) + failedCalls(r))
            .append(" |");
      }
      Record mine = row.get(ours);
      for (String p : present) {
        if (p.equals(ours)) {
          continue;
        }
        Record r = row.get(p);
        md.append(' ')
            .append(mine == null || r == null ? "—" : ratio(mine.score() / r.score()))
            .append(" |");
      }
      md.append('\n');
    }
  }

  private static void allocationTable(StringBuilder md, List<Record> records, List<String> peers) {
    Map<String, Map<String, Record>> rows = rows(records);
    List<String> present = presentPeers(records, peers);
    md.append("| workload | keys | threads | value |");
    for (String p : present) {
      md.append(' ').append(p).append(" |");
    }
    md.append("\n|---|---|---|---|").append("---:|".repeat(present.size())).append('\n');
    for (Map<String, Record> row : rows.values()) {
      rowHead(md, row.values().iterator().next());
      for (String p : present) {
        Record r = row.get(p);
        md.append(' ')
            .append(r == null || r.allocBytesPerOp() == null ? "—" : bytes(r.allocBytesPerOp()))
            .append(" |");
      }
      md.append('\n');
    }
  }

  private static boolean isZeroCopy(Record r) {
    return ZeroCopyBenchmark.BENCHMARKS.contains(r.benchmark());
  }

  private static List<Record> withoutZeroCopy(List<Record> records) {
    return records.stream().filter(r -> !isZeroCopy(r)).toList();
  }

  /**
   * The zero-copy API next to the normal calls of the same keys: throughput, heap allocated and
   * bytes the cache copied in Java per op. On Mooncake the C driver's get_into / put_from a
   * registered buffer, which is what the zero-copy calls do, is their floor.
   */
  /**
   * The zero-copy table of {@code ours}; with {@code local} (a local-consistency cache of the same
   * store, where measured) in two more columns: what the cluster lock costs the same call.
   */
  private static void zeroCopyTable(
      StringBuilder md, List<Record> records, String ours, String... local) {
    if (records.stream().noneMatch(r -> r.peer().equals(ours) && r.copiedBytesPerOp() != null)) {
      return;
    }
    boolean cAbi = records.stream().anyMatch(r -> r.peer().equals(C_ABI) && isZeroCopy(r));
    String beside =
        local.length > 0
                && records.stream().anyMatch(r -> r.peer().equals(local[0]) && isZeroCopy(r))
            ? local[0]
            : null;
    md.append(
        "\n**Zero-copy API** (`cache.unwrap(ZeroCopyCache.class)`; 1 thread, uniform keys;"
            + " \"copied\": bytes the cache copied in Java per op, its `javaCopiedBytes()` counter;"
            + " \"÷ normal\": zero-copy get ÷ the normal `get` of the same keys, zero-copy put ÷ put"
            + " only where measured"
            + (cAbi
                ? "; c-abi: the C driver's get only / put only, i.e."
                    + " get_into / put_from a registered buffer"
                : "")
            + (beside == null
                ? ""
                : "; " + beside + ": the same calls on a cache with `\"consistency\": \"local\"`")
            + "):\n\n");
    md.append("| operation | value | ops/s | heap B/op | copied B/op | ÷ normal |")
        .append(cAbi ? " c-abi | ÷ c-abi |" : "")
        .append(beside == null ? "" : " " + beside + " | ÷ c-abi |")
        .append("\n|---|---|---:|---:|---:|---:|")
        .append(cAbi ? "---:|---:|" : "")
        .append(beside == null ? "" : "---:|---:|")
        .append('\n');
    for (String benchmark : ZeroCopyBenchmark.BENCHMARKS) {
      for (String value : Plan.BYTE_VALUES) {
        Record r = find(records, ours, benchmark, "uniform", 1, value);
        if (r == null) {
          continue;
        }
        Record normal =
            normalOf(benchmark) == null
                ? null
                : find(records, ours, normalOf(benchmark), "uniform", 1, value);
        md.append("| ")
            .append(label(benchmark))
            .append(" | ")
            .append(valueLabel(value))
            .append(" | ")
            .append(ops(r.score()))
            .append(" ±")
            .append(percent(r))
            .append(" | ")
            .append(r.allocBytesPerOp() == null ? "—" : bytes(r.allocBytesPerOp()))
            .append(" | ")
            .append(copied(r.copiedBytesPerOp()))
            .append(" | ")
            .append(normal == null ? "—" : ratio(r.score() / normal.score()))
            .append(" |");
        Record c = cAbi ? find(records, C_ABI, benchmark, "uniform", 1, value) : null;
        if (cAbi) {
          md.append(' ')
              .append(c == null ? "—" : ops(c.score()) + " ±" + percent(c))
              .append(" | ")
              .append(c == null ? "—" : ratio(r.score() / c.score()))
              .append(" |");
        }
        if (beside != null) {
          Record l = find(records, beside, benchmark, "uniform", 1, value);
          md.append(' ')
              .append(l == null ? "—" : ops(l.score()) + " ±" + percent(l))
              .append(" | ")
              .append(l == null || c == null ? "—" : ratio(l.score() / c.score()))
              .append(" |");
        }
        md.append('\n');
      }
    }
  }

  /** The normal JCache call a zero-copy one is compared with (null: none). */
  private static String normalOf(String benchmark) {
    return switch (benchmark) {
      case "zeroCopyGet" -> "normalGet";
      case "zeroCopyPut" -> "putOnly";
      default -> null;
    };
  }

  static void misses(StringBuilder md, List<Record> records) {
    List<String> missed = new ArrayList<>();
    for (Record r : records) {
      if (r.misses() != null && r.misses() > 0.5) {
        missed.add(
            r.peer()
                + " "
                + label(r.benchmark())
                + " "
                + r.keys()
                + " "
                + r.value()
                + ": "
                + String.format(Locale.ROOT, "%.0f", r.misses())
                + " misses per iteration");
      }
    }
    md.append('\n');
    if (missed.isEmpty()) {
      md.append("Every get hit (no peer evicted or lost a key).\n");
    } else {
      md.append(
              "**Gets that missed** (the peer evicted or lost keys; its numbers are not"
                  + " comparable): ")
          .append(String.join("; ", missed))
          .append(".\n");
    }
  }

  private static void rowHead(StringBuilder md, Record r) {
    md.append("| ")
        .append(label(r.benchmark()))
        .append(" | ")
        .append(r.keys())
        .append(" | ")
        .append(r.threads())
        .append(" | ")
        .append(valueLabel(r.value()))
        .append(" |");
  }

  /** Rows in a stable order: workload, keys, threads, value; each maps peer → record. */
  private static Map<String, Map<String, Record>> rows(List<Record> records) {
    List<Record> sorted = new ArrayList<>(records);
    sorted.sort(
        Comparator.comparingInt((Record r) -> index(BENCHMARK_ORDER, r.benchmark()))
            .thenComparing(Record::keys, Comparator.comparingInt(k -> k.equals("uniform") ? 0 : 1))
            .thenComparingInt(Record::threads)
            .thenComparingInt(r -> index(Plan.ALL_VALUES, r.value())));
    Map<String, Map<String, Record>> rows = new LinkedHashMap<>();
    for (Record r : sorted) {
      rows.computeIfAbsent(r.workloadKey(), k -> new LinkedHashMap<>()).put(r.peer(), r);
    }
    return rows;
  }

  private static List<String> presentPeers(List<Record> records, List<String> order) {
    List<String> present = new ArrayList<>();
    for (String p : order) {
      if (records.stream().anyMatch(r -> r.peer().equals(p))) {
        present.add(p);
      }
    }
    return present;
  }

  // ---------------------------------------------------------------------------------------------
  // Targets

  /**
   * ours ÷ peer ≥ min on every row the filter keeps; a miss says how many of its rows are decided
   * ({@link NearReport#ratioDecides}), so a point estimate below the line inside its error bars is
   * not read as a decided miss.
   */
  private static String atLeast(
      List<Record> records,
      String ours,
      String peer,
      double min,
      Predicate<Record> rowFilter,
      int workloadsInMatrix) {
    List<double[]> ratios = new ArrayList<>();
    List<String> failing = new ArrayList<>();
    int decidedMisses = 0;
    String worst = null;
    double worstRatio = Double.MAX_VALUE;
    for (Map<String, Record> row : rows(records).values()) {
      Record mine = row.get(ours);
      Record theirs = row.get(peer);
      if (mine == null || theirs == null || !rowFilter.test(mine)) {
        continue;
      }
      double ratio = mine.score() / theirs.score();
      ratios.add(new double[] {ratio});
      String where = describe(mine);
      if (ratio < min) {
        failing.add(where);
        if (NearReport.ratioDecides(mine, theirs, min)) {
          decidedMisses++;
        }
      }
      if (ratio < worstRatio) {
        worstRatio = ratio;
        worst = where;
      }
    }
    if (ratios.isEmpty()) {
      return "**not measured yet**";
    }
    int n = ratios.size();
    String coverage =
        n < workloadsInMatrix
            ? " ("
                + n
                + " of the "
                + workloadsInMatrix
                + " workloads measured; the full and long runs have all)"
            : "";
    if (failing.isEmpty()) {
      return "**met** on every workload measured"
          + coverage
          + "; lowest "
          + ratio(worstRatio)
          + " ("
          + worst
          + ")";
    }
    return "**not met**: below "
        + ratio(min)
        + " on "
        + failing.size()
        + " of "
        + n
        + " workloads measured ("
        + (decidedMisses == failing.size() ? "all" : decidedMisses + " of " + failing.size())
        + " decided)"
        + coverage
        + "; lowest "
        + ratio(worstRatio)
        + " ("
        + worst
        + ")";
  }

  /**
   * Per value size, over every workload measured for both (not just the headline one): met when the
   * lowest ratio reaches {@code min}. Shows the lowest and highest ratio per size, and on how many
   * workloads the verdict is decided ({@link NearReport#ratioDecides}: both figures within ±10 %,
   * or the ratio's range from both figures' 99.9 % intervals wholly on one side of {@code min}), so
   * that a miss or a hit stands even where the error bars are wider than ±10 %.
   */
  private static String perSize(
      List<Record> records, String ours, String peer, double min, List<String> sizes) {
    List<String> met = new ArrayList<>();
    List<String> notMet = new ArrayList<>();
    for (String size : sizes) {
      List<Record[]> pairs = pairs(records, ours, peer, size);
      if (pairs.isEmpty()) {
        continue;
      }
      double low = pairs.stream().mapToDouble(Report::pairRatio).min().orElseThrow();
      double high = pairs.stream().mapToDouble(Report::pairRatio).max().orElseThrow();
      long decided = pairs.stream().filter(p -> NearReport.ratioDecides(p[0], p[1], min)).count();
      String text =
          valueLabel(size)
              + " "
              + (pairs.size() == 1
                  ? ratio(low)
                  : ratio(low) + "-" + ratio(high) + " over " + pairs.size() + " workloads")
              + (decided == pairs.size()
                  ? ", all decided"
                  : ", " + decided + " of " + pairs.size() + " decided");
      (low >= min ? met : notMet).add(text);
    }
    if (met.isEmpty() && notMet.isEmpty()) {
      return "**not measured yet**";
    }
    String status =
        !notMet.isEmpty()
            ? "**not met**"
            : met.size() < sizes.size() ? "**met** where measured" : "**met**";
    List<String> all = new ArrayList<>(notMet);
    all.addAll(met);
    return status + " (" + String.join("; ", all) + ")";
  }

  private static double pairRatio(Record[] pair) {
    return pair[0].score() / pair[1].score();
  }

  /** Ours (a Mooncake peer) and the peer, for every workload mix of that size both measured. */
  private static List<Record[]> pairs(List<Record> records, String ours, String peer, String size) {
    List<Record[]> pairs = new ArrayList<>();
    for (Record mine : records) {
      if (mine.peer().equals(ours)
          && mine.value().equals(size)
          && MIXES.contains(mine.benchmark())) {
        Record theirs = find(records, peer, mine.benchmark(), mine.keys(), mine.threads(), size);
        if (theirs != null) {
          pairs.add(new Record[] {mine, theirs});
        }
      }
    }
    return pairs;
  }

  private static String ratiosPerSize(List<Record> records, String peer) {
    List<String> parts = new ArrayList<>();
    for (String size : Plan.ALL_VALUES) {
      Double r = headlineRatio(records, peer, size);
      if (r != null) {
        parts.add(valueLabel(size) + " " + ratio(r));
      }
    }
    return parts.isEmpty()
        ? ""
        : "; read-heavy, uniform, 1 thread, all sizes: " + String.join(", ", parts);
  }

  private static Double headlineRatio(List<Record> records, String peer, String size) {
    Record mine = find(records, OURS_ON_MOONCAKE, "readHeavy", "uniform", 1, size);
    Record theirs = find(records, peer, "readHeavy", "uniform", 1, size);
    return mine == null || theirs == null ? null : mine.score() / theirs.score();
  }

  /**
   * Judged on the zero-copy API's get into a reused buffer: met when, for every store and size
   * measured, the cache's counter saw no byte copied in Java and the heap allocation per op stays
   * under {@link #ZERO_COPY_ALLOC_LIMIT} (small objects, no copy of the value). The normal get's
   * numbers are given next to them: it copies the value once (counter and allocation).
   */
  private static String zeroCopy(List<Record> in, List<Record> mc) {
    List<String> facts = new ArrayList<>();
    boolean met = true;
    int measured = 0;
    for (String peer : List.of(OURS, OURS_ON_MOONCAKE)) {
      List<Record> records = peer.equals(OURS) ? in : mc;
      List<String> sizes = new ArrayList<>();
      String largestNormal = null;
      for (String size : Plan.BYTE_VALUES) {
        Record r = find(records, peer, "zeroCopyGet", "uniform", 1, size);
        if (r != null) {
          measured++;
          met &=
              r.copiedBytesPerOp() != null
                  && r.copiedBytesPerOp() == 0
                  && r.allocBytesPerOp() != null
                  && r.allocBytesPerOp() < ZERO_COPY_ALLOC_LIMIT;
          sizes.add(valueLabel(size) + " " + copiedAndAllocated(r));
        }
        Record normal = find(records, peer, "normalGet", "uniform", 1, size);
        if (normal != null) {
          largestNormal = valueLabel(size) + " " + copiedAndAllocated(normal);
        }
      }
      String store = peer.equals(OURS) ? "in-process" : "Mooncake";
      facts.add(
          store
              + ": "
              + (sizes.isEmpty()
                  ? "not measured"
                  : String.join(", ", sizes)
                      + (largestNormal == null ? "" : " (normal get " + largestNormal + ")")));
    }
    if (measured == 0) {
      return "**not measured yet** (the zero-copy segments: `--only 'zero-copy.*'`)";
    }
    String status =
        !met
            ? "**not met**"
            : measured < 2 * Plan.BYTE_VALUES.size() ? "**met** where measured" : "**met**";
    return status
        + ": bytes copied in Java / heap allocated per zero-copy get into a reused"
        + " buffer (target: 0 B / under "
        + bytes(ZERO_COPY_ALLOC_LIMIT)
        + " at every size) — "
        + String.join("; ", facts);
  }

  /**
   * Ours on Mooncake ÷ the plain driver, for the zero-copy get and put at every size; the
   * local-consistency cache's ratios after it, where measured.
   */
  private static String zeroCopyVsDriver(List<Record> mc) {
    String cluster = zeroCopyVsDriver(mc, OURS_ON_MOONCAKE);
    String local = zeroCopyVsDriver(mc, OURS_ON_MOONCAKE_LOCAL);
    return local.equals(NOT_MEASURED)
        ? cluster
        : "consistency cluster (the default): "
            + cluster
            + "; consistency local (no cross-JVM locks, as the driver): "
            + local;
  }

  private static final String NOT_MEASURED = "**not measured yet**";

  private static String zeroCopyVsDriver(List<Record> mc, String ours) {
    List<String> met = new ArrayList<>();
    List<String> notMet = new ArrayList<>();
    for (String benchmark : List.of("zeroCopyGet", "zeroCopyPut")) {
      for (String size : Plan.BYTE_VALUES) {
        Record mine = find(mc, ours, benchmark, "uniform", 1, size);
        Record driver = find(mc, C_ABI, benchmark, "uniform", 1, size);
        if (mine != null && driver != null) {
          double r = mine.score() / driver.score();
          (r >= 0.95 ? met : notMet)
              .add(label(benchmark) + " " + valueLabel(size) + " " + ratio(r));
        }
      }
    }
    if (met.isEmpty() && notMet.isEmpty()) {
      return NOT_MEASURED;
    }
    List<String> all = new ArrayList<>(notMet);
    all.addAll(met);
    return (notMet.isEmpty() ? "**met**" : "**not met**") + " (" + String.join(", ", all) + ")";
  }

  private static String errorBarStatus(List<Record> in, List<Record> mc) {
    List<Record> all = new ArrayList<>(in);
    all.addAll(mc);
    if (all.isEmpty()) {
      return "**not measured yet**";
    }
    long wide = all.stream().filter(Report::undecided).count();
    return (wide == 0 ? "**met**" : "**not met**")
        + ": "
        + wide
        + " of "
        + all.size()
        + " figures above ±"
        + Math.round(DECIDING_ERROR * 100)
        + " % (listed under each table)";
  }

  /** A figure whose error bar is too wide (or unknown) to decide a ratio. */
  static boolean undecided(Record r) {
    double e = r.relativeError();
    return Double.isNaN(e) || e > DECIDING_ERROR;
  }

  static void errors(StringBuilder md, List<Record> records) {
    List<String> failing = new ArrayList<>();
    for (Record r : records) {
      if (r.errors() != null && r.errors() > 0) {
        failing.add(
            describeWithPeer(r)
                + ": "
                + String.format(Locale.ROOT, "%.1f", r.errors())
                + " per iteration"
                + (r.errorCodes() == null ? "" : " (" + r.errorCodes() + ")"));
      }
    }
    md.append('\n');
    if (failing.isEmpty()) {
      md.append("No call failed.\n");
    } else {
      md.append(
              "**Calls that failed** (counted, not fatal; the C driver's codes cover the whole"
                  + " run, warm-up included): ")
          .append(String.join("; ", failing))
          .append(".\n");
    }
  }

  /** " (N err)" after a throughput figure whose run had failed calls. */
  private static String failedCalls(Record r) {
    return r.errors() == null || r.errors() == 0
        ? ""
        : String.format(Locale.ROOT, " (%.0f err/it)", r.errors());
  }

  private static String copiedAndAllocated(Record r) {
    return copied(r.copiedBytesPerOp())
        + " / "
        + (r.allocBytesPerOp() == null ? "?" : bytes(r.allocBytesPerOp()));
  }

  /** Bytes copied per op: exact when zero, never rounded down to it. */
  private static String copied(Double perOp) {
    if (perOp == null) {
      return "?";
    }
    return perOp == 0
        ? "0 B"
        : perOp < 1 ? String.format(Locale.ROOT, "%.2f B", perOp) : bytes(perOp);
  }

  static Record find(
      List<Record> records, String peer, String benchmark, String keys, int threads, String value) {
    for (Record r : records) {
      if (r.peer().equals(peer)
          && r.benchmark().equals(benchmark)
          && r.keys().equals(keys)
          && r.threads() == threads
          && r.value().equals(value)) {
        return r;
      }
    }
    return null;
  }

  /** "peer workload, keys, threads, value": one figure named in a list under a table. */
  static String describeWithPeer(Record r) {
    return r.peer() + " " + describe(r);
  }

  private static String describe(Record r) {
    return label(r.benchmark())
        + ", "
        + r.keys()
        + ", "
        + r.threads()
        + "t, "
        + valueLabel(r.value());
  }

  // ---------------------------------------------------------------------------------------------
  // Formatting

  static String label(String benchmark) {
    return switch (benchmark) {
      case "readHeavy" -> "read-heavy 90/10";
      case "writeHeavy" -> "write-heavy 50/50";
      case "readHeavyBatch" -> "read-heavy 90/10, getAll/putAll ×64";
      case "writeHeavyBatch" -> "write-heavy 50/50, getAll/putAll ×64";
      case "getOnly" -> "get only";
      case "putOnly" -> "put only";
      case "zeroCopyGet" -> "zero-copy get";
      case "normalGet" -> "normal get";
      case "zeroCopyPut" -> "zero-copy put";
      case "nearReadHeavy" -> "read-heavy 90/10, near cache warmed";
      case "nearHitGet" -> "get of " + NearCacheBenchmark.HOT + " keys read before";
      default -> benchmark;
    };
  }

  static String valueLabel(String value) {
    return switch (value) {
      case "string100" -> "String(100)";
      case "1k" -> "1 KiB";
      case "64k" -> "64 KiB";
      case "1m" -> "1 MiB";
      default -> value;
    };
  }

  static String ops(double v) {
    if (v >= 1e6) {
      return sig(v / 1e6) + "M";
    }
    if (v >= 1e3) {
      return sig(v / 1e3) + "k";
    }
    return sig(v);
  }

  private static String sig(double v) {
    if (v >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (v >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static String percent(Record r) {
    if (Double.isNaN(r.error()) || r.score() == 0) {
      return "?";
    }
    return String.format(Locale.ROOT, "%.0f%%", 100 * r.error() / r.score());
  }

  static String ratio(double r) {
    return (r >= 10
            ? String.format(Locale.ROOT, "%.0f", r)
            : r >= 0.1
                ? String.format(Locale.ROOT, "%.2f", r)
                : String.format(Locale.ROOT, "%.3f", r))
        + "×";
  }

  static String bytes(double b) {
    if (b >= 1024 * 1024) {
      return String.format(Locale.ROOT, "%.2f MiB", b / (1024 * 1024));
    }
    if (b >= 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", b / 1024);
    }
    return String.format(Locale.ROOT, "%.0f B", b);
  }

  private static int index(List<String> order, String item) {
    int i = order.indexOf(item);
    return i < 0 ? order.size() : i;
  }

  // ---------------------------------------------------------------------------------------------
  // The document

  static void write(Path doc, Map<String, String> blocks) throws IOException {
    String text = Files.readString(doc);
    for (Map.Entry<String, String> e : blocks.entrySet()) {
      String begin = "<!-- BEGIN GENERATED: " + e.getKey() + " -->";
      String end = "<!-- END GENERATED: " + e.getKey() + " -->";
      int from = text.indexOf(begin);
      int to = text.indexOf(end);
      if (from < 0 || to < from) {
        throw new IOException(
            doc + " has no block '" + e.getKey() + "' (" + begin + " … " + end + ")");
      }
      text = text.substring(0, from + begin.length()) + "\n" + e.getValue() + text.substring(to);
    }
    Files.writeString(doc, text);
  }
}
