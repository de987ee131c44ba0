package dev.mooncake.jcache.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.ListStatistics;

/**
 * Runs a part of the benchmark plan with JMH (and, for the Mooncake part, the C driver), stores the
 * results under bench/results/perf-data/ and renders docs/performance.md. bench/run.sh calls it;
 * see docs/benchmarks.md for the commands.
 *
 * <pre>
 * BenchMain [--part in-process|mooncake|near-cache] [--level smoke|short|long] [--only SEGMENT-REGEX]
 *           [--peers mooncake,caffeine] [--values 1k,1m] [--budget 1g] [--prof jfr]…
 *           [--doc FILE] [--data DIR] [--command TEXT] [--replace] [--render-only]
 * </pre>
 *
 * <p>A run with {@code --only}, {@code --peers} or {@code --values} is a piece: its results merge
 * into the part's stored ones of the same level ({@link Merge}; {@code --replace} starts them anew
 * with it), so a full run can be assembled from runs in several sittings.
 */
public final class BenchMain {
  public static void main(String[] args) throws Exception {
    try {
      execute(parse(args));
    } catch (IllegalArgumentException badUse) {
      System.err.println("BenchMain: " + badUse.getMessage());
      System.exit(2);
    }
  }

  static void execute(Map<String, List<String>> opts) throws Exception {
    String part = one(opts, "part", "in-process");
    String level = one(opts, "level", "short");
    boolean smoke = level.equals("smoke");
    Path root = Path.of(System.getProperty("bench.root", ".")).toAbsolutePath().normalize();
    Path template = root.resolve("docs/performance.md");
    Path doc =
        Path.of(
            one(
                opts,
                "doc",
                smoke
                    ? root.resolve("bench/target/performance-smoke.md").toString()
                    : template.toString()));
    Path data =
        Path.of(
            one(
                opts,
                "data",
                smoke
                    ? root.resolve("bench/target/perf-data-smoke").toString()
                    : root.resolve("bench/results/perf-data").toString()));
    if (!Files.exists(doc)) {
      Files.createDirectories(doc.toAbsolutePath().getParent());
      Files.copy(template, doc);
    }

    Plan plan = Plan.of(part, level);
    if (opts.containsKey("budget")) {
      plan = plan.withBudget(Budget.parse(one(opts, "budget", null)));
    }
    if (opts.containsKey("only")) {
      plan = plan.filtered(one(opts, "only", null));
    }
    if (opts.containsKey("peers") || opts.containsKey("values")) {
      plan =
          plan.restricted(
              opts.containsKey("peers") ? List.of(one(opts, "peers", "").split(",")) : null,
              opts.containsKey("values") ? List.of(one(opts, "values", "").split(",")) : null);
    }

    String skipped = null;
    if (!opts.containsKey("render-only")) {
      if (part.equals("mooncake") || part.equals("near-cache")) {
        skipped = mooncakeMissing();
      }
      Path stored = data.resolve(part + ".json");
      boolean filtered =
          opts.containsKey("only") || opts.containsKey("peers") || opts.containsKey("values");
      boolean replace = opts.containsKey("replace");
      if (skipped != null) {
        System.out.println("Skipping the Mooncake benchmarks: " + skipped);
      } else if (plan.segments().isEmpty()) {
        // e.g. run-mooncake.sh's near-cache part for an --only meant for the mooncake part
        System.out.println(
            "Nothing of the " + part + " part's plan matches the filters; " + stored + " kept");
      } else {
        // refused before measuring, not after an hour of it
        Merge.check(Results.load(stored), Timing.of(plan), filtered, replace);
        Results results = run(plan, opts, root);
        Results merged;
        try {
          merged = Merge.merge(Results.load(stored), results, filtered, replace);
        } catch (IllegalArgumentException changedMeanwhile) {
          Path kept = root.resolve("bench/target/" + part + "-piece.json");
          results.save(kept);
          throw new IllegalArgumentException(
              changedMeanwhile.getMessage() + " (this run's results are in " + kept + ")",
              changedMeanwhile);
        }
        merged.save(stored);
      }
    }

    Results inProcess = Results.load(data.resolve("in-process.json"));
    Results mooncake = Results.load(data.resolve("mooncake.json"));
    Map<String, String> blocks = new LinkedHashMap<>();
    blocks.put("targets", Report.targetsBlock(inProcess, mooncake));
    blocks.put("in-process", Report.inProcessBlock(inProcess));
    // both Mooncake parts need the same build: a skip of either is noted in both blocks
    blocks.put("mooncake", Report.mooncakeBlock(mooncake, skipped));
    blocks.put(
        "near-cache", NearReport.block(Results.load(data.resolve("near-cache.json")), skipped));
    Report.write(doc, blocks);
    System.out.println("Wrote " + doc);
  }

