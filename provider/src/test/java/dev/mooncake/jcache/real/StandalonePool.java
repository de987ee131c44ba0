package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A {@code mooncake_client} process ({@code $MOONCAKE_CLIENT}): Mooncake's standalone pool, which
 * owns the memory that {@code standalone-store} clients put their values into. Started against the
 * loopback master of test-support/netns/bin/java; its segment name (host:port, the port chosen at
 * its start under P2PHANDSHAKE) is read off the master's {@code /get_all_segments}.
 */
final class StandalonePool implements AutoCloseable {
  /** The wrapper's master: RPC port 50051, metrics (admin HTTP) port 9003. */
  static final int MASTER_PORT = 50051;

  static final int METRICS_PORT = 9003;

  /** The config member that has app JVMs find the pool through the master's metrics port. */
  static final String DISCOVER = "\"master_metrics_address\": \"127.0.0.1:9003\"";

  /** How long the pool may take to mount its segment: a few hundred ms measured, plus slack. */
  private static final long MOUNT_BOUND_MS = 30_000;

  private final Process process;
  private final String segment;

  private StandalonePool(Process process, String segment) {
    this.process = process;
    this.segment = segment;
  }

  /**
   * Skips the calling test, saying why, unless a real Mooncake is available and {@code
   * MOONCAKE_CLIENT} names the binary.
   */
  static void assumeAvailable() {
    RealMooncake.assumeAvailable();
    assumeTrue(
        System.getenv("MOONCAKE_CLIENT") != null,
        "skipped: standalone-store tests need MOONCAKE_CLIENT (the mooncake_client binary,"
            + " Mooncake's standalone pool process)");
  }

  /** Starts a pool of {@code size} (e.g. "256MB") and waits until its segment is mounted. */
  static StandalonePool start(String size, Path log) throws Exception {
    return start(size, log, 50052);
  }

  /**
   * The same on another {@code --port} (its RPC port, which also names its IPC socket): two pools
   * on one host need two ports, else the second aborts at start ("Failed to bind UDS socket").
   */
  static StandalonePool start(String size, Path log, int port) throws Exception {
    return start(size, log, port, MASTER_PORT, METRICS_PORT, Map.of(), List.of());
  }

  /**
   * A pool on the default port started as an application would (environment() untouched: it gets
   * this JVM's live C environment, where an open store's native_log once left MC_LOG_DIR, with
   * which mooncake_client aborts at start).
   */
  static StandalonePool startWithInheritedEnvironment(String size, Path log) throws Exception {
    return start(size, log, 50052, MASTER_PORT, METRICS_PORT, null, List.of());
  }

  /** A pool on the default {@code --port} (50052) under the master on {@code masterPort}. */
  static StandalonePool start(
      String size,
      Path log,
      int masterPort,
      int metricsPort,
      Map<String, String> extraEnvironment,
      List<String> flags)
      throws Exception {
    return start(size, log, 50052, masterPort, metricsPort, extraEnvironment, flags);
  }

  /**
   * A pool of {@code size} on {@code port} under the master on {@code masterPort} (admin HTTP on
   * {@code metricsPort}), with {@code extraEnvironment} added to its environment (null: the
   * environment is not touched) and {@code flags} to its command line (SSD offload: {@code
   * --enable_offload=true} and MOONCAKE_OFFLOAD_*).
   */
  static StandalonePool start(
      String size,
      Path log,
      int port,
      int masterPort,
      int metricsPort,
      Map<String, String> extraEnvironment,
      List<String> flags)
      throws Exception {
    Set<String> before = segments(metricsPort);
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            System.getenv("MOONCAKE_CLIENT"),
            "--host=127.0.0.1",
            "--port=" + port,
            "--global_segment_size=" + size,
            "--local_buffer_size=64MB",
            "--master_server_address=127.0.0.1:" + masterPort,
            "--metadata_server=" + RealMooncake.metadataServer(masterPort),
            "--protocol=tcp"));
    command.addAll(flags);
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    if (extraEnvironment != null) {
      builder.environment().put("MC_LOG_LEVEL", "WARNING");
      builder.environment().putAll(extraEnvironment);
    }
    Process process = builder.start();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MOUNT_BOUND_MS);
    while (System.nanoTime() < deadline && process.isAlive()) {
      Set<String> added = new HashSet<>(segments(metricsPort));
      added.removeAll(before);
      if (added.size() == 1) {
        return new StandalonePool(process, added.iterator().next());
      }
      TimeUnit.MILLISECONDS.sleep(100); // another process's state: nothing to wait on
    }
    process.destroyForcibly().waitFor();
    throw new AssertionError(
        "mooncake_client mounted no segment within "
            + MOUNT_BOUND_MS
            + " ms; its log: "
            + Files.readString(log));
  }

  /** The pool's segment name, as preferred_segments takes it. */
  String segment() {
    return segment;
  }

  /** The pool process's pid, to stop and resume it. */
  long pid() {
    return process.pid();
  }

  /**
   * The config of an app JVM in {@code standalone-store} + {@code cluster} with a 16 MiB lock
   * segment that finds the pool through the master's metrics port ({@code master_metrics_address}).
   */
  static String appConfig(String tenant) {
    return appConfig(tenant, DISCOVER);
  }

  /** The same with another way to the pool: {@code placement} is one JSON member. */
  static String appConfig(String tenant, String placement) {
    return """
        {
          "backend": "mooncake",
          "mode": "standalone-store",
          "consistency": "cluster",
          "lock_segment_size": "16MB",
          %s,
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "%s",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": 0,
          "local_buffer_size": "16MB",
          "operation_timeout_ms": 20000,
          "tenant_id": "%s"
        }
        """
        .formatted(placement, RealMooncake.metadataServer(), tenant);
  }

  /** The segments the master has mounted now. */
  static Set<String> segments() throws IOException, InterruptedException {
    return segments(METRICS_PORT);
  }

  /** The segments the master with admin HTTP on {@code metricsPort} has mounted now. */
  static Set<String> segments(int metricsPort) throws IOException, InterruptedException {
    return admin(metricsPort, "/get_all_segments")
        .lines()
        .map(String::strip)
        .filter(line -> !line.isEmpty())
        .collect(Collectors.toSet());
  }

  /** Bytes allocated in {@code segment}, from the master's metrics (0 when it has none yet). */
  static long allocatedIn(String segment) throws IOException, InterruptedException {
    return allocatedIn(METRICS_PORT, segment);
  }

  /** The same from the master with admin HTTP on {@code metricsPort}. */
  static long allocatedIn(int metricsPort, String segment)
      throws IOException, InterruptedException {
    String prefix = "segment_allocated_bytes{segment=\"" + segment + "\"} ";
    List<String> lines =
        admin(metricsPort, "/metrics").lines().filter(l -> l.startsWith(prefix)).toList();
    return lines.isEmpty()
        ? 0
        : (long) Double.parseDouble(lines.get(0).substring(prefix.length()).strip());
  }

  private static String admin(int metricsPort, String path)
      throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + path))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
