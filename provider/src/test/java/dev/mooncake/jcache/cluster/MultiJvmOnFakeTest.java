package dev.mooncake.jcache.cluster;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;

/**
 * The multi-JVM scenarios over the fake library's cross-process mode: one object table in a
 * shared-memory file, segments that go when their process dies or misses heartbeats for {@code
 * MCJ_FAKE_CLIENT_TTL_MS} (3 s here, so the pause test is short).
 */
class MultiJvmOnFakeTest extends MultiJvmScenarios {
  static final long CLIENT_TTL_MS = 3000;
  private final Path table =
      Path.of("/dev/shm", "mcj-cluster-" + ProcessHandle.current().pid() + "-" + System.nanoTime());

  @Override
  protected void assumeAvailable() {
    assumeFake();
  }

  /** Skips, saying why, without the fake library or /dev/shm (its cross-process table). */
  static void assumeFake() {
    assumeTrue(
        System.getProperty("mooncake.fixture.library") != null,
        "skipped: mooncake.fixture.library (the fake libmooncake_store.so) is not set");
    assumeTrue(Files.isDirectory(Path.of("/dev/shm")), "skipped: no /dev/shm");
  }

  @Override
  protected String configJson() {
    return """
        {
          "backend": "mooncake",
          "library": "%s",
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "16MB",
          "local_buffer_size": "8MB",
          "operation_timeout_ms": 20000,
          "consistency": "cluster",
          "client_ttl_ms": %d,
          "lock_lease_ms": 1500
        }
        """
        .formatted(System.getProperty("mooncake.fixture.library"), CLIENT_TTL_MS);
  }

  @Override
  protected Map<String, String> environment() {
    return environment(table);
  }

  /** The fake's cross-process mode on {@code table}, with the short client TTL. */
  static Map<String, String> environment(Path table) {
    return Map.of(
        "MCJ_FAKE_SHARED",
        table.toString(),
        "MCJ_FAKE_CLIENT_TTL_MS",
        Long.toString(CLIENT_TTL_MS));
  }

  /** The fake's client TTL + 2 s slack for a loaded machine. */
  @Override
  protected Duration deathBound() {
    return Duration.ofMillis(CLIENT_TTL_MS + 2000);
  }

  @AfterAll
  void removeTable() throws IOException {
    removeTable(table);
  }

  /** Deletes a cross-process table and its value files. */
  static void removeTable(Path table) throws IOException {
    Files.deleteIfExists(table);
    Path values = Path.of(table + ".values");
    if (Files.isDirectory(values)) {
      try (Stream<Path> files = Files.walk(values)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
