package dev.mooncake.jcache.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Renders issue 33's results ({@link AsyncBenchmark}, {@link VirtualThreadBenchmark}: JMH's JSON
 * files that {@code bench/run-async.sh} writes) as the markdown of docs/performance-features.md's
 * "Asynchronous API and virtual threads": the targets, a table per benchmark with the ratios async
 * ÷ sync, async ÷ Redisson, virtual ÷ pinned and virtual ÷ platform, each with its error (relative
 * errors in quadrature) and its range from both figures' 99.9 % intervals, and why each wide figure
 * is wide ({@link ErrorBars}).
 *
 * <p>{@code java … AsyncReport FILE.json…} prints it.
 */
public final class AsyncReport {
  static final String ASYNC_BENCHMARK = "async";
  static final String VTHREAD_BENCHMARK = "vthreads";

  /** Issue 33: async at N = 8 at least this many times the one-thread synchronous throughput. */
  static final double ASYNC_OVER_SYNC = 3;

  /** Issue 33: handed-off virtual threads at least this many times the pinned ones. */
  static final double VIRTUAL_OVER_PINNED = 3;

  private static final ObjectMapper JSON = new ObjectMapper();

  private AsyncReport() {}

  public static void main(String[] args) throws IOException {
    List<Record> records = new ArrayList<>();
    Set<String> settings = new LinkedHashSet<>();
    List<CpuTable.Row> cpu = new ArrayList<>();
    int samples = 0;
    for (String file : args) {
      if (!Files.exists(Path.of(file))) {
        settings.add(file + " missing (that JMH run failed)");
        continue;
      }
      for (JsonNode run : JSON.readTree(Files.readString(Path.of(file)))) {
        Record record = record(run);
        records.add(record);
        if (CpuTable.profiled(run)) {
          cpu.add(new CpuTable.Row(record, run.path("secondaryMetrics")));
        }
        samples = run.path("forks").asInt() * run.path("measurementIterations").asInt();
        settings.add(settings(run));
      }
    }
    StringBuilder md = new StringBuilder(render(records, settings, samples));
    CpuTable.render(md, cpu, "per result of the runs above");
    System.out.print(md);
  }

