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
import java.util.concurrent.TimeUnit;

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
          "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "%s",
          "local_buffer_size": "32MB",
          "operation_timeout_ms": %d,
          "tenant_id": "%s"%s
        }
        """
            .formatted(segment, operationTimeoutMs, tenant, extra));
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
    String body =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(METRICS).timeout(Duration.ofSeconds(5)).build(),
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
   * {@code boundMillis}; answers whether it came to that. Polls the master's metrics every 100 ms:
   * another process's state, with no event to wait on.
   */
  static boolean awaitMountedAtMost(long bytes, long boundMillis) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
    long mounted = mountedBytes();
    while (mounted > bytes && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(100);
      mounted = mountedBytes();
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