  /** Why the Mooncake part cannot run here, or null when it can. */
  static String mooncakeMissing() {
    List<String> unset = new ArrayList<>();
    for (String name : List.of("MOONCAKE_STORE_LIBRARY", "MOONCAKE_MASTER")) {
      String value = System.getenv(name);
      if (value == null || value.isBlank()) {
        unset.add(name);
      }
    }
    if (!unset.isEmpty()) {
      return String.join(" and ", unset)
          + (unset.size() == 1 ? " is" : " are")
          + " unset (a Mooncake build's libmooncake_store.so and mooncake_master binary;"
          + " bench/run-mooncake.sh starts the master and redis-server in a private network"
          + " namespace)";
    }
    for (String name : List.of("MOONCAKE_STORE_LIBRARY", "MOONCAKE_MASTER")) {
      if (!Files.isRegularFile(Path.of(System.getenv(name)))) {
        return name + "=" + System.getenv(name) + " is not a file";
      }
    }
    if (System.getProperty("bench.driver") == null
        || !Files.isExecutable(Path.of(System.getProperty("bench.driver")))) {
      return "the C driver was not built (-Dbench.driver); run bench/run-mooncake.sh";
    }
    return null;
  }

  static Results run(Plan plan, Map<String, List<String>> opts, Path root)
      throws RunnerException, IOException, InterruptedException {
    Instant start = Instant.now();
    System.out.printf(
        Locale.ROOT,
        "%s part, %s level: %d combinations in %d segments%n",
        plan.part(),
        plan.level(),
        plan.runs(),
        plan.segments().size());
    java.util.Set<String> jvmArgsSeen = new java.util.TreeSet<>();
    List<Record> records = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    Path raw = root.resolve("bench/target/jmh");
    Files.createDirectories(raw);
    int n = 0;
    for (Segment segment : plan.segments()) {
      n++;
      System.out.printf(
          Locale.ROOT,
          "%n=== segment %d/%d: %s (%d combinations, %d thread(s))%n",
          n,
          plan.segments().size(),
          segment.name(),
          segment.runs(),
          segment.threads());
      List<String> jmhPeers = new ArrayList<>(segment.peers());
      // one JMH run per value size, so each fork's heap and direct memory fit its data set
      for (String value : jmhPeers.isEmpty() ? List.<String>of() : segment.values()) {
        List<String> jvmArgs = forkJvmArgs(plan, ValueKind.of(value));
        jvmArgsSeen.add(value + ": `" + String.join(" ", jvmArgs) + "`");
        ChainedOptionsBuilder options =
            new OptionsBuilder()
                .include(
                    Pattern.quote(benchmarkClass(segment.benchmark()) + "." + segment.benchmark())
                        + "$")
                .param("peer", jmhPeers.toArray(String[]::new))
                .param("value", value)
                .param("keys", segment.keys().toArray(String[]::new))
                .threads(segment.threads())
                .forks(plan.forks())
                .warmupIterations(plan.warmupIterations())
                .warmupTime(TimeValue.seconds(plan.warmupSeconds()))
                .measurementIterations(plan.iterations())
                .measurementTime(TimeValue.seconds(plan.iterationSeconds()))
                .jvmArgsAppend(jvmArgs.toArray(String[]::new))
                .addProfiler(GCProfiler.class)
                .shouldFailOnError(false)
                .result(raw.resolve(plan.part() + "-" + n + "-" + value + ".json").toString())
                .resultFormat(ResultFormatType.JSON);
        for (String profiler : opts.getOrDefault("prof", List.of())) {
          int colon = profiler.indexOf(':');
          if (colon < 0) {
            options.addProfiler(profiler);
          } else {
            options.addProfiler(profiler.substring(0, colon), profiler.substring(colon + 1));
          }
        }
        Collection<RunResult> runs = new Runner(options.build()).run();
        List<String> got = new ArrayList<>();
        for (RunResult run : runs) {
          Record record = record(segment, run);
          records.add(record);
          got.add(record.peer() + "/" + record.keys());
        }
        for (String peer : jmhPeers) {
          for (String keys : segment.keys()) {
            if (!got.contains(peer + "/" + keys)) {
              failed.add(segment.name() + ": " + peer + " " + value + " " + keys);
            }
          }
        }
      }
      List<String> driverPeers =
          new ArrayList<>(
              segment.drivers() != null ? segment.drivers() : Driver.peersFor(segment.benchmark()));
      if (opts.containsKey("peers")) {
        driverPeers.retainAll(List.of(one(opts, "peers", "").split(",")));
      }
      if (plan.part().equals("mooncake") && Driver.workload(segment.benchmark()) != null) {
        for (String value : segment.values()) {
          for (String keys : segment.keys()) {
            for (String peer : driverPeers) {
              Record record = Driver.run(plan, segment, value, keys, peer);
              if (record == null) {
                failed.add(segment.name() + ": " + peer + " " + value + " " + keys);
              } else {
                records.add(record);
              }
            }
          }
        }
      }
    }
    Duration took = Duration.between(start, Instant.now());
    Results results =
        Results.ofRun(plan, meta(plan, opts, jvmArgsSeen, start, took, failed), records);
    System.out.printf(
        Locale.ROOT,
        "%nDone in %d min %d s%s%n",
        took.toMinutes(),
        took.toSecondsPart(),
        failed.isEmpty() ? "" : "; FAILED: " + failed);
    return results;
  }

