package dev.mooncake.jcache.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.spi.CachingProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * containsKey of a present key on a real Mooncake (bench/jmh-mooncake.sh ContainsKeyBenchmark), one
 * thread, byte[] values of {@link #size} bytes:
 *
 * <ul>
 *   <li>{@link #containsKeyExists}: an eternal cache, so containsKey is the master's {@code
 *       is_exist} (docs/lanes.md, "lookup");
 *   <li>{@link #containsKeyRead}: a cache whose entries expire (in an hour: none does during the
 *       run), so containsKey reads the entry to see its expiry time: the read every containsKey
 *       made before is_exist answered it;
 *   <li>{@link #get}: a get of the entry on the eternal cache.
 * </ul>
 *
 * <p>The config is {@code bench.containsKey.config} (a path), else an embedded client of the master
 * jmh-mooncake.sh starts on 127.0.0.1:50051 (P2PHANDSHAKE, TCP, 512 MiB segment) under {@code
 * "consistency": "local"}: under {@code cluster} containsKey reads the entry (docs/lanes.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ContainsKeyBenchmark {
  private static final int KEYS = 64;

  @Param({"1024", "1048576"})
  public int size;

  private CacheManager manager;
  private Cache<String, byte[]> eternal;
  private Cache<String, byte[]> expiring;
  private String[] keys;
  private int next;

  @Setup(Level.Trial)
  public void open() throws IOException {
    CachingProvider provider = new dev.mooncake.jcache.spi.MooncakeCachingProvider();
    manager = provider.getCacheManager(config().toUri(), getClass().getClassLoader());
    eternal = manager.createCache("exists", settings());
    expiring =
        manager.createCache(
            "read",
            settings()
                .setExpiryPolicyFactory(
                    ModifiedExpiryPolicy.factoryOf(new Duration(TimeUnit.HOURS, 1))));
    keys = new String[KEYS];
    byte[] value = new byte[size];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "k" + i;
      eternal.put(keys[i], value);
      expiring.put(keys[i], value);
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    manager.close();
  }

  private static MutableConfiguration<String, byte[]> settings() {
    return new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class);
  }

  private static Path config() {
    String given = System.getProperty("bench.containsKey.config");
    if (given != null) {
      return Path.of(given);
    }
    try {
      Path file = Files.createTempFile("containskey-bench", ".json");
      file.toFile().deleteOnExit();
      Files.writeString(
          file,
          """
          {
            "backend": "mooncake",
            "mode": "embedded",
            "master_server_address": "127.0.0.1:50051",
            "metadata_server": "P2PHANDSHAKE",
            "protocol": "tcp",
            "local_hostname": "127.0.0.1",
            "global_segment_size": "512MB",
            "local_buffer_size": "64MB",
            "consistency": "local",
            "tenant_id": "containskey-bench"
          }
          """);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String nextKey() {
    next = (next + 1) % KEYS;
    return keys[next];
  }

  @Benchmark
  public boolean containsKeyExists() {
    return eternal.containsKey(nextKey());
  }

  @Benchmark
  public boolean containsKeyRead() {
    return expiring.containsKey(nextKey());
  }

  @Benchmark
  public byte[] get() {
    return eternal.get(nextKey());
  }
}
