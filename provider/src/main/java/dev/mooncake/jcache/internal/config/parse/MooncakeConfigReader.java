package dev.mooncake.jcache.internal.config.parse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mooncake.jcache.config.CacheDefinition;
import dev.mooncake.jcache.config.ConfigException;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.config.MooncakeConfig.Backend;
import dev.mooncake.jcache.config.MooncakeConfig.Consistency;
import dev.mooncake.jcache.config.MooncakeConfig.EvictionSettings;
import dev.mooncake.jcache.config.MooncakeConfig.Mode;
import dev.mooncake.jcache.config.MooncakeConfig.ReplicaSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Reads and validates the top level of a Mooncake JSON config (vLLM's, LMCache's and Mooncake's
 * keys plus ours) into a {@link MooncakeConfig}. The rules and defaults are documented, key by key,
 * in {@code docs/configuration.md}.
 */
public final class MooncakeConfigReader {
  static final String DEFAULT_PROTOCOL = Protocols.TCP;
  static final String DEFAULT_LOCAL_HOSTNAME = "127.0.0.1";

  /** vLLM's default segment and buffer: what a real Mooncake deployment contributes per process. */
  static final long MOONCAKE_DEFAULT_SIZE = 4L << 30;

  /** The in-process store is a development and test store: small bounds, not 4 GiB of RAM each. */
  static final long IN_PROCESS_DEFAULT_SEGMENT = 256L << 20;

  static final long IN_PROCESS_DEFAULT_BUFFER = 64L << 20;
  static final int DEFAULT_NUM_WORKERS = 4;
  static final int DEFAULT_ASYNC_WORKERS = 8;
  static final int DEFAULT_ASYNC_MAX_IN_FLIGHT = 1024;
  static final long DEFAULT_OPERATION_TIMEOUT_MS = 30_000;

  private MooncakeConfigReader() {}