  static Record record(Segment segment, RunResult run) {
    Result<?> primary = run.getPrimaryResult();
    Double alloc = null;
    Double misses = null;
    Double copied = null;
    Double calls = null;
    Double errors = null;
    for (Map.Entry<String, Result> e : run.getSecondaryResults().entrySet()) {
      if (e.getKey().endsWith("errors")) {
        errors = e.getValue().getScore();
      } else if (e.getKey().endsWith("gc.alloc.rate.norm")) {
        alloc = e.getValue().getScore();
      } else if (e.getKey().endsWith("misses")) {
        misses = e.getValue().getScore();
      } else if (e.getKey().endsWith("javaCopiedBytes")) {
        copied = e.getValue().getScore();
      } else if (e.getKey().endsWith("calls")) {
        calls = e.getValue().getScore();
      }
    }
    // both counters are aggregated over iterations the same way, so their ratio is per op
    Double copiedPerOp = copied == null || calls == null || calls == 0 ? null : copied / calls;
    return new Record(
        segment.benchmark(),
        run.getParams().getParam("peer"),
        run.getParams().getParam("value"),
        run.getParams().getParam("keys"),
        run.getParams().getThreads(),
        primary.getScore(),
        primary.getScoreError(),
        primary.getScoreUnit(),
        alloc,
        misses,
        copiedPerOp,
        errors,
        errors == null || errors == 0 ? null : "exceptions:" + Math.round(errors));
  }

  /** The class that has a benchmark method of this name. */
  static String benchmarkClass(String method) {
    return (ZeroCopyBenchmark.BENCHMARKS.contains(method)
            ? ZeroCopyBenchmark.class
            : NearCacheBenchmark.BENCHMARKS.contains(method)
                ? NearCacheBenchmark.class
                : CacheBenchmark.class)
        .getName();
  }

