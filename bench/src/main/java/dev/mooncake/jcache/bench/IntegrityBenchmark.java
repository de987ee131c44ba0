package dev.mooncake.jcache.bench;

import dev.mooncake.jcache.internal.entry.ValueHeader;
import dev.mooncake.jcache.internal.integrity.StoreKeyHash;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
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
 * What proving a value's key and bytes costs a read: the checks are the owner hash of the store key
 * (SHA-256) plus the CRC32C of header and payload, on a direct buffer as the transfer leaves it. A
 * read into the heap sums the CRC while it copies the payload out ({@code checkedCopy}), so what
 * the checks add is {@code checkedCopy - copy}; {@code checksInPlace} is the zero-copy read's form
 * ({@code ValueHeader.defect}, no copy). {@code get} is a whole {@code cache.get} of a present
 * {@code byte[]} key, checks included, on the backend. Both in one JMH run, per value size, so
 * {@code checks / get} is read from one machine state: the target is at most 5 % of a Mooncake get
 * at every size; the in-process figure is stated beside it. Run by {@code bench/run-integrity.sh}
 * (the Mooncake backend inside a private network namespace; without the Mooncake variables,
 * in-process only).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
    value = 3,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class IntegrityBenchmark {
  private static final int KEYS = 64;
  private static final long MIB = 1L << 20;

  @Param({"in-process", "mooncake"})
  public String backend;

  @Param({"1024", "65536", "1048576"})
  public int size;

  private CacheManager manager;
  private Cache<String, byte[]> cache;
  private String[] keys;
  private String[] storeKeys;
  private byte[][] storeKeyBytes;
  private ByteBuffer object;
  private final SplittableRandom random = new SplittableRandom(7);

  @Setup(Level.Trial)
  public void open() throws IOException {
    String json =
        backend.equals("mooncake")
            ? Peers.mooncakeStoreJson(
                Peers.env("MOONCAKE_MASTER_ADDRESS", "127.0.0.1:50051"),
                256 * MIB,
                64 * MIB,
                "integrity",
                "  \"consistency\": \"local\",\n")
            : String.format(
                Locale.ROOT,
                "{\"backend\": \"in-process\", \"global_segment_size\": %d,"
                    + " \"local_buffer_size\": %d, \"tenant_id\": \"integrity\"}",
                256 * MIB,
                64 * MIB);
    Path config = Files.createTempFile("mooncake-integrity-", ".json");
    config.toFile().deleteOnExit();
    Files.writeString(config, json);
    var provider = Caching.getCachingProvider(Peers.MOONCAKE_PROVIDER);
    manager = provider.getCacheManager(config.toUri(), provider.getDefaultClassLoader());
    cache =
        manager.createCache(
            "bench",
            new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
    keys = new String[KEYS];
    storeKeys = new String[KEYS];
    storeKeyBytes = new byte[KEYS][];
    byte[] value = new byte[size];
    random.nextBytes(value);
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "key-" + i;
      storeKeys[i] = "mcj/aW50ZWdyaXR5/YmVuY2g/" + keys[i]; // as long as the cache's store keys
      storeKeyBytes[i] = storeKeys[i].getBytes(StandardCharsets.ISO_8859_1);
      cache.put(keys[i], value);
      StoreKeyHash.of(storeKeys[i]); // the owner hash's memo holds these instances, as a get's
    }
    // One whole object of the size, as a read leaves it in a transfer buffer.
    object = ByteBuffer.allocateDirect(ValueHeader.OVERHEAD + size);
    object.put(ValueHeader.SIZE, value);
    ValueHeader.write(object, 0, (byte) 1, Long.MAX_VALUE, size, StoreKeyHash.of(storeKeys[0]));
  }

  @TearDown(Level.Trial)
  public void close() {
    if (manager != null) {
      manager.close();
    }
  }

  @Benchmark
  public byte[] get() {
    byte[] value = cache.get(keys[random.nextInt(KEYS)]);
    if (value == null) {
      throw new IllegalStateException("a filled key read absent");
    }
    return value;
  }

  /**
   * The store key of one of the keys {@link #get} reads, as the cache builds it for a key it has
   * not met lately: a new {@code String} (its hash code not cached), so the owner hash's memo is
   * met as such a get meets it. The object's header names key 0: for the others the check finds
   * another owner, at the same cost (the CRC is summed first).
   */
  private String freshStoreKey() {
    return new String(storeKeyBytes[random.nextInt(KEYS)], StandardCharsets.ISO_8859_1);
  }

  /** What a read into the heap does: the checks summed in the payload's copy (the read path). */
  @Benchmark
  public Object checkedCopy() {
    long owner = StoreKeyHash.of(freshStoreKey());
    return ValueHeader.copyChecked(object, 0, ValueHeader.OVERHEAD + size, owner);
  }

  /** The copy alone, which a read without checks would still do: checks = checkedCopy - this. */
  @Benchmark
  public byte[] copy() {
    byte[] payload = new byte[size];
    object.get(ValueHeader.SIZE, payload);
    return payload;
  }

  /** The checks where the bytes stay put (a zero-copy read into the caller's buffer). */
  @Benchmark
  public Object checksInPlace() {
    long owner = StoreKeyHash.of(freshStoreKey());
    return ValueHeader.defect(object, 0, ValueHeader.OVERHEAD + size, owner);
  }

  /**
   * The checks of {@link #checksInPlace} as a read of a key met lately meets them: the cache
   * answers a {@code String} key it met with the same store key instance ({@code StoreKeyMemo}), so
   * the owner hash's lookup finds its cached {@code hashCode} and an identical key.
   */
  @Benchmark
  public Object checksInPlaceMetKey() {
    long owner = StoreKeyHash.of(storeKeys[random.nextInt(KEYS)]);
    return ValueHeader.defect(object, 0, ValueHeader.OVERHEAD + size, owner);
  }
}
