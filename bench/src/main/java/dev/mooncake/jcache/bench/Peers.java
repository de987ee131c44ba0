package dev.mooncake.jcache.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
import org.ehcache.config.CacheConfiguration;
import org.ehcache.config.builders.CacheConfigurationBuilder;
import org.ehcache.config.builders.ResourcePoolsBuilder;
import org.ehcache.config.units.EntryUnit;
import org.ehcache.config.units.MemoryUnit;
import org.ehcache.impl.copy.SerializingCopier;
import org.ehcache.jsr107.Eh107Configuration;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;
import org.redisson.codec.CompositeCodec;
import org.redisson.config.Config;
import org.redisson.jcache.configuration.RedissonConfiguration;

/**
 * Opens the peers by name. Every peer is store-by-value, every one but the floor goes through the
 * JCache API, and each is sized to hold the whole data set without evicting.
 */
public final class Peers {
  /** The in-process part: every one of these runs anywhere. */
  public static final List<String> IN_PROCESS =
      List.of(
          "mooncake",
          "caffeine",
          "ehcache-heap",
          "ehcache-offheap",
          "chm-floor",
          Report.CONTRACT_FLOOR);

  /** The Mooncake part: needs a Mooncake master, libmooncake_store.so and a redis-server. */
  // mooncake-store-local beside the default (cluster): the C driver has no cross-JVM guarantee, so
  // local ÷ c-abi-by-value is like work and cluster ÷ local is what the guarantee costs
  public static final List<String> MOONCAKE_PART =
      List.of("mooncake-store", NearPeers.OFF, "redisson");

  /** Whether the peer is reached over a network (the Mooncake and near-cache parts' peers). */
  static boolean isRemote(String name) {
    return MOONCAKE_PART.contains(name) || NearPeers.ALL.contains(name);
  }

  public static final String MOONCAKE_PROVIDER = "dev.mooncake.jcache.spi.MooncakeCachingProvider";
  public static final String CAFFEINE_PROVIDER =
      "com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider";
  public static final String EHCACHE_PROVIDER = "org.ehcache.jsr107.EhcacheCachingProvider";
  public static final String REDISSON_PROVIDER = "org.redisson.jcache.JCachingProvider";

  static final long MIB = 1024L * 1024;

  /** Our value header and trailer, stored around every value (24 bytes before, 8 after). */
  static final int HEADER = 32;

  private Peers() {}

  /** Bytes the data set takes in a store that keeps our header and trailer: keys × (size + 32). */
  static long dataBytes(ValueKind kind, int keyCount) {
    return (long) keyCount * (kind.bytes() + HEADER);
  }

