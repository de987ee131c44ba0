package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/** Where the real-Mooncake tests find their cluster, and why they skip when there is none. */
final class RealMooncake {
  /** The wrapper's master's {@code --client_ttl} (its default): a dead client's segment stays. */
  static final long CLIENT_TTL_MS = 10_000;

  /**
   * How long after {@link #CLIENT_TTL_MS} a dead client's segment may still be counted: the
   * master's client monitor sweeps about once a second (measured 10.4-10.8 s from a kill to the
   * drop), the rest is slack for a loaded 2-core machine.
   */
  static final long DROP_SLACK_MS = 5_000;

  /** The metrics of the master test-support/netns/bin/java starts (--metrics_port). */
  private static final URI METRICS = URI.create("http://127.0.0.1:9003/metrics");

  private RealMooncake() {}

  /**
   * Cache {@code name} (String to String) of the default provider's manager for {@code config},
   * created unless another JVM's manager made it first: what the peers of the real tests open.
   */
  static Cache<String, String> stringCache(Path config, String name) {
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(config.toUri(), RealMooncake.class.getClassLoader());
    Cache<String, String> cache = manager.getCache(name, String.class, String.class);
    if (cache == null) {
      cache =
          manager.createCache(
              name,
              new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    }
    return cache;
  }

  /** Skips the calling test, saying why, unless a real Mooncake is available here. */
  static void assumeAvailable() {
    boolean configured =
        System.getenv("MOONCAKE_STORE_LIBRARY") != null && System.getenv("MOONCAKE_MASTER") != null;
    assumeTrue(
        configured,
        "skipped: real-Mooncake tests need MOONCAKE_STORE_LIBRARY (the path of"
            + " libmooncake_store.so) and MOONCAKE_MASTER (the mooncake_master binary)");
    assumeTrue(
        System.getenv("MCJ_IN_NETNS") != null,
        "skipped: real-Mooncake tests run only"
            + " inside a private network namespace with a master on loopback: mvn verify"
            + " -Preal-mooncake (test-support/netns/bin/java)");
  }

  /**
   * A master of a test's own on 127.0.0.1:{@code port} (metrics on {@code port + 1000}, leases of
   * 500 ms), its output in {@code dir/log}; answers once it accepts connections. Inside the test's
   * network namespace a fixed port is safe; a test that restarts it waits for the old one to end.
   * {@code extra} flags follow the usual ones.
   */
  static Process startMaster(int port, Path dir, String log, String... extra) throws Exception {
    Path output = dir.resolve(log);
    List<String> command =
        new ArrayList<>(
            List.of(
                System.getenv("MOONCAKE_MASTER"),
                "--rpc_address=127.0.0.1",
                "--rpc_port=" + port,
                "--metrics_host=127.0.0.1",
                "--metrics_port=" + (port + 1000),
                "--default_kv_lease_ttl=500"));
    command.addAll(List.of(extra));
    if (!command.contains("--enable_http_metadata_server")) {
      command.addAll(httpMetadataFlags(port));
    }
    Process master =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    // 30 s: a master listens within ~100 ms; the rest guards against a master that hangs.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
        return master;
      } catch (IOException notYet) {
        assertTrue(master.isAlive(), "the master exited; see " + output);
        assertTrue(System.nanoTime() < deadline, "the master did not listen within 30 s");
        Thread.sleep(20); // polling another process's socket, not a synchronisation of ours
      }
    }
  }

  /** {@code config}, rewritten to name the master on {@code port} instead of the wrapper's. */
  static Path onMaster(Path config, int port) throws IOException {
    Files.writeString(
        config, Files.readString(config).replace("127.0.0.1:50051", "127.0.0.1:" + port));
    return config;
  }

  /** Sends {@code signal} ({@code -STOP}, {@code -CONT}) to process {@code pid} with kill(1). */
  static void signal(long pid, String signal) throws Exception {
    int rc = new ProcessBuilder("kill", signal, String.valueOf(pid)).start().waitFor();
    assertTrue(rc == 0, "kill " + signal + " " + pid + " answered " + rc);
  }

  /**
   * The metadata server the tests' configs name: the wrapper's master's HTTP metadata server when
   * the run asks for it ({@code MCJ_METADATA=http}: the wrapper exports {@code
   * MCJ_METADATA_SERVER}), else {@code P2PHANDSHAKE}. docs/real-mooncake.md.
   */
  static String metadataServer() {
    return metadataServer(WRAPPER_MASTER_PORT);
  }

  /** The RPC port of the master that test-support/netns/bin/java starts. */
  static final int WRAPPER_MASTER_PORT = 50051;

  /** Whether this run names Mooncake's HTTP metadata server ({@code MCJ_METADATA=http}). */
  static boolean httpMetadata() {
    String http = System.getenv("MCJ_METADATA_SERVER");
    return http != null && !http.isBlank();
  }

  /**
   * The metadata server of the cluster whose master listens on {@code masterPort}: under {@code
   * MCJ_METADATA=http} the wrapper's master serves it on 8080 ({@code MCJ_METADATA_SERVER}), and a
   * test's own master on {@code masterPort - 42000} (50071 → 8071; {@link #httpMetadataFlags}),
   * else {@code P2PHANDSHAKE}.
   */
  static String metadataServer(int masterPort) {
    if (!httpMetadata()) {
      return "P2PHANDSHAKE";
    }
    return masterPort == WRAPPER_MASTER_PORT
        ? System.getenv("MCJ_METADATA_SERVER")
        : "http://127.0.0.1:" + httpMetadataPort(masterPort) + "/metadata";
  }

  /**
   * The flags that make a test's own master on {@code masterPort} serve the HTTP metadata server
   * its clients name ({@link #metadataServer(int)}); none unless {@code MCJ_METADATA=http}.
   */
  static List<String> httpMetadataFlags(int masterPort) {
    if (!httpMetadata()) {
      return List.of();
    }
    return List.of(
        "--enable_http_metadata_server",
        "--http_metadata_server_host=127.0.0.1",
        "--http_metadata_server_port=" + httpMetadataPort(masterPort));
  }

  private static int httpMetadataPort(int masterPort) {
    return masterPort - 42_000;
  }

  /** A config file for the loopback cluster that test-support/netns/bin/java starts. */
  static Path config(Path dir, String tenant) throws IOException {
    return config(dir, tenant, "128MB", 10_000, "");
  }

  /**
   * The same with another segment size and operation timeout; {@code extra} is more JSON members
   * ({@code , "key": value ...}) or "".
   */
  static Path config(Path dir, String tenant, String segment, long operationTimeoutMs, String extra)
      throws IOException {
    Path file = dir.resolve("mooncake-" + tenant + ".json");
    Files.writeString(
        file,
        """
        {
          "backend": "mooncake",
          "mode": "embedded",
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "%s",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "%s",
          "local_buffer_size": "32MB",
          "operation_timeout_ms": %d,
          "tenant_id": "%s"%s
        }
        """
            .formatted(metadataServer(), segment, operationTimeoutMs, tenant, extra));
    return file;
  }

  /**
   * The replicate_config layout of MOONCAKE_STORE_LIBRARY, for configs that hard-pin: {@code
   * MOONCAKE_ABI}, else v2 (Mooncake 3b5a594, the build these tests were measured on).
   */
  static String abi() {
    return System.getenv().getOrDefault("MOONCAKE_ABI", "v2");
  }

  /** One value of the wrapper's master's Prometheus text ({@code name value}). */
  static long metric(String name) throws Exception {
    return metric(METRICS, name);
  }

  /** One value of the Prometheus text of a master whose metrics are on {@code metricsPort}. */
  static long metric(int metricsPort, String name) throws Exception {
    return metric(metrics(metricsPort), name);
  }

  private static URI metrics(int metricsPort) {
    return URI.create("http://127.0.0.1:" + metricsPort + "/metrics");
  }

  private static long metric(URI metrics, String name) throws Exception {
    String body =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return body.lines()
        .filter(line -> line.startsWith(name + " "))
        .mapToLong(line -> (long) Double.parseDouble(line.substring(name.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("the master's metrics have no " + name));
  }

  /** The capacity of every segment the wrapper's master counts as mounted. */
  static long mountedBytes() throws Exception {
    return metric("master_total_capacity_bytes");
  }

  /**
   * Waits until the wrapper's master counts at most {@code bytes} of mounted segments, for at most
   * {@code boundMillis}; answers whether it came to that.
   */
  static boolean awaitMountedAtMost(long bytes, long boundMillis) throws Exception {
    return awaitMountedAtMost(METRICS, bytes, boundMillis);
  }

  /** The same for a master whose metrics are on {@code metricsPort}. */
  static boolean awaitMountedAtMost(int metricsPort, long bytes, long boundMillis)
      throws Exception {
    return awaitMountedAtMost(metrics(metricsPort), bytes, boundMillis);
  }

  /** Polls the master's metrics every 100 ms: another process's state, with no event to wait on. */
  private static boolean awaitMountedAtMost(URI metrics, long bytes, long boundMillis)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
    long mounted = metric(metrics, "master_total_capacity_bytes");
    while (mounted > bytes && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(100);
      mounted = metric(metrics, "master_total_capacity_bytes");
    }
    return mounted <= bytes;
  }

  /**
   * Before a test that counts the master's segments or fills them: waits until no segment but
   * {@code ownBytes} is mounted, at most {@link #CLIENT_TTL_MS} + {@link #DROP_SLACK_MS}, so that a
   * segment of a JVM an earlier test killed (mounted until client_ttl) has left. What is still
   * counted after that belongs to a live process, which does not leave during the test: the test
   * goes on, saying so.
   */
  static void awaitNoDepartedSegments(long ownBytes) throws Exception {
    long bound = CLIENT_TTL_MS + DROP_SLACK_MS;
    if (!awaitMountedAtMost(ownBytes, bound)) {
      System.out.printf(
          "segments of live processes still mounted after %d ms: %d bytes, expected %d%n",
          bound, mountedBytes(), ownBytes);
    }
  }
}
