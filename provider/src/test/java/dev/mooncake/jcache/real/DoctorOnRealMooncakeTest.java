package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.doctor.ConfigDoctor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config doctor on the production topology over a real Mooncake: a {@code standalone-store} +
 * {@code cluster} config names the pool as missing while no {@code mooncake_client} runs, and
 * passes every check (pool mounted with room, lock segment, lock round trip) once one does. Own
 * master on port 50101 so that no other test's segments count as a pool. Skips, saying why, without
 * MOONCAKE_* or the netns wrapper.
 */
class DoctorOnRealMooncakeTest {
  private static final int PORT = 50101;

  @TempDir Path dir;

  @BeforeEach
  void available() {
    RealMooncake.assumeAvailable();
    StandalonePool.assumeAvailable();
  }

  @Test
  void namesTheMissingPoolThenPassesWithOne() throws Exception {
    try (RealMaster master = RealMaster.start(PORT, dir.resolve("master.log"))) {
      Path config = dir.resolve("standalone.json");
      Files.writeString(
          config,
          """
          {"backend": "mooncake", "mode": "standalone-store", "consistency": "cluster",
           "lock_segment_size": "16MB", "master_metrics_address": "127.0.0.1:%d",
           "master_server_address": "127.0.0.1:%d", "metadata_server": "%s",
           "protocol": "tcp", "local_hostname": "127.0.0.1", "global_segment_size": 0,
           "local_buffer_size": "16MB", "operation_timeout_ms": 10000, "tenant_id": "doctor"}
          """
              .formatted(master.metricsPort(), PORT, RealMooncake.metadataServer(PORT)));

      Run without = doctor(config);
      System.out.println("[doctor, no pool]\n" + without.output);
      assertEquals(ConfigDoctor.TOPOLOGY, without.code, without.output);
      assertTrue(without.output.contains("MISSING pool: no pool segment is mounted"));
      assertTrue(without.last().startsWith("FAILED topology: missing pool"), without.output);

      try (StandalonePool pool =
          StandalonePool.start(
              "64MB", dir.resolve("pool.log"), PORT, master.metricsPort(), Map.of(), List.of())) {
        Run with = doctor(config);
        System.out.println("[doctor, pool " + pool.segment() + "]\n" + with.output);
        assertEquals(ConfigDoctor.OK, with.code, with.output);
        assertTrue(with.output.contains("pool     " + pool.segment() + " mounted: 64.0 MiB"));
        assertTrue(with.output.contains("lock     taken and released in "), with.output);
        assertEquals("OK", with.last(), with.output);
      }
    }
  }

  private record Run(int code, String output) {
    String last() {
      String out = output.strip();
      return out.substring(out.lastIndexOf('\n') + 1);
    }
  }

  private static Run doctor(Path config) {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    int code =
        new ConfigDoctor(new PrintStream(printed, true, StandardCharsets.UTF_8), System::getenv)
            .run(new String[] {config.toString()});
    return new Run(code, printed.toString(StandardCharsets.UTF_8));
  }
}
