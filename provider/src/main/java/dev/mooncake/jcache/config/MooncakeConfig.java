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
 * @param globalSegmentSize bytes this process contributes to the pool (the in-process store's
 *     bound)
 * @param localBufferSize bytes of the pinned, registered transfer region
 * @param nativeSettings what the Mooncake library needs told: its ABI layout and etcd TLS files
 * @param tenantId the namespace every stored key is prefixed with
 * @param library path of {@code libmooncake_store.so}, or {@code null} for the environment's choice
 * @param numWorkers threads of the shared lane pool
 * @param perOpWorkers lanes with a dedicated pool, and its size, by the lane's key in {@code
 *     per_op_workers} (one of {@link #LANES})
 * @param singleCallsOnLanes whether single synchronous calls hop onto the lanes too
 * @param asyncWorkers threads that run the asynchronous API's operations ({@code async_workers})
 * @param asyncMaxInFlight the most asynchronous operations one cache manager holds issued and not
 *     yet completed ({@code async_max_in_flight}); beyond it callers wait, then are refused
 * @param replica Mooncake's replicate_config for every put
 * @param operationTimeout the longest a store call may take before it fails
 * @param eviction the in-process store's eviction thresholds
 * @param deserializationAllowList class-name patterns (ObjectInputFilter syntax, e.g. {@code
 *     com.acme.**}) that Java deserialization may instantiate, beyond the built-in safe JDK value
 *     types
 * @param caches caches declared in the file, by name
 * @param strict whether unknown keys are errors rather than warnings
 * @param consistency how far per-key atomicity reaches: this JVM, or every JVM of the cluster
 * @param nativeLog Mooncake's own log: level and destination ({@code native_log}; process-wide, the
 *     first Mooncake store of the process applies it)
 * @param eventsEndpoint the master's KV event publisher ({@code tcp://host:port}), or {@code null}:
 *     no cluster events, no near caches
 * @param lockSegmentSize bytes of the lock-only segment a {@code standalone-store} client with
 *     {@code consistency: cluster} contributes (its cluster locks live there, its values in the
 *     pool's segments); 0 everywhere else
 * @param masterMetricsAddress {@code host:port} of the master's metrics and admin HTTP server,
 *     where a {@code standalone-store} client with a lock segment and no {@code preferred_segments}
 *     finds the pool's segments; {@code null} otherwise
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
    int asyncWorkers,
    int asyncMaxInFlight,
    ReplicaSettings replica,
    Duration operationTimeout,
    EvictionSettings eviction,
    List<String> deserializationAllowList,
    Map<String, CacheDefinition> caches,
    boolean strict,
    Consistency consistency,
    NativeLog nativeLog,
    String eventsEndpoint,
    long lockSegmentSize,
    String masterMetricsAddress) {

  /**
   * The smallest segment Mooncake 3b5a594 mounts: setup answers -600 for 4, 8 and 12 MiB and 0 for
   * 16 MiB (measured on a real master, 2026-12-03).
   */
  public static final long MIN_SEGMENT_SIZE = 16L << 20;

  /**
   * The bytes this client contributes to the cluster: {@code global_segment_size} in {@code
   * embedded} mode, the lock-only segment in {@code standalone-store} mode (0 without {@code
   * cluster}).
   */
  public long contributedSegmentSize() {
    return mode == Mode.STANDALONE_STORE ? lockSegmentSize : globalSegmentSize;
  }

  /** A builder holding every setting of this config: change a few, {@link Builder#build}. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * An empty builder, for the reader that sets every key ({@code MooncakeConfigReader}); others
   * start from a valid config's {@link #toBuilder}. Adding a key: a component above, a field and a
   * setter here, the reader.
   */
  public static Builder builder() {
    return new Builder(null);
  }

  /** Every setting of a {@link MooncakeConfig}, one setter per component. */
  public static final class Builder {
    private String source;
    private Backend backend;
    private Mode mode;
    private String metadataServer;
    private String masterServerAddress;
    private String protocol;
    private String deviceName;
    private String localHostname;
    private long globalSegmentSize;
    private long localBufferSize;
    private NativeSettings nativeSettings;
    private String tenantId;
    private String library;
    private int numWorkers;
    private Map<String, Integer> perOpWorkers;
    private boolean singleCallsOnLanes;
    private int asyncWorkers;
    private int asyncMaxInFlight;
    private ReplicaSettings replica;
    private Duration operationTimeout;
    private EvictionSettings eviction;
    private List<String> deserializationAllowList;
    private Map<String, CacheDefinition> caches;
    private boolean strict;
    private Consistency consistency;
    private NativeLog nativeLog;
    private String eventsEndpoint;
    private long lockSegmentSize;
    private String masterMetricsAddress;

    private Builder(MooncakeConfig from) {
      if (from == null) {
        return;
      }
      source = from.source;
      backend = from.backend;
      mode = from.mode;
      metadataServer = from.metadataServer;
      masterServerAddress = from.masterServerAddress;
      protocol = from.protocol;
      deviceName = from.deviceName;
      localHostname = from.localHostname;
      globalSegmentSize = from.globalSegmentSize;
      localBufferSize = from.localBufferSize;
      nativeSettings = from.nativeSettings;
      tenantId = from.tenantId;
      library = from.library;
      numWorkers = from.numWorkers;
      perOpWorkers = from.perOpWorkers;
      singleCallsOnLanes = from.singleCallsOnLanes;
      asyncWorkers = from.asyncWorkers;
      asyncMaxInFlight = from.asyncMaxInFlight;
      replica = from.replica;
      operationTimeout = from.operationTimeout;
      eviction = from.eviction;
      deserializationAllowList = from.deserializationAllowList;
      caches = from.caches;
      strict = from.strict;
      consistency = from.consistency;
      nativeLog = from.nativeLog;
      eventsEndpoint = from.eventsEndpoint;
      lockSegmentSize = from.lockSegmentSize;
      masterMetricsAddress = from.masterMetricsAddress;
    }

    public Builder source(String source) {
      this.source = source;
      return this;
    }

    public Builder backend(Backend backend) {
      this.backend = backend;
      return this;
    }

    public Builder mode(Mode mode) {
      this.mode = mode;
      return this;
    }

    public Builder metadataServer(String metadataServer) {
      this.metadataServer = metadataServer;
      return this;
    }

    public Builder masterServerAddress(String masterServerAddress) {
      this.masterServerAddress = masterServerAddress;
      return this;
    }

    public Builder protocol(String protocol) {
      this.protocol = protocol;
      return this;
    }

    public Builder deviceName(String deviceName) {
      this.deviceName = deviceName;
      return this;
    }

    public Builder localHostname(String localHostname) {
      this.localHostname = localHostname;
      return this;
    }

    public Builder globalSegmentSize(long globalSegmentSize) {
      this.globalSegmentSize = globalSegmentSize;
      return this;
    }

    public Builder localBufferSize(long localBufferSize) {
      this.localBufferSize = localBufferSize;
      return this;
    }

    public Builder nativeSettings(NativeSettings nativeSettings) {
      this.nativeSettings = nativeSettings;
      return this;
    }

    public Builder tenantId(String tenantId) {
      this.tenantId = tenantId;
      return this;
    }

    public Builder library(String library) {
      this.library = library;
      return this;
    }

    public Builder numWorkers(int numWorkers) {
      this.numWorkers = numWorkers;
      return this;
    }

    public Builder perOpWorkers(Map<String, Integer> perOpWorkers) {
      this.perOpWorkers = perOpWorkers;
      return this;
    }

    public Builder singleCallsOnLanes(boolean singleCallsOnLanes) {
      this.singleCallsOnLanes = singleCallsOnLanes;
      return this;
    }

    public Builder asyncWorkers(int asyncWorkers) {
      this.asyncWorkers = asyncWorkers;
      return this;
    }

    public Builder asyncMaxInFlight(int asyncMaxInFlight) {
      this.asyncMaxInFlight = asyncMaxInFlight;
      return this;
    }

    public Builder replica(ReplicaSettings replica) {
      this.replica = replica;
      return this;
    }

    public Builder operationTimeout(Duration operationTimeout) {
      this.operationTimeout = operationTimeout;
      return this;
    }

    public Builder eviction(EvictionSettings eviction) {
      this.eviction = eviction;
      return this;
    }

    public Builder deserializationAllowList(List<String> deserializationAllowList) {
      this.deserializationAllowList = deserializationAllowList;
      return this;
    }

    public Builder caches(Map<String, CacheDefinition> caches) {
      this.caches = caches;
      return this;
    }

    public Builder strict(boolean strict) {
      this.strict = strict;
      return this;
    }

    public Builder consistency(Consistency consistency) {
      this.consistency = consistency;
      return this;
    }

    public Builder nativeLog(NativeLog nativeLog) {
      this.nativeLog = nativeLog;
      return this;
    }

    public Builder eventsEndpoint(String eventsEndpoint) {
      this.eventsEndpoint = eventsEndpoint;
      return this;
    }

    public Builder lockSegmentSize(long lockSegmentSize) {
      this.lockSegmentSize = lockSegmentSize;
      return this;
    }

    public Builder masterMetricsAddress(String masterMetricsAddress) {
      this.masterMetricsAddress = masterMetricsAddress;
      return this;
    }

    public MooncakeConfig build() {
      return new MooncakeConfig(
          source,
          backend,
          mode,
          metadataServer,
          masterServerAddress,
          protocol,
          deviceName,
          localHostname,
          globalSegmentSize,
          localBufferSize,
          nativeSettings,
          tenantId,
          library,
          numWorkers,
          perOpWorkers,
          singleCallsOnLanes,
          asyncWorkers,
          asyncMaxInFlight,
          replica,
          operationTimeout,
          eviction,
          deserializationAllowList,
          caches,
          strict,
          consistency,
          nativeLog,
          eventsEndpoint,
          lockSegmentSize,
          masterMetricsAddress);
    }
  }

  /**
   * The keys of {@code per_op_workers}: the kinds of store call that may get a pool of their own.
   * (The lanes themselves live in {@code dev.mooncake.jcache.internal.lane}, above the config.)
   */
  public static final List<String> LANES = List.of("lookup", "retrieve", "store", "delete");

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
   * @param valuePlacement where an {@code embedded} client puts values when {@code
   *     preferred_segments} names none ({@code value_placement})
   */
  public record ReplicaSettings(
      int replicaNum,
      boolean softPin,
      boolean hardPin,
      List<String> preferredSegments,
      Duration softPinTtl,
      ValuePlacement valuePlacement) {
    public static final ReplicaSettings DEFAULT = new ReplicaSettings(1, false, false, List.of());

    /** Without a soft pin TTL. */
    public ReplicaSettings(
        int replicaNum, boolean softPin, boolean hardPin, List<String> preferredSegments) {
      this(replicaNum, softPin, hardPin, preferredSegments, null);
    }

    /** With the default value placement. */
    public ReplicaSettings(
        int replicaNum,
        boolean softPin,
        boolean hardPin,
        List<String> preferredSegments,
        Duration softPinTtl) {
      this(replicaNum, softPin, hardPin, preferredSegments, softPinTtl, ValuePlacement.DEFAULT);
    }
  }

  /**
   * {@code value_placement}: where an {@code embedded} client's values go when {@code
   * preferred_segments} names no segment (docs/reliability.md, "What a leaving JVM takes with it").
   */
  public enum ValuePlacement {
    /** This client's own segment: a JVM that leaves takes exactly the values it wrote. */
    OWN_SEGMENT("own-segment"),
    /** Wherever the master places them, across every mounted segment. */
    ANY_SEGMENT("any-segment");

    public static final ValuePlacement DEFAULT = OWN_SEGMENT;

    private final String configValue;

    ValuePlacement(String configValue) {
      this.configValue = configValue;
    }

    public String configValue() {
      return configValue;
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
   * {@code native_log}: where Mooncake's glog lines go (see docs/configuration.md). Applied once
   * per process, before the library is loaded; variables the user set in the environment win.
   *
   * @param level {@code TRACE}, {@code INFO}, {@code WARNING} or {@code ERROR} (Mooncake's {@code
   *     MC_LOG_LEVEL})
   * @param destination {@code slf4j} (forwarded to the logger {@code mooncake.native}), {@code
   *     stderr} (Mooncake's own behaviour) or an absolute directory for glog's files
   */
  public record NativeLog(String level, String destination) {
    public static final List<String> LEVELS = List.of("TRACE", "INFO", "WARNING", "ERROR");
    public static final NativeLog DEFAULT = new NativeLog("WARNING", "slf4j");
  }

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
   * @param level {@code local}: among the caches of this JVM only; {@code cluster}: among every JVM
   *     of the Mooncake cluster, through lock objects in the store
   * @param lockLease how long a cluster lock is trusted after it was taken (on this JVM's clock);
   *     below {@code clientTtl} with a margin
   * @param clientTtl the master's {@code --client_ttl}: how long a silent client keeps its segment
   * @param lockKeepIdle how long a JVM keeps an unused cluster lock after its operation ({@code
   *     lock_keep_idle_ms}); zero: released at the end of each operation
   */
  public record Consistency(
      Level level, Duration lockLease, Duration clientTtl, Duration lockKeepIdle) {
    public static final Duration DEFAULT_LOCK_LEASE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_CLIENT_TTL = Duration.ofSeconds(10);

    /** Mooncake clients ping the master once a second: a running client's last ping is this old. */
    public static final Duration PING_INTERVAL = Duration.ofSeconds(1);

    public static final Consistency LOCAL =
        new Consistency(Level.LOCAL, DEFAULT_LOCK_LEASE, DEFAULT_CLIENT_TTL, Duration.ZERO);
    public static final Consistency CLUSTER =
        new Consistency(Level.CLUSTER, DEFAULT_LOCK_LEASE, DEFAULT_CLIENT_TTL, Duration.ZERO);

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
