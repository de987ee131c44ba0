package dev.mooncake.jcache.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The validated settings of one provider URI: a Mooncake JSON file in the form vLLM and LMCache
 * read, plus this provider's own keys. Built only by {@link ConfigLoader}; every instance is valid.
 *
 * @param source where the settings came from (a URI, or {@code "built-in defaults"}), for messages
 * @param backend which store runs the caches
 * @param mode vLLM's topology: this process contributes a segment, or a separate client owns it
 * @param metadataServer Mooncake's metadata server ({@code P2PHANDSHAKE}, {@code http://…}, …)
 * @param masterServerAddress {@code host:port} of {@code mooncake_master}; empty for in-process
 * @param protocol {@code tcp}, {@code rdma}, …
 * @param deviceName RDMA device(s), comma separated; empty for TCP
 * @param localHostname the address this client advertises to the cluster
 * @param globalSegmentSize bytes this process contributes to the pool (the in-process store's bound)
 * @param localBufferSize bytes of the pinned, registered transfer region
 * @param nativeSettings what the Mooncake library needs told: its ABI layout and etcd TLS files
 * @param tenantId the namespace every stored key is prefixed with
 * @param library path of {@code libmooncake_store.so}, or {@code null} for the environment's choice
 * @param numWorkers threads of the shared lane pool
 * @param perOpWorkers lanes with a dedicated pool, and its size, by the lane's key in
 *     {@code per_op_workers} (one of {@link #LANES})
 * @param singleCallsOnLanes whether single synchronous calls hop onto the lanes too
 * @param replica Mooncake's replicate_config for every put
 * @param operationTimeout the longest a store call may take before it fails
 * @param eviction the in-process store's eviction thresholds
 * @param deserializationAllowList class-name patterns (ObjectInputFilter syntax, e.g. {@code com.acme.**})
 *     that Java deserialization may instantiate, beyond the built-in safe JDK value types
 * @param caches caches declared in the file, by name
 * @param strict whether unknown keys are errors rather than warnings
 * @param consistency how far per-key atomicity reaches: this JVM, or every JVM of the cluster
 */
public record MooncakeConfig(
    String source,
    Backend backend,
    Mode mode,
    String metadataServer,
    String masterServerAddress,
    String protocol,
    String deviceName,
    String localHostname,
    long globalSegmentSize,
    long localBufferSize,
    NativeSettings nativeSettings,
    String tenantId,
    String library,
    int numWorkers,
    Map<String, Integer> perOpWorkers,
    boolean singleCallsOnLanes,
    ReplicaSettings replica,
    Duration operationTimeout,
    EvictionSettings eviction,
    List<String> deserializationAllowList,
    Map<String, CacheDefinition> caches,
    boolean strict,
    Consistency consistency) {

  /**
   * The keys of {@code per_op_workers}: the kinds of store call that may get a pool of their own.
   * (The lanes themselves live in {@code dev.mooncake.jcache.lane}, above the config.)
   */
  public static final List<String> LANES = List.of("retrieve", "store", "delete");

  /** Which store implementation runs the caches. */
  public enum Backend {
    IN_PROCESS("in-process"),
    MOONCAKE("mooncake");

    private final String configValue;

    Backend(String configValue) {
      this.configValue = configValue;
    }

    public String configValue() {
      return configValue;
    }
  }

  /** vLLM's {@code mode}. */
  public enum Mode {
    EMBEDDED("embedded"),
    STANDALONE_STORE("standalone-store");

    private final String configValue;

    Mode(String configValue) {
      this.configValue = configValue;
    }

    public String configValue() {
      return configValue;
    }
  }

  /**
   * Mooncake's {@code replicate_config}.
   *
   * @param replicaNum replicas per object, at least 1
   * @param softPin evicted last
   * @param hardPin never evicted
   * @param preferredSegments segments (client hostnames) to place objects in, in order
   * @param softPinTtl how long a soft pin holds ({@code soft_pin_ttl}, v3 libraries only); {@code
   *     null}: the master's {@code --default_kv_soft_pin_ttl}
   */
  public record ReplicaSettings(
      int replicaNum,
      boolean softPin,
      boolean hardPin,
      List<String> preferredSegments,
      Duration softPinTtl) {
    public static final ReplicaSettings DEFAULT = new ReplicaSettings(1, false, false, List.of());

    /** Without a soft pin TTL. */
    public ReplicaSettings(
        int replicaNum, boolean softPin, boolean hardPin, List<String> preferredSegments) {
      this(replicaNum, softPin, hardPin, preferredSegments, null);
    }
  }

  /**
   * What the loaded {@code libmooncake_store.so} must be told (see docs/native-bridge.md).
   *
   * @param abi the layout of its {@code replicate_config}, {@code "v1"}, {@code "v2"} or {@code
   *     "v3"}; {@code null}: not named, then pins and {@code soft_pin_ttl} are refused
   * @param etcdTls certificates for an etcd metadata server, {@code null} for none
   */
  public record NativeSettings(String abi, EtcdTls etcdTls) {
    public static final NativeSettings DEFAULT = new NativeSettings(null, null);
  }

  /**
   * {@code etcd_tls}: passed to {@code mooncake_store_set_etcd_tls_config} before setup; a library
   * without that function refuses to start. Empty strings for files not given.
   */
  public record EtcdTls(String caFile, String certFile, String keyFile) {}

  /**
   * Eviction thresholds, as Mooncake's master flags.
   *
   * @param highWatermarkRatio fraction of the segment above which eviction starts (0.90)
   * @param evictionRatio fraction of the segment freed by one eviction pass (0.05)
   */
  public record EvictionSettings(double highWatermarkRatio, double evictionRatio) {
    public static final EvictionSettings DEFAULT = new EvictionSettings(0.90, 0.05);
  }

  /**
   * How far per-key atomicity reaches (docs/cluster-consistency.md).
   *
   * @param level {@code local}: among the caches of this JVM only; {@code cluster}: among every
   *     JVM of the Mooncake cluster, through lock objects in the store
   * @param lockLease how long a cluster lock is trusted after it was taken (on this JVM's clock);
   *     below {@code clientTtl} with a margin
   * @param clientTtl the master's {@code --client_ttl}: how long a silent client keeps its segment
   */
  public record Consistency(Level level, Duration lockLease, Duration clientTtl) {
    public static final Duration DEFAULT_LOCK_LEASE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_CLIENT_TTL = Duration.ofSeconds(10);
    /** Mooncake clients ping the master once a second: a running client's last ping is this old. */
    public static final Duration PING_INTERVAL = Duration.ofSeconds(1);
    public static final Consistency LOCAL =
        new Consistency(Level.LOCAL, DEFAULT_LOCK_LEASE, DEFAULT_CLIENT_TTL);
    public static final Consistency CLUSTER =
        new Consistency(Level.CLUSTER, DEFAULT_LOCK_LEASE, DEFAULT_CLIENT_TTL);

    /** The {@code consistency} values. */
    public enum Level {
      LOCAL("local"),
      CLUSTER("cluster");

      private final String configValue;

      Level(String configValue) {
        this.configValue = configValue;
      }

      public String configValue() {
        return configValue;
      }
    }
  }
}