  public static MooncakeConfig read(ObjectNode root, String source, ConfigWarnings warnings) {
    ConfigObject config =
        new ConfigObject(root, "", new ConfigContext(source, readStrict(root, source), warnings));
    config.value("strict");
    // LMCache's adapter keys: "type" names its adapter ("mooncake_store"); accepted, not used.
    config.value("type");

    String master =
        aliased(config, "master_server_address", "master_server_addr", config::string).orElse("");
    Backend backend =
        config
            .string("backend")
            .map(v -> backend(config, v))
            .orElse(master.isEmpty() ? Backend.IN_PROCESS : Backend.MOONCAKE);
    Mode mode = config.string("mode").map(v -> mode(config, v)).orElse(Mode.EMBEDDED);
    String metadataServer = config.string("metadata_server", "");
    Optional<String> explicitProtocol = config.string("protocol").map(String::strip);
    String protocol = explicitProtocol.orElse(DEFAULT_PROTOCOL);
    String device = aliased(config, "device_name", "rdma_devices", config::stringOrList).orElse("");
    Optional<String> localHostname = config.string("local_hostname").map(String::strip);
    long globalSegmentSize =
        config.size("global_segment_size").orElse(defaultSegmentSize(backend, mode));
    long localBufferSize = config.size("local_buffer_size").orElse(defaultBufferSize(backend));
    offload(config);
    MooncakeConfig.NativeSettings nativeSettings = nativeSettings(config);
    MooncakeConfig.NativeLog nativeLog =
        config
            .object("native_log")
            .map(MooncakeConfigReader::nativeLog)
            .orElse(MooncakeConfig.NativeLog.DEFAULT);
    String tenantId =
        check(
            config,
            "tenant_id",
            TenantIds::normalize,
            config.string("tenant_id", TenantIds.DEFAULT));
    String library = config.string("library").map(v -> library(config, v)).orElse(null);
    int numWorkers =
        positive(config, "num_workers", config.integer("num_workers").orElse(DEFAULT_NUM_WORKERS));
    Map<String, Integer> perOpWorkers =
        config.object("per_op_workers").map(MooncakeConfigReader::perOpWorkers).orElse(Map.of());
    boolean singleCallsOnLanes = config.bool("single_calls_on_lanes", false);
    int asyncWorkers =
        positive(
            config, "async_workers", config.integer("async_workers").orElse(DEFAULT_ASYNC_WORKERS));
    int asyncMaxInFlight =
        positive(
            config,
            "async_max_in_flight",
            config.integer("async_max_in_flight").orElse(DEFAULT_ASYNC_MAX_IN_FLIGHT));
    ReplicaSettings replica = replica(config);
    long timeoutMillis =
        config.durationMillis("operation_timeout_ms").orElse(DEFAULT_OPERATION_TIMEOUT_MS);
    if (timeoutMillis <= 0) {
      throw config.error("operation_timeout_ms", "must be > 0 milliseconds");
    }
    EvictionSettings eviction =
        config
            .object("eviction")
            .map(MooncakeConfigReader::eviction)
            .orElse(EvictionSettings.DEFAULT);
    List<String> allowList = allowList(config);
    Consistency consistency = consistency(config, backend);
    long lockSegmentSize =
        LockSegmentRules.size(
            config, config.size("lock_segment_size"), backend, mode, consistency.level());
    String masterMetrics =
        LockSegmentRules.metricsAddress(
            config, config.string("master_metrics_address"), consistency.level());
    Map<String, CacheDefinition> caches =
        config.object("caches").map(MooncakeConfigReader::caches).orElse(Map.of());
    String eventsEndpoint =
        config
            .string("events_endpoint")
            .map(v -> check(config, "events_endpoint", EventsEndpoint::check, v.strip()))
            .orElse(null);
    config.finish();
    if (eventsEndpoint == null) {
      for (CacheDefinition cache : caches.values()) {
        if (cache.nearCache() != null) {
          throw config
              .context()
              .error(
                  "caches." + cache.name() + ".near_cache",
                  "needs events_endpoint: a near cache is kept fresh by the master's KV events (start"
                      + " mooncake_master with --enable_kv_events --kv_events_bind_endpoint=tcp://..."
                      + " --kv_events_backend_id=..., and set events_endpoint to that address)");
        }
      }
    }

    String hostname = localHostname.orElse(DEFAULT_LOCAL_HOSTNAME);

    MooncakeConfig settings =
        MooncakeConfig.builder()
            .source(source)
            .backend(backend)
            .mode(mode)
            .metadataServer(metadataServer.strip())
            .masterServerAddress(master)
            .protocol(protocol)
            .deviceName(device.strip())
            .localHostname(hostname)
            .globalSegmentSize(globalSegmentSize)
            .localBufferSize(localBufferSize)
            .nativeSettings(nativeSettings)
            .tenantId(tenantId)
            .library(library)
            .numWorkers(numWorkers)
            .perOpWorkers(perOpWorkers)
            .singleCallsOnLanes(singleCallsOnLanes)
            .asyncWorkers(asyncWorkers)
            .asyncMaxInFlight(asyncMaxInFlight)
            .replica(replica)
            .operationTimeout(Duration.ofMillis(timeoutMillis))
            .eviction(eviction)
            .deserializationAllowList(allowList)
            .caches(caches)
            .strict(config.context().strict())
            .consistency(consistency)
            .nativeLog(nativeLog)
            .eventsEndpoint(eventsEndpoint)
            .lockSegmentSize(lockSegmentSize)
            .masterMetricsAddress(masterMetrics)
            .build();
    ConfigRules.check(config, settings, explicitProtocol.isPresent(), localHostname.isPresent());
    checkConsistency(config, settings);
    LockSegmentRules.checkPoolNamed(
        config, lockSegmentSize, replica.preferredSegments(), masterMetrics);
    return settings;
  }