  /**
   * Heap for the heap peers' data and its copies, direct memory for the off-heap ones (segment or
   * off-heap tier of 1.5 × data, plus 512 MiB of staging buffers), both sized to one value kind.
   */
  static List<String> forkJvmArgs(Plan plan, ValueKind kind) {
    long mib = 1L << 20;
    long data = Peers.dataBytes(kind, plan.keyCount(kind));
    long heap = Math.max(768 * mib, 3 * data);
    long direct = 2 * data + 768 * mib;
    List<String> args =
        new ArrayList<>(
            List.of(
                "-Xms" + heap / mib + "m",
                "-Xmx" + heap / mib + "m",
                "-Xmn256m",
                "-XX:MaxDirectMemorySize=" + direct / mib + "m",
                "-Dbench.budget=" + plan.budget(),
                "-Dbench.maxKeys=" + plan.maxKeys(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
    // A fixed 256 MiB young generation: eden is touched once in the first warm-up second and then
    // reused. Without it G1 grows eden into untouched heap for many seconds, and on this kind of
    // machine (a VM) a first touch costs ~5 ms per MiB: a get of 64 KiB paid ~0.3 ms of page
    // faults and iterations swung tenfold (measured: readHeavy 64 KiB, ±2000 % → ±30 %).
    // -XX:+AlwaysPreTouch would also do, but touching 3 GiB takes 10+ s per fork.
    return args;
  }

  static Map<String, String> meta(
      Plan plan,
      Map<String, List<String>> opts,
      java.util.Set<String> jvmArgs,
      Instant start,
      Duration took,
      List<String> failed)
      throws IOException {
    Map<String, String> meta = new LinkedHashMap<>();
    meta.put(
        "Command",
        "`"
            + one(
                opts,
                "command",
                System.getProperty("bench.command", "BenchMain " + String.join(" ", opts.keySet())))
            + "`");
    meta.put(
        "Date",
        start.truncatedTo(ChronoUnit.SECONDS)
            + " (took "
            + took.toMinutes()
            + " min "
            + took.toSecondsPart()
            + " s)");
    meta.put(
        "Level",
        plan.level()
            + ": "
            + plan.forks()
            + " fork(s), "
            + plan.warmupIterations()
            + " × "
            + plan.warmupSeconds()
            + " s warm-up, "
            + plan.iterations()
            + " × "
            + plan.iterationSeconds()
            + " s measurement per combination"
            + (opts.containsKey("only")
                ? "; segments matching `" + one(opts, "only", "") + "`"
                : ""));
    StringBuilder keys = new StringBuilder();
    for (ValueKind kind : ValueKind.values()) {
      keys.append(keys.length() == 0 ? "" : ", ")
          .append(Report.valueLabel(kind.id()))
          .append(": ")
          .append(String.format(Locale.ROOT, "%,d", plan.keyCount(kind)));
    }
    meta.put(
        "Data",
        "budget "
            + Report.bytes(plan.budget())
            + String.format(Locale.ROOT, ", keys = min(%,d, budget /", plan.maxKeys())
            + " value size): "
            + keys);
    meta.put(
        "JDK",
        System.getProperty("java.vm.vendor")
            + " "
            + System.getProperty("java.runtime.version")
            + " ("
            + System.getProperty("java.vm.name")
            + "); forks: "
            + String.join("; ", jvmArgs));
    meta.put(
        "Machine",
        Runtime.getRuntime().availableProcessors()
            + " CPUs, "
            + System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch")
            + machineLoad());
    Properties versions = new Properties();
    try (InputStream in = BenchMain.class.getResourceAsStream("/bench-versions.properties")) {
      versions.load(in);
    }
    String commit = System.getProperty("bench.git", "");
    StringBuilder v =
        new StringBuilder(
            "this provider "
                + versions.getProperty("provider")
                + (commit.isBlank() ? "" : " (" + commit + ")")
                + ", JCache API "
                + versions.getProperty("cache-api")
                + ", JMH "
                + versions.getProperty("jmh"));
    if (plan.part().equals("in-process")) {
      v.append(", Caffeine JCache ")
          .append(versions.getProperty("caffeine"))
          .append(", Ehcache ")
          .append(versions.getProperty("ehcache"));
    } else {
      v.append(", Redisson ")
          .append(versions.getProperty("redisson"))
          .append(", redis-server ")
          .append(System.getProperty("bench.redis", "?"))
          .append(", Mooncake `")
          .append(System.getenv("MOONCAKE_STORE_LIBRARY"))
          .append("`")
          .append(System.getProperty("bench.mooncake", ""));
      if (System.getProperty("bench.cpus") != null) {
        v.append("; ").append(System.getProperty("bench.cpus"));
      }
    }
    meta.put("Versions", v.toString());
    if (!failed.isEmpty()) {
      meta.put("FAILED (no result)", String.join("; ", failed));
    }
    return meta;
  }

  private static String machineLoad() {
    try {
      String load = Files.readString(Path.of("/proc/loadavg")).trim().split(" ")[0];
      return "; load average at the end " + load;
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  // ---------------------------------------------------------------------------------------------

  static Map<String, List<String>> parse(String[] args) {
    Map<String, List<String>> opts = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + args[i] + "'");
      }
      String name = args[i].substring(2);
      if (name.equals("render-only") || name.equals("replace")) {
        opts.put(name, List.of());
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("--" + name + " needs a value");
      }
      opts.computeIfAbsent(name, k -> new ArrayList<>()).add(args[++i]);
    }
    return opts;
  }

  private static String one(Map<String, List<String>> opts, String name, String fallback) {
    List<String> values = opts.get(name);
    return values == null || values.isEmpty() ? fallback : values.get(values.size() - 1);
  }

  /** The C driver: one process per combination, in the same network namespace as this JVM. */
  static final class Driver {
    private Driver() {}

    /**
     * The driver modes a benchmark is compared with: the plain driver ({@link Report#C_ABI}, the
     * floor of the zero-copy API) and, for the byte[] API's mixes, the by-value driver ({@link
     * Report#C_ABI_BY_VALUE}: one copy of each value into or out of fresh memory).
     */
    static List<String> peersFor(String benchmark) {
      return ZeroCopyBenchmark.BENCHMARKS.contains(benchmark)
          ? List.of(Report.C_ABI)
          : List.of(Report.C_ABI, Report.C_ABI_BY_VALUE);
    }

    static Record run(Plan plan, Segment segment, String value, String keys, String peer)
        throws IOException, InterruptedException {
      ValueKind kind = ValueKind.of(value);
      int keyCount = plan.keyCount(kind);
      long segmentBytes = Peers.dataBytes(kind, keyCount) * 3 / 2 + 256 * Peers.MIB;
      List<String> command =
          List.of(
              System.getProperty("bench.driver"),
              "--library",
              System.getenv("MOONCAKE_STORE_LIBRARY"),
              "--master",
              Peers.env("MOONCAKE_MASTER_ADDRESS", "127.0.0.1:50051"),
              "--workload",
              workload(segment.benchmark()),
              "--value-bytes",
              Integer.toString(kind.bytes()),
              "--keys",
              Integer.toString(keyCount),
              "--dist",
              keys,
              "--threads",
              Integer.toString(segment.threads()),
              "--warmup",
              Integer.toString(plan.warmupIterations() * plan.warmupSeconds()),
              "--iterations",
              Integer.toString(plan.iterations() * plan.forks()),
              "--iteration-seconds",
              Integer.toString(plan.iterationSeconds()),
              "--segment",
              Long.toString(segmentBytes),
              "--buffer",
              Long.toString(512 * Peers.MIB),
              "--copy",
              peer.equals(Report.C_ABI_BY_VALUE) ? "by-value" : "none");
      System.out.println("# " + peer + ": " + String.join(" ", command));
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      ListStatistics samples = new ListStatistics();
      double misses = 0;
      double errors = 0;
      String codes = null;
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          System.out.println("# " + peer + ": " + line);
          String[] words = line.trim().split("\\s+");
          if (words.length == 2 && words[0].equals("sample")) {
            samples.addValue(Double.parseDouble(words[1]));
          } else if (words.length == 2 && words[0].equals("misses")) {
            misses = Double.parseDouble(words[1]);
          } else if (words.length == 2 && words[0].equals("errors")) {
            errors = Double.parseDouble(words[1]);
          } else if (words.length == 2 && words[0].equals("error-codes")) {
            codes = words[1];
          }
        }
      }
      int exit = process.waitFor();
      if (exit != 0 || samples.getN() == 0) {
        System.out.println("# " + peer + ": FAILED (exit " + exit + ")");
        return null;
      }
      double error = samples.getN() > 1 ? samples.getMeanErrorAt(0.999) : Double.NaN;
      return new Record(
          segment.benchmark(),
          peer,
          value,
          keys,
          segment.threads(),
          samples.getMean(),
          error,
          "ops/s",
          null,
          misses / samples.getN(),
          null,
          errors / samples.getN(),
          codes);
    }

    /**
     * The driver's workload for a benchmark, or null when it has none. Its get already is a
     * get_into a registered buffer and its put a put_from one: the zero-copy API's calls.
     */
    static String workload(String benchmark) {
      return switch (benchmark) {
        case "zeroCopyGet" -> "getOnly";
        case "zeroCopyPut" -> "putOnly";
        case "normalGet" -> null;
        default -> benchmark;
      };
    }
  }
}
