package dev.mooncake.jcache.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Locale;

/**
 * The markdown table of {@link CpuShareProfiler}'s figures for a benchmark run: per result, how
 * busy the fork's CPUs were and which threads used them, each as a share of one core and as CPU
 * time per completed operation (the share over the throughput), beside the servers' share.
 */
final class CpuTable {
  /** The profiler's groups, in the table's order, with their column headings. */
  private static final List<String[]> GROUPS =
      List.of(
          new String[] {"callers", "callers"},
          new String[] {"provider", "provider threads"},
          new String[] {"otherJava", "other Java"},
          new String[] {"jvm", "JVM (GC, JIT)"},
          new String[] {"native", "native (Mooncake client)"},
          new String[] {"ended", "threads that ended"});

  private CpuTable() {}

  /** One result's figures: where it was measured, its throughput and the profiler's shares. */
  record Row(Record record, JsonNode secondary) {
    double share(String name) {
      return secondary.path(CpuShareProfiler.PREFIX + name).path("score").asDouble(Double.NaN);
    }
  }

  static boolean profiled(JsonNode run) {
    return run.path("secondaryMetrics").has(CpuShareProfiler.PREFIX + "busy");
  }

  static void render(StringBuilder md, List<Row> rows, String heading) {
    if (rows.isEmpty()) {
      return;
    }
    md.append("\n**Where the CPU went** (")
        .append(heading)
        .append(
            "; `CpuShareProfiler`, means over the measured iterations: the fork's CPUs busy and")
        .append(" in the kernel as a share of their capacity; every other figure is a share of one")
        .append(
            " core, then CPU time per completed operation):\n\n| run | ops/s | fork CPUs busy |")
        .append(" of it kernel |");
    for (String[] group : GROUPS) {
      md.append(' ').append(group[1]).append(" |");
    }
    md.append(" waiting for a CPU | mooncake_master | redis-server |\n|---|---:|---:|---:|");
    md.append("---:|".repeat(GROUPS.size() + 3)).append('\n');
    for (Row row : rows) {
      Record r = row.record();
      md.append("| ")
          .append(r.peer())
          .append(' ')
          .append(label(r))
          .append(" | ")
          .append(Report.ops(r.score()))
          .append(" | ")
          .append(percent(row.share("busy")))
          .append(" | ")
          .append(percent(row.share("kernel")))
          .append(" |");
      for (String[] group : GROUPS) {
        md.append(' ').append(perOp(row.share(group[0]), r.score())).append(" |");
      }
      md.append(' ')
          .append(perOp(row.share("waiting"), r.score()))
          .append(" | ")
          .append(perOp(row.share("master"), r.score()))
          .append(" | ")
          .append(perOp(row.share("redis"), r.score()))
          .append(" |\n");
    }
  }

  private static String label(Record r) {
    return r.benchmark().equals(AsyncReport.VTHREAD_BENCHMARK)
        ? "(1,000 threads)"
        : Report.valueLabel(r.value()) + " " + r.keys() + " N=" + r.threads();
  }

  static String percent(double share) {
    return Double.isNaN(share) ? "—" : String.format(Locale.ROOT, "%.0f %%", share);
  }

  /** "45 % · 37 µs": a share of one core and the CPU time per operation it means. */
  static String perOp(double share, double opsPerSecond) {
    if (Double.isNaN(share)) {
      return "—";
    }
    double micros = share / 100 / opsPerSecond * 1e6;
    return String.format(Locale.ROOT, "%.0f %% · %.1f µs", share, micros);
  }
}