  private static boolean readStrict(ObjectNode root, String source) {
    JsonNode strict = root.get("strict");
    if (strict == null || strict.isNull()) {
      return false;
    }
    if (!strict.isBoolean()) {
      throw new ConfigException(
          ConfigContext.message(
              source,
              "strict",
              "must be a JSON boolean (true or false), not " + ConfigObject.describe(strict)));
    }
    return strict.booleanValue();
  }

  /** Two spellings of one key (vLLM's and Mooncake's): either may be given, both only if equal. */
  private static Optional<String> aliased(
      ConfigObject config, String key, String alias, Function<String, Optional<String>> reader) {
    Optional<String> primary = reader.apply(key).map(String::strip);
    Optional<String> secondary = reader.apply(alias).map(String::strip);
    if (primary.isPresent() && secondary.isPresent() && !primary.get().equals(secondary.get())) {
      throw config.error(
          alias,
          "'"
              + secondary.get()
              + "' conflicts with "
              + key
              + " '"
              + primary.get()
              + "'; they are two spellings of one setting: give one");
    }
    return primary.or(() -> secondary);
  }

  private static Backend backend(ConfigObject config, String value) {
    return spelled(config, "backend", "backend", Backend.values(), Backend::configValue, value);
  }

  private static Mode mode(ConfigObject config, String value) {
    return spelled(config, "mode", "Mooncake mode", Mode.values(), Mode::configValue, value);
  }

  /**
   * The choice whose config spelling is {@code value} (spaces around it ignored), else an error
   * about {@code key} that names the spellings.
   */
  private static <E> E spelled(
      ConfigObject config,
      String key,
      String what,
      E[] choices,
      Function<E, String> spelling,
      String value) {
    for (E choice : choices) {
      if (spelling.apply(choice).equals(value.strip())) {
        return choice;
      }
    }
    String use =
        Arrays.stream(choices)
            .map(c -> "\"" + spelling.apply(c) + "\"")
            .collect(Collectors.joining(" or "));
    throw config.error(key, "unknown " + what + " '" + value + "'; use " + use);
  }

  private static long defaultSegmentSize(Backend backend, Mode mode) {
    if (mode == Mode.STANDALONE_STORE) {
      return 0; // the only valid value: a separate client process owns the pool
    }
    return backend == Backend.IN_PROCESS ? IN_PROCESS_DEFAULT_SEGMENT : MOONCAKE_DEFAULT_SIZE;
  }

  private static long defaultBufferSize(Backend backend) {
    return backend == Backend.IN_PROCESS ? IN_PROCESS_DEFAULT_BUFFER : MOONCAKE_DEFAULT_SIZE;
  }

  private static String library(ConfigObject config, String value) {
    if (value.isBlank()) {
      throw config.error(
          "library",
          "is empty; leave the key out to use $MOONCAKE_STORE_LIBRARY or the loader's search path");
    }
    return value.strip();
  }

  private static int positive(ConfigObject config, String key, int value) {
    if (value <= 0) {
      throw config.error(key, "must be > 0, not " + value);
    }
    return value;
  }

