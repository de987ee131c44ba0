package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the real-Mooncake tests find their cluster, and why they skip when there is none. */
final class RealMooncake {
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
}
