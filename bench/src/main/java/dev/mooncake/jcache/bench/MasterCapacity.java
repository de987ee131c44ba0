package dev.mooncake.jcache.bench;

import static dev.mooncake.jcache.bench.CapacityModel.BATCH_EXIST_2;
import static dev.mooncake.jcache.bench.CapacityModel.BATCH_EXIST_512;
import static dev.mooncake.jcache.bench.CapacityModel.BATCH_GET_2;
import static dev.mooncake.jcache.bench.CapacityModel.BATCH_PUT_16;
import static dev.mooncake.jcache.bench.CapacityModel.GET_HIT;
import static dev.mooncake.jcache.bench.CapacityModel.GET_MISS;
import static dev.mooncake.jcache.bench.CapacityModel.GET_SIZE;
import static dev.mooncake.jcache.bench.CapacityModel.IS_EXIST;
import static dev.mooncake.jcache.bench.CapacityModel.PUT_NEW;
import static dev.mooncake.jcache.bench.CapacityModel.PUT_PINNED;
import static dev.mooncake.jcache.bench.CapacityModel.PUT_PRESENT;
import static dev.mooncake.jcache.bench.CapacityModel.REMOVE;
import static dev.mooncake.jcache.bench.CapacityModel.REMOVE_PINNED;

import dev.mooncake.jcache.bench.MasterMeter.Window;
import dev.mooncake.jcache.bench.MasterMeter.Work;
import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.mooncake.MooncakeStore;
import dev.mooncake.jcache.internal.time.Deadline;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.ToLongFunction;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;

/**
 * docs/capacity.md's measurement (run by bench/run-capacity.sh inside a private network namespace
 * with a master of its own): the master process's CPU time per store call, by kind, from one client
 * making N calls of one kind after a warm-up ({@code /proc/<pid>/task/* /schedstat}, exact, less
 * the master's idle CPU over the same wall time), repeated; then a check of the model: a 90/10
 * get/put run through the JCache API under {@code local} and {@code cluster}, its master CPU
 * predicted from the per-call figures and the calls per operation, and measured.
 *
 * <p>Arguments: master pid, output file, calls per kind and repetition (default 2000), repetitions
 * (default 7). The master's request counters ({@link MasterMetrics}) give the RPCs each call made.
 * Asserts only sanity: every call answered what it should.
 */
public final class MasterCapacity {
  private static final int VALUE = 1024;
  private static final int MIX_KEYS = 1_000;
  private static final int MIX_OPS = 20_000;
  private static final int MIX_REPS = 3;

  private final MasterMeter meter;
  private final String master;

  private MasterCapacity(MasterMeter meter, String master) {
    this.meter = meter;
    this.master = master;
  }

  private Window measure(Work work) throws Exception {
    return meter.measure(work);
  }

