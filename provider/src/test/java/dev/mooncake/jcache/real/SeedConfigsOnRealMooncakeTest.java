package dev.mooncake.jcache.real;

import dev.mooncake.jcache.config.SeedConfigsScenarios;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The seeds' example configs on a real Mooncake ({@link SeedConfigsScenarios}), against a master of
 * this test's own with Mooncake's HTTP metadata server ({@code --enable_http_metadata_server}), as
 * LMCache's examples name one. Its transfer engine needs a non-loopback address, which the
 * namespace's veth pair gives (test-support/netns/bin/java).
 */
class SeedConfigsOnRealMooncakeTest extends SeedConfigsScenarios {
  private static final int MASTER_PORT = 50131;
  private static final int METADATA_PORT = 8131;

  private Process master;

  @Override
  protected void assumeAvailable() {
    RealMooncake.assumeAvailable();
  }

  @BeforeEach
  void startMaster() throws Exception {
    master =
        RealMooncake.startMaster(
            MASTER_PORT,
            dir,
            "master.log",
            "--enable_http_metadata_server",
            "--http_metadata_server_host=127.0.0.1",
            "--http_metadata_server_port=" + METADATA_PORT);
  }

  @AfterEach
  void stopMaster() throws Exception {
    if (master != null) {
      master.destroy();
      master.waitFor();
    }
  }

  @Override
  protected Map<String, String> addresses() {
    return Map.of(
        "node01", "127.0.0.1",
        "localhost:8080", "127.0.0.1:" + METADATA_PORT,
        "localhost:50051", "127.0.0.1:" + MASTER_PORT);
  }

  @Override
  protected Map<String, String> environment() {
    return Map.of("MC_LOG_LEVEL", "WARNING");
  }
}
