package dev.mooncake.jcache.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.processor.EntryProcessor;
import javax.cache.spi.CachingProvider;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;
import org.redisson.codec.CompositeCodec;
import org.redisson.config.Config;
import org.redisson.jcache.configuration.RedissonConfiguration;

/**
 * Issue 42's read-modify-write: a rate limiter's {@code invoke}, an entry processor that reads an
 * 8-byte counter and writes it back incremented, one JVM, 2 threads, on one hot key or on 1,000
 * keys. Peers, side by side in one JMH run:
 *
 * <ul>
 *   <li>{@code mooncake-cluster}: this provider on a real Mooncake, {@code "consistency":
 *       "cluster"} (the default): per call the key's cluster lock (put, read-back with the entry),
 *       the entry's remove and put, the lock's remove;
 *   <li>{@code mooncake-kept}: the same with {@code lock_keep_idle_ms} 1000: the lock stays with
 *       this JVM between calls, and the entry this JVM wrote last is used instead of a read (the
 *       remembered copy): per call the entry's remove and put;
 *   <li>{@code redisson}: Redisson's JCache on a loopback {@code redis-server} (its {@code invoke}
 *       takes a Redis lock, reads, runs the processor here, writes, unlocks).
 * </ul>
 *
 * <p>Every peer counts its calls; at the end of a trial the counters' sum is printed beside them
 * ({@code # increments:}): this provider's must equal them (no increment lost), else the trial
 * fails. Run by {@code bench/run-rmw.sh} (the master and redis-server in a private network
 * namespace, CPU per operation by {@link CpuShareProfiler}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 3,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(2)
@State(Scope.Benchmark)
public class ReadModifyWriteBenchmark {
  private static final int COUNTER_BYTES = Long.BYTES;

  @Param({"mooncake-cluster", "mooncake-kept", "redisson"})
  public String peer;

  @Param({"1", "1000"})
  public int keys;

  private CacheManager manager;
  private Cache<String, byte[]> cache;
  private String[] names;
  private final LongAdder calls = new LongAdder();
  private static final AtomicLong TRIALS = new AtomicLong();

  /** The rate limiter's step: the counter read, incremented, written back. */
  private static final EntryProcessor<String, byte[], Long> INCREMENT =
      (entry, arguments) -> {
        long count = entry.exists() ? ByteBuffer.wrap(entry.getValue()).getLong() : 0;
        entry.setValue(ByteBuffer.allocate(COUNTER_BYTES).putLong(count + 1).array());
        return count + 1;
      };

  /** Each thread's own key choice. */
  @State(Scope.Thread)
  public static class Picker {
    private final SplittableRandom random = new SplittableRandom(Thread.currentThread().getId());
  }

  @Setup(Level.Trial)
  public void open() throws IOException {
    String cacheName = "rmw-" + TRIALS.incrementAndGet();
    MutableConfiguration<String, byte[]> byValue =
        new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class);
    if (peer.equals("redisson")) {
      Config config = new Config();
      config.useSingleServer().setAddress(Peers.env("REDIS_ADDRESS", "redis://127.0.0.1:6379"));
      config.setCodec(new CompositeCodec(StringCodec.INSTANCE, ByteArrayCodec.INSTANCE));
      Configuration<String, byte[]> jcache = RedissonConfiguration.fromConfig(config, byValue);
      CachingProvider provider = Caching.getCachingProvider(Peers.REDISSON_PROVIDER);
      manager = provider.getCacheManager();
      cache = manager.createCache(cacheName, jcache);
      cache.clear(); // the server outlives this JVM
    } else {
      String extra =
          "  \"consistency\": \"cluster\",\n"
              + (peer.equals("mooncake-kept") ? "  \"lock_keep_idle_ms\": 1000,\n" : "");
      String json =
          Peers.mooncakeStoreJson(
              Peers.env("MOONCAKE_MASTER_ADDRESS", "127.0.0.1:50051"),
              128L << 20,
              64L << 20,
              "rmw-" + peer,
              extra);
      Path config = Files.createTempFile("mooncake-rmw-", ".json");
      config.toFile().deleteOnExit();
      Files.writeString(config, json);
      CachingProvider provider = Caching.getCachingProvider(Peers.MOONCAKE_PROVIDER);
      manager = provider.getCacheManager(config.toUri(), provider.getDefaultClassLoader());
      cache = manager.createCache(cacheName, byValue);
    }
    names = new String[keys];
    for (int i = 0; i < keys; i++) {
      names[i] = "counter-" + i;
      cache.put(names[i], new byte[COUNTER_BYTES]);
    }
  }

  @Benchmark
  public Long invoke(Picker picker) {
    Long count = cache.invoke(names[picker.random.nextInt(keys)], INCREMENT);
    calls.increment();
    return count;
  }

  /**
   * Counts the increments the counters hold against the calls acknowledged, and prints both. This
   * provider must lose none (else the trial fails); a peer that loses some is reported, not
   * stopped, so that its throughput is still measured and the loss is read beside it.
   */
  @TearDown(Level.Trial)
  public void close() {
    try {
      long sum = 0;
      for (String name : names) {
        byte[] value = cache.get(name);
        sum += value == null ? 0 : ByteBuffer.wrap(value).getLong();
      }
      String counted =
          peer + ", " + keys + " keys: the counters hold " + sum + " of " + calls.sum() + " calls";
      System.out.println("# increments: " + counted);
      if (sum != calls.sum() && peer.startsWith("mooncake")) {
        throw new IllegalStateException("increments lost: " + counted);
      }
    } finally {
      manager.close();
    }
  }
}