  private static void expect(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("sanity: " + what);
    }
  }

  /** The per-kind figures of all repetitions: CPU µs per call, and master RPCs per call. */
  private final Map<String, List<Double>> micros = new LinkedHashMap<>();

  private final Map<String, List<Double>> rpcsPerCall = new LinkedHashMap<>();
  private final Map<String, String> rpcNames = new LinkedHashMap<>();
  private int masterThreads;

  private void record(String kind, int calls, Window w, boolean keep) {
    if (!keep) {
      return;
    }
    micros.computeIfAbsent(kind, k -> new ArrayList<>()).add(w.cpuNanos() / 1e3 / calls);
    long rpcs = w.rpcs().values().stream().mapToLong(Long::longValue).sum();
    rpcsPerCall.computeIfAbsent(kind, k -> new ArrayList<>()).add((double) rpcs / calls);
    rpcNames.put(kind, w.rpcs().keySet().toString());
    masterThreads = w.threads();
  }

  /** Measures one call of {@code kind} per key; each must answer {@code expected}. */
  private void eachKey(
      String kind, String[] keys, ToLongFunction<String> call, long expected, boolean keep)
      throws Exception {
    Window w =
        measure(
            () -> {
              for (String k : keys) {
                long answer = call.applyAsLong(k);
                expect(answer == expected, kind + " of " + k + " answered " + answer);
              }
            });
    record(kind, keys.length, w, keep);
  }

  private void perKind(ObjectStore raw, int n, int rep, boolean keep) throws Exception {
    MooncakeStore store = (MooncakeStore) raw;
    ByteBuffer value = store.buffers().acquire(VALUE);
    value.limit(VALUE);
    for (int i = 0; i < VALUE; i++) {
      value.put(i, (byte) i);
    }
    ByteBuffer dest = store.buffers().acquire(VALUE);
    ByteBuffer dest2 = store.buffers().acquire(VALUE);
    dest.limit(VALUE);
    dest2.limit(VALUE);
    String[] keys = new String[n];
    String[] locks = new String[n];
    for (int i = 0; i < n; i++) {
      keys[i] = "cap/" + rep + "/" + i;
      locks[i] = "caplock/" + rep + "/" + i;
    }
    Deadline none = Deadline.none();
    eachKey(PUT_NEW, keys, k -> store.put(k, value, none), 0, keep);
    eachKey(PUT_PRESENT, keys, k -> store.put(k, value, none), 0, keep);
    eachKey(GET_HIT, keys, k -> store.getInto(k, dest, none), VALUE, keep);
    eachKey(GET_SIZE, keys, k -> store.getSize(k, none), VALUE, keep);
    eachKey(IS_EXIST, keys, k -> store.isExist(k, none), 1, keep);
    ByteBuffer[] two = {dest, dest2};
    record(
        BATCH_GET_2,
        n,
        measure(
            () -> {
              for (int i = 0; i < n; i++) {
                String[] pair = {keys[i], keys[(i + 1) % n]};
                long[] got = store.batchGetInto(pair, two, none);
                expect(got[0] == VALUE && got[1] == VALUE, "batch get " + Arrays.toString(got));
              }
            }),
        keep);
    record(
        BATCH_EXIST_2,
        n,
        measure(
            () -> {
              for (int i = 0; i < n; i++) {
                int[] e = store.batchIsExist(new String[] {keys[i], keys[(i + 1) % n]}, none);
                expect(e[0] == 1 && e[1] == 1, "batch is_exist " + Arrays.toString(e));
              }
            }),
        keep);
    int bigCalls = Math.max(1, n / 8);
    String[] big = Arrays.copyOf(keys, Math.min(512, n));
    record(
        BATCH_EXIST_512,
        bigCalls,
        measure(
            () -> {
              for (int i = 0; i < bigCalls; i++) {
                int[] e = store.batchIsExist(big, none);
                expect(Arrays.stream(e).allMatch(x -> x == 1), "batch is_exist of 512 keys");
              }
            }),
        keep && big.length == 512);
    int batchCalls = Math.max(1, n / 16);
    String[][] batches = new String[batchCalls][16];
    ByteBuffer[] values = new ByteBuffer[16];
    Arrays.fill(values, value);
    for (int b = 0; b < batchCalls; b++) {
      for (int j = 0; j < 16; j++) {
        batches[b][j] = "capbatch/" + rep + "/" + b + "/" + j;
      }
    }
    record(
        BATCH_PUT_16,
        batchCalls,
        measure(
            () -> {
              for (String[] batch : batches) {
                int[] r = store.batchPut(batch, values, none);
                expect(Arrays.stream(r).allMatch(x -> x == 0), "batch put " + Arrays.toString(r));
              }
            }),
        keep);
    for (String[] batch : batches) {
      for (String k : batch) {
        store.remove(k, true, none);
      }
    }
    eachKey(PUT_PINNED, locks, k -> store.putPinnedInOwnSegment(k, value, none), 0, keep);
    eachKey(REMOVE_PINNED, locks, k -> store.remove(k, true, none), 0, keep);
    eachKey(REMOVE, keys, k -> store.remove(k, true, none), 0, keep);
    eachKey(GET_MISS, keys, k -> store.getInto(k, dest, none), -704, keep);
    store.buffers().release(value);
    store.buffers().release(dest);
    store.buffers().release(dest2);
  }

  private String config(String tenant, String consistency) {
    return Peers.mooncakeStoreJson(
        master,
        256L << 20,
        64L << 20,
        tenant,
        consistency == null ? "" : "  \"consistency\": \"" + consistency + "\",\n");
  }

  private static Path write(String json) throws IOException {
    Path file = Files.createTempFile("mooncake-capacity-", ".json");
    Files.writeString(file, json);
    file.toFile().deleteOnExit();
    return file;
  }

  /** The model check's figures for one consistency mode. */
  record Check(
      String mode,
      long ops,
      long puts,
      double predictedMicros,
      double measuredMicros,
      long wallNanos,
      Map<String, Long> rpcs) {
    double error() {
      return (predictedMicros - measuredMicros) / measuredMicros;
    }
  }

  private List<Check> mix(String mode, CapacityModel model, CapacityModel.Put put)
      throws Exception {
    CachingProvider provider = Caching.getCachingProvider(Peers.MOONCAKE_PROVIDER);
    try (CacheManager manager =
        provider.getCacheManager(
            write(config("capacity-" + mode, mode)).toUri(), provider.getDefaultClassLoader())) {
      Cache<String, byte[]> cache =
          manager.createCache(
              "mix",
              new MutableConfiguration<String, byte[]>()
                  .setTypes(String.class, byte[].class)
                  .setStoreByValue(true));
      byte[] value = new byte[VALUE];
      for (int i = 0; i < MIX_KEYS; i++) {
        cache.put("k" + i, value);
      }
      SplittableRandom random = new SplittableRandom(42);
      long[] puts = {0};
      Work ops =
          () -> {
            for (int i = 0; i < MIX_OPS; i++) {
              String key = "k" + random.nextInt(MIX_KEYS);
              if (random.nextDouble() < CapacityModel.PUT_SHARE) {
                cache.put(key, value);
                puts[0]++;
              } else {
                expect(cache.get(key) != null, "a get of a present key under " + mode);
              }
            }
          };
      ops.run(); // warm-up
      List<Check> checks = new ArrayList<>();
      for (int r = 0; r < MIX_REPS; r++) {
        puts[0] = 0;
        Window w = measure(ops);
        long p = puts[0];
        double predicted = (MIX_OPS - p) * model.cost(GET_HIT) + p * model.put(put);
        checks.add(
            new Check(mode, MIX_OPS, p, predicted, w.cpuNanos() / 1e3, w.wallNanos(), w.rpcs()));
      }
      checks.sort((a, b) -> Double.compare(a.error(), b.error()));
      return checks;
    }
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String f(double v) {
    return String.format(Locale.ROOT, v >= 100 ? "%.0f" : "%.1f", v);
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: MasterCapacity MASTER_PID OUTPUT [CALLS [REPS]]");
      System.exit(2);
    }
    int n = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
    int reps = args.length > 3 ? Integer.parseInt(args[3]) : 7;
    String address = System.getenv().getOrDefault("MOONCAKE_MASTER_ADDRESS", "127.0.0.1:50051");
    MasterCapacity run =
        new MasterCapacity(new MasterMeter(args[0], MasterMeter.metricsUri()), address);
    StringBuilder out = new StringBuilder();
    try (ObjectStore store =
        MooncakeStore.open(
            ConfigLoader.load(
                write(run.config("capacity-raw", null)).toUri(),
                MasterCapacity.class.getClassLoader()))) {
      run.perKind(store, Math.max(1, n / 2), -1, false); // warm-up
      run.meter.measureIdle();
      for (int r = 0; r < reps; r++) {
        run.perKind(store, n, r, true);
      }
    }
    out.append(
        String.format(
            Locale.ROOT,
            "Master pid %s, %d threads; idle %.1f ms CPU/s; %d calls per kind (512-key"
                + " batch_is_exist: n/8, batch_put_from: n/16) × %d repetitions; 1 KiB values%n%n",
            run.meter.pid(),
            run.masterThreads,
            run.meter.idleNanosPerSecond() / 1e6,
            n,
            reps));
    out.append("| call (one client thread) | master CPU µs per call, median (range) |")
        .append(" calls/s on one core | master RPCs per call | RPCs |\n|---|---:|---:|---:|---|\n");
    Map<String, Double> medians = new LinkedHashMap<>();
    for (Map.Entry<String, List<Double>> e : run.micros.entrySet()) {
      double m = median(e.getValue());
      medians.put(e.getKey(), m);
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %s (%s-%s) | %,d | %.2f | %s |%n",
              e.getKey(),
              f(m),
              f(e.getValue().stream().mapToDouble(Double::doubleValue).min().orElseThrow()),
              f(e.getValue().stream().mapToDouble(Double::doubleValue).max().orElseThrow()),
              Math.round(1e6 / m),
              median(run.rpcsPerCall.get(e.getKey())),
              run.rpcNames.get(e.getKey())));
    }
    CapacityModel model = new CapacityModel(medians);
    out.append("\nModel check, 90/10 get/put through JCache, 1 KiB, ")
        .append(MIX_KEYS)
        .append(" keys uniform, one thread, ")
        .append(MIX_OPS)
        .append(" ops per run, ")
        .append(MIX_REPS)
        .append(" runs (error = predicted ÷ measured − 1):\n\n")
        .append("| mode | run | puts | predicted master CPU ms | measured | error |")
        .append(" master busy | master RPCs |\n|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (String mode : List.of("local", "cluster")) {
      List<Check> checks =
          run.mix(
              mode,
              model,
              mode.equals("local") ? CapacityModel.Put.LOCAL : CapacityModel.Put.CLUSTER);
      for (int r = 0; r < checks.size(); r++) {
        Check c = checks.get(r);
        out.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %d | %.1f | %.1f | %+.0f %% | %.0f %% | %s |%n",
                mode,
                r + 1,
                c.puts(),
                c.predictedMicros() / 1e3,
                c.measuredMicros() / 1e3,
                100 * c.error(),
                100 * c.measuredMicros() * 1e3 / c.wallNanos(),
                c.rpcs()));
      }
    }
    out.append('\n').append(model.fleetTable());
    System.out.print(out);
    Path output = Path.of(args[1]);
    Files.createDirectories(output.toAbsolutePath().getParent());
    Files.writeString(output, out.toString());
  }
}