  private static Map<String, Integer> perOpWorkers(ConfigObject lanes) {
    Map<String, Integer> workers = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : lanes.entries().entrySet()) {
      String lane = entry.getKey();
      if (!MooncakeConfig.LANES.contains(lane)) {
        throw lanes.error(
            lane,
            "unknown lane; per_op_workers takes only " + String.join(", ", MooncakeConfig.LANES));
      }
      if (entry.getValue().isNull()) {
        continue;
      }
      workers.put(
          lane, positive(lanes, entry.getKey(), lanes.toInt(entry.getKey(), entry.getValue())));
    }
    return Collections.unmodifiableMap(workers);
  }

  private static ReplicaSettings replica(ConfigObject config) {
    int replicaNum = config.integer("replica_num").orElse(1);
    if (replicaNum < 1) {
      throw config.error(
          "replica_num", "must be >= 1, not " + replicaNum + " (Mooncake rejects 0 replicas)");
    }
    boolean softPin = config.bool("with_soft_pin", false);
    boolean hardPin = config.bool("with_hard_pin", false);
    Duration softPinTtl =
        config.durationMillis("soft_pin_ttl").map(Duration::ofMillis).orElse(null);
    if (softPinTtl != null && softPinTtl.toMillis() <= 0) {
      throw config.error("soft_pin_ttl", "must be at least 1 ms, not " + softPinTtl.toMillis());
    }
    if (softPinTtl != null && !softPin) {
      throw config.error(
          "soft_pin_ttl", "needs with_soft_pin: true (Mooncake takes a TTL only for a soft pin)");
    }
    List<String> segments = config.stringList("preferred_segments").orElse(List.of());
    List<String> cleaned = new ArrayList<>();
    for (int i = 0; i < segments.size(); i++) {
      String segment = segments.get(i).strip();
      if (segment.isEmpty()) {
        throw config
            .context()
            .error(
                config.path("preferred_segments") + "[" + i + "]",
                "is empty; name a segment (a client's host name)");
      }
      cleaned.add(segment);
    }
    if (!cleaned.isEmpty() && config.string("value_placement").isPresent()) {
      throw config.error(
          "value_placement",
          "conflicts with preferred_segments, which places values itself; remove one");
    }
    return new ReplicaSettings(
        replicaNum, softPin, hardPin, List.copyOf(cleaned), softPinTtl, valuePlacement(config));
  }

  /** {@code value_placement}: {@code "own-segment"} or {@code "any-segment"}. */
  private static MooncakeConfig.ValuePlacement valuePlacement(ConfigObject config) {
    String value = config.string("value_placement").map(String::strip).orElse(null);
    if (value == null) {
      return MooncakeConfig.ValuePlacement.DEFAULT;
    }
    for (MooncakeConfig.ValuePlacement placement : MooncakeConfig.ValuePlacement.values()) {
      if (placement.configValue().equals(value)) {
        return placement;
      }
    }
    throw config.error(
        "value_placement",
        "unknown placement '"
            + value
            + "'; use \"own-segment\" (this JVM's segment) or \"any-segment\" (the master"
            + " places values across every segment)");
  }

  /**
   * vLLM's enable_offload asks for Mooncake's SSD tier. Only the process that owns a segment can
   * offload it (its FileStorage writes the files), and the C ABI's setup cannot turn that on for an
   * app JVM; a mooncake_client pool can, and this provider then reads its SSD-resident values like
   * any other (docs/pool.md, measured in OffloadOnRealMooncakeTest). So the key is refused, naming
   * the flags that do it.
   */
  private static void offload(ConfigObject config) {
    if (config.bool("enable_offload", false)) {
      throw config.error(
          "enable_offload",
          "true cannot be done by this JVM: SSD offload is a flag of the process that owns the"
              + " pool, which Mooncake's C ABI cannot set. Start the pool with `mooncake_client"
              + " --enable_offload=true` and MOONCAKE_OFFLOAD_FILE_STORAGE_PATH=<an existing"
              + " directory>, the master with `mooncake_master --enable_offload=true`, use"
              + " mode standalone-store here, and remove enable_offload (or set it to false):"
              + " values the pool offloaded are then served from its SSD through this provider"
              + " (docs/pool.md)");
    }
  }

  private static MooncakeConfig.NativeSettings nativeSettings(ConfigObject config) {
    String abi =
        config.string("abi").map(v -> v.strip().toLowerCase(java.util.Locale.ROOT)).orElse(null);
    if (abi != null && !List.of("v1", "v2", "v3").contains(abi)) {
      throw config.error(
          "abi",
          "must be v1, v2 or v3 (the replicate_config layout of the Mooncake"
              + " library; see docs/native-bridge.md), not '"
              + abi
              + "'");
    }
    MooncakeConfig.EtcdTls tls =
        config.object("etcd_tls").map(MooncakeConfigReader::etcdTls).orElse(null);
    return abi == null && tls == null
        ? MooncakeConfig.NativeSettings.DEFAULT
        : new MooncakeConfig.NativeSettings(abi, tls);
  }

  private static MooncakeConfig.NativeLog nativeLog(ConfigObject log) {
    String level =
        log.string("level", MooncakeConfig.NativeLog.DEFAULT.level())
            .strip()
            .toUpperCase(java.util.Locale.ROOT);
    String destination =
        log.string("destination", MooncakeConfig.NativeLog.DEFAULT.destination()).strip();
    log.finish();
    if (!MooncakeConfig.NativeLog.LEVELS.contains(level)) {
      throw log.error(
          "level",
          "unknown Mooncake log level '"
              + level
              + "'; use "
              + String.join(", ", MooncakeConfig.NativeLog.LEVELS)
              + (level.equals("WARN") ? " (glog spells it WARNING)" : ""));
    }
    String lower = destination.toLowerCase(java.util.Locale.ROOT);
    if (lower.equals("slf4j") || lower.equals("stderr")) {
      destination = lower;
    } else if (!destination.startsWith("/")) {
      throw log.error(
          "destination",
          "must be \"slf4j\" (forward to the logger mooncake.native),"
              + " \"stderr\" (Mooncake's own output) or an absolute directory path, not '"
              + destination
              + "'");
    }
    return new MooncakeConfig.NativeLog(level, destination);
  }

  private static MooncakeConfig.EtcdTls etcdTls(ConfigObject tls) {
    String ca = tls.string("ca_file", "").strip();
    String cert = tls.string("cert_file", "").strip();
    String key = tls.string("key_file", "").strip();
    tls.finish();
    if (ca.isEmpty()) {
      throw tls.error("ca_file", "is required: the CA certificate that signs the etcd server's");
    }
    if (cert.isEmpty() != key.isEmpty()) {
      throw tls.error(
          cert.isEmpty() ? "cert_file" : "key_file",
          "cert_file and key_file go together (the client certificate and its key)");
    }
    return new MooncakeConfig.EtcdTls(ca, cert, key);
  }

  /**
   * {@code consistency} ({@code cluster} by default on Mooncake), {@code lock_lease_ms}, {@code
   * client_ttl_ms} and {@code lock_keep_idle_ms}. The in-process store belongs to one JVM, so there
   * local locks already reach every user: it always runs {@code local}. A Mooncake client without a
   * segment of its own has nowhere to put locks that die with it: {@code cluster} is refused there.
   */
  private static Consistency consistency(ConfigObject config, Backend backend) {
    Consistency.Level level =
        config
            .string("consistency")
            .map(v -> level(config, v))
            .orElse(
                backend == Backend.MOONCAKE ? Consistency.Level.CLUSTER : Consistency.Level.LOCAL);
    long ttl =
        config.durationMillis("client_ttl_ms").orElse(Consistency.DEFAULT_CLIENT_TTL.toMillis());
    long lease =
        config.durationMillis("lock_lease_ms").orElse(Consistency.DEFAULT_LOCK_LEASE.toMillis());
    if (ttl <= 0) {
      throw config.error("client_ttl_ms", "must be > 0 milliseconds (the master's --client_ttl)");
    }
    if (lease <= 0) {
      throw config.error("lock_lease_ms", "must be > 0 milliseconds");
    }
    long ping = Consistency.PING_INTERVAL.toMillis();
    if (lease >= ttl - ping) {
      throw config.error(
          "lock_lease_ms",
          lease
              + " ms must be below client_ttl_ms ("
              + ttl
              + " ms) minus Mooncake's "
              + ping
              + " ms ping interval: a paused holder's lock can"
              + " vanish that soon, and the lease must end first");
    }
    long keepIdle = config.durationMillis("lock_keep_idle_ms").orElse(0L);
    if (keepIdle < 0 || keepIdle >= lease) {
      throw config.error(
          "lock_keep_idle_ms",
          keepIdle
              + " ms must be >= 0 (0: keep no lock after its operation) and below lock_lease_ms ("
              + lease
              + " ms): a kept lock is released by 3/4 of its lease anyway");
    }
    if (backend == Backend.IN_PROCESS) {
      level = Consistency.Level.LOCAL;
    }
    return new Consistency(
        level, Duration.ofMillis(lease), Duration.ofMillis(ttl), Duration.ofMillis(keepIdle));
  }

  /**
   * After the mode rules: {@code cluster} on a client without a segment of its own is refused. A
   * {@code standalone-store} client has one: its lock segment ({@code lock_segment_size}).
   */
  private static void checkConsistency(ConfigObject config, MooncakeConfig settings) {
    long segment = settings.contributedSegmentSize();
    Consistency.Level level = settings.consistency().level();
    if (level == Consistency.Level.CLUSTER && segment == 0) {
      throw config.error(
          "consistency",
          "\"cluster\" (the default for backend mooncake) needs a"
              + " client that contributes a segment of its own (mode \"embedded\","
              + " global_segment_size > 0, or mode \"standalone-store\" with its lock segment):"
              + " cluster locks live there, so that they go with a holder that dies. This client"
              + " contributes none (mode "
              + settings.mode().configValue()
              + ", global_segment_size "
              + settings.globalSegmentSize()
              + "). Set \"consistency\": \"local\" to accept"
              + " per-key atomicity within one JVM only (docs/cluster-consistency.md)");
    }
  }

  private static Consistency.Level level(ConfigObject config, String value) {
    for (Consistency.Level level : Consistency.Level.values()) {
      if (level.configValue().equals(value.strip())) {
        return level;
      }
    }
    throw config.error(
        "consistency",
        "unknown consistency '"
            + value
            + "'; use \"cluster\" (every JVM of the cluster) or \"local\" (this JVM only)");
  }

  private static EvictionSettings eviction(ConfigObject eviction) {
    double highWatermark =
        ratio(eviction, "high_watermark_ratio", EvictionSettings.DEFAULT.highWatermarkRatio());
    double evictionRatio =
        ratio(eviction, "eviction_ratio", EvictionSettings.DEFAULT.evictionRatio());
    eviction.finish();
    return new EvictionSettings(highWatermark, evictionRatio);
  }

  private static double ratio(ConfigObject config, String key, double defaultValue) {
    double value = config.number(key).orElse(defaultValue);
    if (!(value > 0 && value <= 1)) {
      throw config.error(key, "must be in (0, 1], not " + value);
    }
    return value;
  }

  private static List<String> allowList(ConfigObject config) {
    List<String> patterns = config.stringList("deserialization_allow_list").orElse(List.of());
    List<String> checked = new ArrayList<>();
    for (int i = 0; i < patterns.size(); i++) {
      checked.add(
          check(
              config.context(),
              config.path("deserialization_allow_list") + "[" + i + "]",
              AllowListPatterns::validate,
              patterns.get(i).strip()));
    }
    return List.copyOf(checked);
  }

  private static Map<String, CacheDefinition> caches(ConfigObject caches) {
    Map<String, CacheDefinition> definitions = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : caches.entries().entrySet()) {
      String name = entry.getKey();
      if (name.isBlank()) {
        throw caches.error(name, "a cache name cannot be empty");
      }
      ConfigObject cache =
          caches
              .object(name)
              .orElseThrow(() -> caches.error(name, "must be a JSON object describing the cache"));
      definitions.put(name, CacheDefinitionReader.read(name, cache));
    }
    return Collections.unmodifiableMap(definitions);
  }

  /**
   * Runs a value check that throws IllegalArgumentException, turning it into an error on the key.
   */
  static <T> T check(ConfigObject config, String key, Function<String, T> rule, String value) {
    return check(config.context(), config.path(key), rule, value);
  }

  static <T> T check(ConfigContext context, String path, Function<String, T> rule, String value) {
    try {
      return rule.apply(value);
    } catch (IllegalArgumentException e) {
      throw context.error(path, e.getMessage());
    }
  }
}
