package dev.mooncake.jcache.bench;

import dev.mooncake.jcache.bench.MasterMeter.Window;
import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 42's batch-remove question, measured (bench/run-batch-remove.sh, a master of its own in a
 * private network namespace). The C ABI has no batch remove; the candidates for removing a batch of
 * {@value #BATCH} exact keys are {@value #BATCH} single {@code remove}s, or one {@code
 * remove_by_regex} of an anchored alternation of exactly those keys ({@code ^(?:k1|k2|…)$}, each
 * key escaped). The master matches a regex against every key it holds, so each candidate is
 * measured with no other object in the cluster and then with {@code POPULATION} others: the
 * master's CPU per removed key ({@link MasterMeter}), the client's wall time per removed key, and
 * the master RPCs.
 *
 * <p>Every round checks what it removed: every key of the batches is gone, and a decoy per batch
 * (its first key with a suffix, which an unanchored pattern would match) is still there.
 *
 * <p>Arguments: master pid, output file, population (default 1,000,000), batches per round (default
 * 32), rounds (default 5).
 */
public final class BatchRemoveCost {
  static final int BATCH = 16;
  private static final int VALUE = 64;
  private static final int FILL_BATCH = 256;
  private static final Deadline NONE = Deadline.none();

  private final MasterMeter meter;
  private final ObjectStore store;
  private final ByteBuffer value;
  private final Map<String, List<double[]>> figures = new LinkedHashMap<>();
  private final Map<String, String> rpcs = new LinkedHashMap<>();

  private BatchRemoveCost(MasterMeter meter, ObjectStore store) {
    this.meter = meter;
    this.store = store;
    this.value = store.buffers().acquire(VALUE);
    value.limit(VALUE);
  }

  /** An ECMAScript (std::regex) pattern that matches exactly {@code keys}. */
  static String exactAlternation(String[] keys) {
    StringBuilder pattern = new StringBuilder("^(?:");
    for (int i = 0; i < keys.length; i++) {
      if (i > 0) {
        pattern.append('|');
      }
      for (char c : keys[i].toCharArray()) {
        if ("\\^$.|?*+()[]{}".indexOf(c) >= 0) {
          pattern.append('\\');
        }
        pattern.append(c);
      }
    }
    return pattern.append(")$").toString();
  }