  /**
   * "AsyncBenchmark: 3 forks × 5 × 1 s after 3 × 1 s warm-up, JDK 17.0.15": one JMH run's level.
   */
  private static String settings(JsonNode run) {
    String name = run.path("benchmark").asText();
    return String.format(
        Locale.ROOT,
        "%s: %d fork(s) × %d × %s after %d × %s warm-up, JDK %s",
        name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1, name.lastIndexOf('.')),
        run.path("forks").asInt(),
        run.path("measurementIterations").asInt(),
        run.path("measurementTime").asText(),
        run.path("warmupIterations").asInt(),
        run.path("warmupTime").asText(),
        run.path("jdkVersion").asText());
  }

  /**
   * One JMH result as a record: {@code AsyncBenchmark}'s figure is its primary result, the window
   * {@code inFlight} in {@code threads}, the mix in {@code keys}; {@code VirtualThreadBenchmark}'s
   * is the secondary result {@code operations}, the thread kind the peer.
   */
  static Record record(JsonNode run) {
    JsonNode params = run.path("params");
    JsonNode secondary = run.path("secondaryMetrics");
    boolean vthreads = run.path("benchmark").asText().contains("VirtualThreadBenchmark");
    JsonNode figure = vthreads ? secondary.path("operations") : run.path("primaryMetric");
    return new Record(
        vthreads ? VTHREAD_BENCHMARK : ASYNC_BENCHMARK,
        params.path(vthreads ? "threads" : "peer").asText(),
        vthreads ? "1k" : params.path("value").asText(),
        vthreads ? "90-10" : params.path("mix").asText(),
        vthreads ? VirtualThreadBenchmark.WORKERS : params.path("inFlight").asInt(),
        figure.path("score").asDouble(),
        figure.path("scoreError").asDouble(Double.NaN),
        "ops/s",
        null,
        perIteration(secondary, "misses"),
        null,
        perIteration(secondary, "errors"),
        null);
  }

  /** An EVENTS counter's total over the run, divided by its samples: per iteration. */
  private static Double perIteration(JsonNode secondary, String name) {
    JsonNode counter = secondary.path(name);
    if (counter.isMissingNode()) {
      return null;
    }
    JsonNode raw = counter.path("rawData");
    int n = 0;
    double sum = 0;
    for (JsonNode fork : raw) {
      for (JsonNode v : fork) {
        sum += v.asDouble();
        n++;
      }
    }
    return n == 0 ? null : sum / n;
  }

  static String render(List<Record> records, Set<String> settings, int samples) {
    StringBuilder md = new StringBuilder();
    md.append("Runs: ").append(String.join("; ", settings)).append(".\n\n");
    md.append("**Targets** (issue 33). A ratio decides when ")
        .append(NearReport.DECIDING_RULE)
        .append(":\n\n| target | status |\n|---|---|\n")
        .append("| async ahead of Redisson's async at every N and size | ")
        .append(atLeast(records, AsyncBenchmark.ASYNC, AsyncBenchmark.REDISSON, 1, 1, 8, 64))
        .append(" |\n| async at N = 8 ≥ 3× the one-thread synchronous throughput | ")
        .append(atLeast(records, AsyncBenchmark.ASYNC, AsyncBenchmark.SYNC, ASYNC_OVER_SYNC, 8))
        .append(" |\n| 1,000 virtual threads (hand-off) ≥ 3× the pinned ones | ")
        .append(virtualTarget(records))
        .append(" |\n\n");
    asyncTable(md, records);
    md.append('\n');
    vthreadTable(md, records);
    Report.misses(md, records);
    Report.errors(md, records);
    wide(md, records, samples);
    return md.toString();
  }

  private static void asyncTable(StringBuilder md, List<Record> records) {
    md.append(
            "**One thread, N operations in flight** (ops/s ± the 99.9 % error; ratios ± their error,"
                + " then their range; `mooncake-sync` calls on the one thread, N does not apply):\n\n")
        .append("| value | mix | N | mooncake-async | redisson-async | mooncake-sync |")
        .append(" async ÷ sync | async ÷ redisson |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (String value : List.of("1k", "64k")) {
      for (String mix : List.of("get", "90-10")) {
        Record sync = find(records, AsyncBenchmark.SYNC, value, mix, 1);
        for (int n : List.of(1, 8, 64)) {
          Record async = find(records, AsyncBenchmark.ASYNC, value, mix, n);
          Record redisson = find(records, AsyncBenchmark.REDISSON, value, mix, n);
          if (async == null && redisson == null) {
            continue;
          }
          md.append("| ")
              .append(Report.valueLabel(value))
              .append(" | ")
              .append(mixLabel(mix))
              .append(" | ")
              .append(n)
              .append(" | ")
              .append(figure(async))
              .append(" | ")
              .append(figure(redisson))
              .append(" | ")
              .append(figure(sync))
              .append(" | ")
              .append(ratio(async, sync))
              .append(" | ")
              .append(ratio(async, redisson))
              .append(" |\n");
        }
      }
    }
  }

  private static void vthreadTable(StringBuilder md, List<Record> records) {
    Record virtual = vthreads(records, VirtualThreadBenchmark.VIRTUAL);
    Record unbatched = vthreads(records, VirtualThreadBenchmark.UNBATCHED);
    Record pinned = vthreads(records, VirtualThreadBenchmark.PINNED);
    Record platform = vthreads(records, VirtualThreadBenchmark.PLATFORM);
    md.append(
            "**1,000 threads, synchronous get/put 90/10, 1 KiB** (completed ops/s ± the 99.9 %"
                + " error):\n\n")
        .append(
            "| virtual (hand-off, reads batched) | virtual-unbatched | virtual-pinned | platform |")
        .append(" virtual ÷ unbatched | virtual ÷ pinned | virtual ÷ platform |\n")
        .append("|---:|---:|---:|---:|---:|---:|---:|\n| ")
        .append(String.join(" | ", figure(virtual), figure(unbatched), figure(pinned)))
        .append(" | ")
        .append(figure(platform))
        .append(" | ")
        .append(ratio(virtual, unbatched))
        .append(" | ")
        .append(ratio(virtual, pinned))
        .append(" | ")
        .append(ratio(virtual, platform))
        .append(" |\n");
  }

  /** How {@code ours ÷ peer} stands against {@code min} on every value and mix at those N. */
  static String atLeast(
      List<Record> records, String ours, String peer, double min, int... windows) {
    int measured = 0;
    int below = 0;
    int decided = 0;
    List<String> misses = new ArrayList<>();
    for (Record a : records) {
      if (!a.peer().equals(ours) || !contains(windows, a.threads())) {
        continue;
      }
      // the synchronous baseline has no window: its one figure per value and mix
      Record b =
          find(
              records,
              peer,
              a.value(),
              a.keys(),
              peer.equals(AsyncBenchmark.SYNC) ? 1 : a.threads());
      if (b == null) {
        continue;
      }
      measured++;
      double ratio = a.score() / b.score();
      boolean decides = NearReport.ratioDecides(a, b, min);
      if (decides) {
        decided++;
      }
      if (ratio < min) {
        below++;
        misses.add(where(a) + " " + Report.ratio(ratio) + (decides ? "" : " (not decided)"));
      }
    }
    if (measured == 0) {
      return "**not measured yet**";
    }
    return (below == 0 ? "**met**" : "**not met**")
        + String.format(
            Locale.ROOT,
            " (%d of %d below %s; %d of %d decided)",
            below,
            measured,
            Report.ratio(min),
            decided,
            measured)
        + (misses.isEmpty() ? "" : ": " + String.join(", ", misses));
  }

  private static String virtualTarget(List<Record> records) {
    Record virtual = vthreads(records, VirtualThreadBenchmark.VIRTUAL);
    Record pinned = vthreads(records, VirtualThreadBenchmark.PINNED);
    if (virtual == null || pinned == null) {
      return "**not measured yet**";
    }
    double ratio = virtual.score() / pinned.score();
    return (ratio >= VIRTUAL_OVER_PINNED ? "**met**" : "**not met**")
        + (NearReport.ratioDecides(virtual, pinned, VIRTUAL_OVER_PINNED) ? "" : " (not decided)")
        + ": "
        + ratio(virtual, pinned);
  }

  /** "12.3k ±4%", or a dash when not measured. */
  private static String figure(Record r) {
    return r == null ? "—" : Report.ops(r.score()) + " ±" + Report.percent(r);
  }

  /** "3.52× ±6% (3.10-4.01×)": the ratio, its error, its range; a dash when one is missing. */
  static String ratio(Record a, Record b) {
    if (a == null || b == null) {
      return "—";
    }
    if (Double.isNaN(a.error()) || Double.isNaN(b.error())) {
      return NearReport.ratioWithError(a, b); // "±?": a figure without an interval has no range
    }
    double high = NearReport.high(a, b);
    return NearReport.ratioWithError(a, b)
        + " ("
        + Report.ratio(Math.max(0, NearReport.low(a, b))) // an interval wider than its figure
        + "-"
        + (Double.isInfinite(high) ? "∞" : Report.ratio(high))
        + ")";
  }

  /** Every figure above ±10 %, with how much its samples spread and how many it would need. */
  private static void wide(StringBuilder md, List<Record> records, int samples) {
    List<String> wide = new ArrayList<>();
    for (Record r : records) {
      if (Report.undecided(r)) {
        wide.add(
            r.peer()
                + " "
                + where(r)
                + " ±"
                + Report.percent(r)
                + " ("
                + ErrorBars.why(r, samples)
                + ")");
      }
    }
    md.append('\n')
        .append(
            wide.isEmpty()
                ? "Every figure's 99.9 % error is within ±10 %."
                : "**Error bars above ±10 %**: " + String.join("; ", wide) + ".")
        .append('\n');
  }

  private static String where(Record r) {
    return r.benchmark().equals(VTHREAD_BENCHMARK)
        ? "1,000 threads"
        : Report.valueLabel(r.value()) + " " + mixLabel(r.keys()) + " N=" + r.threads();
  }

  private static String mixLabel(String mix) {
    return mix.equals("get") ? "get" : "90/10 get/put";
  }

  private static Record find(List<Record> records, String peer, String value, String mix, int n) {
    return Report.find(records, peer, ASYNC_BENCHMARK, mix, n, value);
  }

  private static Record vthreads(List<Record> records, String kind) {
    return Report.find(
        records, kind, VTHREAD_BENCHMARK, "90-10", VirtualThreadBenchmark.WORKERS, "1k");
  }

  private static boolean contains(int[] values, int v) {
    for (int x : values) {
      if (x == v) {
        return true;
      }
    }
    return false;
  }
}
