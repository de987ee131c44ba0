package dev.mooncake.jcache.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.processor.EntryProcessor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What {@code "consistency": "cluster"} costs over {@code "local"} on a real Mooncake, per
 * operation (issue 10): {@code get} of a present key, {@code put} over a present key, {@code
 * putIfAbsent} of a present key, {@code replace(k, v)} and {@code invoke} (an increment), one
 * thread, 1 KiB {@code byte[]} values on 1,024 keys filled before measuring. Both modes run in one
 * JMH run ({@code consistency} is a parameter), so their ratio is read from one machine state. Run
 * by {@code bench/run-consistency.sh}, which starts the master in a private network namespace; the
 * store round trips per operation are counted by the provider's {@code RoundTripsTest}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
    value = 3,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ConsistencyBenchmark {
  private static final int KEYS = 1024;
  private static final int VALUE_BYTES = 1024;

  @Param({"local", "cluster"})
  public String consistency;

  private CacheManager manager;
  private Cache<String, byte[]> cache;
  private String[] keys;
  private byte[][] values;
  private final SplittableRandom random = new SplittableRandom(42);

  private static final EntryProcessor<String, byte[], Void> INCREMENT =
      (entry, arguments) -> {
        byte[] value = entry.exists() ? entry.getValue().clone() : new byte[VALUE_BYTES];
        value[0]++;
        entry.setValue(value);
        return null;
      };

  @Setup(Level.Trial)
  public void open() throws IOException {
    String master = System.getenv().getOrDefault("MOONCAKE_MASTER_ADDRESS", "127.0.0.1:50051");
    String json =
        Peers.mooncakeStoreJson(
            master,
            128L << 20,
            64L << 20,
            "consistency-" + consistency,
            "  \"consistency\": \"" + consistency + "\",\n");
    Path config = Files.createTempFile("mooncake-consistency-", ".json");
    config.toFile().deleteOnExit();
    Files.writeString(config, json);
    var provider = Caching.getCachingProvider(Peers.MOONCAKE_PROVIDER);
    manager = provider.getCacheManager(config.toUri(), provider.getDefaultClassLoader());
    cache =
        manager.createCache(
            "bench",
            new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
    keys = new String[KEYS];
    values = new byte[8][];
    for (int i = 0; i < values.length; i++) {
      values[i] = new byte[VALUE_BYTES];
      random.nextBytes(values[i]);
    }
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "key-" + i;
      cache.put(keys[i], values[i & 7]);
    }
    for (String key : keys) {
      if (cache.get(key) == null) {
        throw new UncheckedIOException(new IOException(key + " missing right after the fill"));
      }
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    if (manager != null) {
      manager.close();
    }
  }

  private String key() {
    return keys[random.nextInt(KEYS)];
  }

  @Benchmark
  public byte[] get() {
    byte[] value = cache.get(key());
    if (value == null) {
      throw new IllegalStateException("a filled key read absent");
    }
    return value;
  }

  @Benchmark
  public void put() {
    cache.put(key(), values[random.nextInt(8)]);
  }

  @Benchmark
  public boolean putIfAbsent() {
    return cache.putIfAbsent(key(), values[0]); // present: the lock, the read, no write
  }

  @Benchmark
  public boolean replace() {
    return cache.replace(key(), values[random.nextInt(8)]);
  }

  @Benchmark
  public void invoke() {
    cache.invoke(key(), INCREMENT);
  }
}