  private static void expect(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("sanity: " + what);
    }
  }

  private void putAll(String[] keys) {
    ByteBuffer[] values = new ByteBuffer[keys.length];
    Arrays.fill(values, value);
    int[] put = store.batchPut(keys, values, NONE);
    expect(Arrays.stream(put).allMatch(r -> r == 0), "batch put " + Arrays.toString(put));
  }

  /** Adds {@code count} objects ("pop/…") that no measured call names. */
  private void populate(int from, int count) {
    long t0 = System.nanoTime();
    for (int i = from; i < from + count; i += FILL_BATCH) {
      int n = Math.min(FILL_BATCH, from + count - i);
      String[] keys = new String[n];
      for (int j = 0; j < n; j++) {
        keys[j] = "pop/" + (i + j);
      }
      putAll(keys);
    }
    System.out.printf(
        Locale.ROOT, "populated %,d objects in %.1f s%n", count, (System.nanoTime() - t0) / 1e9);
  }

  /** One round of one candidate: puts the batches and decoys, measures their removal, checks it. */
  private void round(String candidate, long others, int batches, int round, boolean keep)
      throws Exception {
    String[][] keys = new String[batches][BATCH];
    String[] decoys = new String[batches];
    for (int b = 0; b < batches; b++) {
      for (int j = 0; j < BATCH; j++) {
        keys[b][j] = "brm/" + others + "/" + candidate + "/" + round + "/" + b + "/" + j;
      }
      decoys[b] = keys[b][0] + "/decoy";
      putAll(keys[b]);
    }
    putAll(decoys);
    boolean regex = candidate.equals("remove_by_regex");
    Window w =
        meter.measure(
            () -> {
              for (String[] batch : keys) {
                if (regex) {
                  long removed = store.removeByRegex(exactAlternation(batch), true, NONE);
                  expect(removed == BATCH, "remove_by_regex removed " + removed);
                } else {
                  for (String k : batch) {
                    int r = store.remove(k, true, NONE);
                    expect(r == 0, "remove of " + k + " answered " + r);
                  }
                }
              }
            });
    for (String[] batch : keys) {
      int[] exist = store.batchIsExist(batch, NONE);
      expect(Arrays.stream(exist).allMatch(e -> e == 0), "left behind " + Arrays.toString(exist));
    }
    int[] kept = store.batchIsExist(decoys, NONE);
    expect(Arrays.stream(kept).allMatch(e -> e == 1), "a decoy removed " + Arrays.toString(kept));
    for (String decoy : decoys) {
      store.remove(decoy, true, NONE);
    }
    if (keep) {
      double removed = (double) batches * BATCH;
      figures
          .computeIfAbsent(candidate + "|" + others, k -> new ArrayList<>())
          .add(new double[] {w.cpuNanos() / 1e3 / removed, w.wallNanos() / 1e3 / removed});
      long calls = w.rpcs().values().stream().mapToLong(Long::longValue).sum();
      rpcs.put(
          candidate + "|" + others,
          String.format(Locale.ROOT, "%.2f %s", calls / removed, w.rpcs().keySet()));
    }
  }

  private void rounds(long others, int batches, int rounds) throws Exception {
    for (String candidate : List.of("remove", "remove_by_regex")) {
      round(candidate, others, batches, -1, false); // warm-up
      for (int r = 0; r < rounds; r++) {
        round(candidate, others, batches, r, true);
      }
    }
  }

  private String report(int batches, int rounds) {
    StringBuilder out =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "Master pid %s, idle %.1f ms CPU/s; batches of %d exact keys, %d batches per round"
                    + " × %d rounds per candidate; %d-byte values%n%n",
                meter.pid(),
                meter.idleNanosPerSecond() / 1e6,
                BATCH,
                batches,
                rounds,
                VALUE));
    out.append(
        "| candidate | other objects | master CPU µs per removed key, median (range) |"
            + " client µs per removed key, median (range) | master RPCs per key |\n"
            + "|---|---:|---:|---:|---|\n");
    for (Map.Entry<String, List<double[]>> e : figures.entrySet()) {
      String[] name = e.getKey().split("\\|");
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %s | %s | %s |%n",
              name[0],
              Long.parseLong(name[1]),
              spread(e.getValue(), 0),
              spread(e.getValue(), 1),
              rpcs.get(e.getKey())));
    }
    return out.toString();
  }

  private static String spread(List<double[]> rows, int column) {
    List<Double> values = new ArrayList<>();
    for (double[] row : rows) {
      values.add(row[column]);
    }
    double min = values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    return String.format(Locale.ROOT, "%.1f (%.1f-%.1f)", MasterCapacity.median(values), min, max);
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println(
          "usage: BatchRemoveCost MASTER_PID OUTPUT [POPULATION [BATCHES [ROUNDS]]]");
      System.exit(2);
    }
    int population = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
    int batches = args.length > 3 ? Integer.parseInt(args[3]) : 32;
    int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 5;
    String address = System.getenv().getOrDefault("MOONCAKE_MASTER_ADDRESS", "127.0.0.1:50051");
    Path config = Files.createTempFile("mooncake-batch-remove-", ".json");
    config.toFile().deleteOnExit();
    long segment = Math.max(256L << 20, (long) population * 4 * VALUE + (256L << 20));
    Files.writeString(
        config, Peers.mooncakeStoreJson(address, segment, 64L << 20, "batch-remove", ""));
    MasterMeter meter = new MasterMeter(args[0], MasterMeter.metricsUri());
    String report;
    try (ObjectStore store =
        dev.mooncake.jcache.internal.backend.mooncake.MooncakeStore.open(
            ConfigLoader.load(config.toUri(), BatchRemoveCost.class.getClassLoader()))) {
      BatchRemoveCost run = new BatchRemoveCost(meter, store);
      meter.measureIdle();
      run.rounds(0, batches, rounds);
      run.populate(0, population);
      meter.measureIdle();
      run.rounds(population, batches, rounds);
      report = run.report(batches, rounds);
      store.buffers().release(run.value);
    }
    System.out.print(report);
    Path output = Path.of(args[1]);
    Files.createDirectories(output.toAbsolutePath().getParent());
    Files.writeString(output, report);
  }
}