  public static Peer open(String name, ValueKind kind, int keyCount) {
    switch (name) {
      case "mooncake":
        return mooncakeInProcess(kind, keyCount);
      case "caffeine":
        return caffeine(kind);
      case "ehcache-heap":
        return ehcache(kind, keyCount, false);
      case "ehcache-offheap":
        return ehcache(kind, keyCount, true);
      case "chm-floor":
        return new FloorPeer(kind, keyCount);
      case Report.CONTRACT_FLOOR:
        return new ContractFloorPeer(kind, keyCount);
      case "mooncake-store":
        return mooncakeStore(kind, keyCount);
      case "redisson":
        return redisson(kind);
      case NearPeers.NEAR, NearPeers.NEAR_SMALL, NearPeers.OFF:
        return NearPeers.open(name, kind, keyCount);
      default:
        throw new IllegalArgumentException("unknown peer '" + name + "'");
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static MutableConfiguration<String, Object> byValue(ValueKind kind) {
    return new MutableConfiguration().setTypes(String.class, kind.type()).setStoreByValue(true);
  }

  /** This provider on the in-process store, with a segment that holds the data set. */
  private static Peer mooncakeInProcess(ValueKind kind, int keyCount) {
    long data = dataBytes(kind, keyCount);
    // eviction starts at 90 % of the segment: keep the data set well below it
    long segment = roundUpMib(data * 3 / 2 + 64 * MIB);
    // staging buffers are pooled per power-of-two class: a batch of 64 × 1 MiB takes 64 × 2 MiB
    long localBuffer = 512 * MIB;
    String json =
        String.format(
            Locale.ROOT,
            "{\n  \"backend\": \"in-process\",\n  \"global_segment_size\": %d,\n"
                + "  \"local_buffer_size\": %d,\n  \"tenant_id\": \"bench\"\n}\n",
            segment,
            localBuffer);
    return mooncake(
        json, kind, "this provider, in-process store (segment " + segment / MIB + " MiB)");
  }

  /**
   * This provider on a real Mooncake: {@code MOONCAKE_STORE_LIBRARY} names the library, the master
   * listens on {@code MOONCAKE_MASTER_ADDRESS} (default 127.0.0.1:50051).
   */
  private static Peer mooncakeStore(ValueKind kind, int keyCount) {
    return mooncake(
        mooncakeStoreJson(kind, keyCount),
        kind,
        "this provider, Mooncake over TCP (master "
            + masterAddress()
            + ", segment "
            + segmentBytes(kind, keyCount) / MIB
            + " MiB)");
  }

  /** The configuration of {@code mooncake-store} (also the base of {@link NearPeers}'). */
  static String mooncakeStoreJson(ValueKind kind, int keyCount) {
    return mooncakeStoreJson(masterAddress(), segmentBytes(kind, keyCount), 512 * MIB, "bench", "");
  }

  private static String masterAddress() {
    return env("MOONCAKE_MASTER_ADDRESS", "127.0.0.1:50051");
  }

  /** The segment this client contributes: the data with room to spare, and 256 MiB more. */
  private static long segmentBytes(ValueKind kind, int keyCount) {
    return roundUpMib(dataBytes(kind, keyCount) * 3 / 2 + 256 * MIB);
  }

  /**
   * A config for this provider on a real Mooncake over TCP (loopback, P2PHANDSHAKE); {@code extra}
   * is more JSON fields, each followed by a comma and a newline, or empty.
   */
  static String mooncakeStoreJson(
      String master, long segment, long localBuffer, String tenant, String extra) {
    return String.format(
        Locale.ROOT,
        "{\n  \"backend\": \"mooncake\",\n  \"mode\": \"embedded\",\n"
            + "  \"metadata_server\": \"P2PHANDSHAKE\",\n  \"master_server_address\": \"%s\",\n"
            + "  \"protocol\": \"tcp\",\n  \"local_hostname\": \"127.0.0.1\",\n"
            + "  \"global_segment_size\": %d,\n  \"local_buffer_size\": %d,\n%s"
            + "  \"tenant_id\": \"%s\"\n}\n",
        master,
        segment,
        localBuffer,
        extra,
        tenant);
  }

  static Peer mooncake(String json, ValueKind kind, String description) {
    Path config;
    try {
      config = Files.createTempFile("mooncake-bench-", ".json");
      Files.writeString(config, json);
      config.toFile().deleteOnExit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    CachingProvider provider = Caching.getCachingProvider(MOONCAKE_PROVIDER);
    CacheManager manager =
        provider.getCacheManager(config.toUri(), provider.getDefaultClassLoader());
    Cache<String, Object> cache = manager.createCache("bench", byValue(kind));
    return new JCachePeer(cache, manager, description, null);
  }

  /** Caffeine's JCache module, store-by-value (its copier clones arrays), unbounded. */
  private static Peer caffeine(ValueKind kind) {
    CachingProvider provider = Caching.getCachingProvider(CAFFEINE_PROVIDER);
    CacheManager manager = provider.getCacheManager();
    Cache<String, Object> cache = manager.createCache("bench", byValue(kind));
    return new JCachePeer(
        cache,
        manager,
        "Caffeine JCache, store-by-value (values copied on put and get; Strings are immutable and"
            + " not copied)",
        null);
  }

  /**
   * Ehcache 3 through its JSR-107 integration. Heap: the tier holds every key, values copied by
   * Ehcache's SerializingCopier (what it uses for store-by-value). Off-heap: one off-heap tier,
   * values kept serialized (Ehcache's built-in String / byte[] serializers).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Peer ehcache(ValueKind kind, int keyCount, boolean offHeap) {
    CachingProvider provider = Caching.getCachingProvider(EHCACHE_PROVIDER);
    CacheManager manager = provider.getCacheManager();
    CacheConfiguration<String, Object> config;
    String description;
    if (offHeap) {
      long mib = roundUpMib(dataBytes(kind, keyCount) * 3 / 2 + 64 * MIB) / MIB;
      config =
          (CacheConfiguration)
              CacheConfigurationBuilder.newCacheConfigurationBuilder(
                      String.class,
                      (Class) kind.type(),
                      ResourcePoolsBuilder.newResourcePoolsBuilder().offheap(mib, MemoryUnit.MB))
                  .build();
      description = "Ehcache 3, off-heap tier only (" + mib + " MiB)";
    } else {
      config =
          (CacheConfiguration)
              CacheConfigurationBuilder.newCacheConfigurationBuilder(
                      String.class,
                      (Class) kind.type(),
                      ResourcePoolsBuilder.newResourcePoolsBuilder()
                          .heap(keyCount * 2L, EntryUnit.ENTRIES))
                  .withValueCopier((Class) SerializingCopier.asCopierClass())
                  .build();
      description =
          "Ehcache 3, heap tier (" + keyCount * 2L + " entries), SerializingCopier for values";
    }
    Configuration<String, Object> jcache = Eh107Configuration.fromEhcacheCacheConfiguration(config);
    Cache<String, Object> cache = manager.createCache("bench", jcache);
    return new JCachePeer(cache, manager, description, null);
  }

  /**
   * Redisson's JCache on a Redis server ({@code REDIS_ADDRESS}, default redis://127.0.0.1:6379).
   */
  private static Peer redisson(ValueKind kind) {
    String address = env("REDIS_ADDRESS", "redis://127.0.0.1:6379");
    Config config = new Config();
    config.useSingleServer().setAddress(address);
    config.setCodec(
        kind.type() == String.class
            ? StringCodec.INSTANCE
            : new CompositeCodec(StringCodec.INSTANCE, ByteArrayCodec.INSTANCE));
    Configuration<String, Object> jcache = RedissonConfiguration.fromConfig(config, byValue(kind));
    CachingProvider provider = Caching.getCachingProvider(REDISSON_PROVIDER);
    CacheManager manager = provider.getCacheManager();
    Cache<String, Object> cache = manager.createCache("bench-" + kind.id(), jcache);
    cache.clear(); // the server outlives this JVM
    return new JCachePeer(
        cache,
        manager,
        "Redisson JCache on redis-server "
            + address
            + " (codec: String keys, "
            + (kind.type() == String.class ? "String" : "byte[]")
            + " values)",
        cache::clear);
  }

  static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }

  private static long roundUpMib(long bytes) {
    return (bytes + MIB - 1) / MIB * MIB;
  }
}
