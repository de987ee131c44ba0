package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.doctor.ConfigDoctor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config doctor over the fake library: every step printed and timed on a good config, and one
 * line naming the failed step and its cause, with that step's exit code, on a bad one.
 */
class ConfigDoctorTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

  @AfterEach
  void reset() {
    Fake.control("reset=1");
  }

  private int doctor(Map<String, String> environment, String... args) {
    PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    return new ConfigDoctor(out, environment::get).run(args);
  }

  private String output() {
    return printed.toString(StandardCharsets.UTF_8);
  }

  private Path config(String json) throws Exception {
    Path file = dir.resolve("mooncake.json");
    Files.writeString(file, json);
    return file;
  }

  private String mooncake(String library, String extra) {
    return """
        {"backend": "mooncake", "library": "%s", "master_server_address": "127.0.0.1:50051",
         "metadata_server": "P2PHANDSHAKE", "protocol": "tcp", "local_hostname": "127.0.0.1",
         "global_segment_size": "16MB", "local_buffer_size": "8MB", "tenant_id": "doctor"%s}
        """
        .formatted(library, extra);
  }

  @Test
  void aGoodConfigPassesEveryStepAndSaysWhereEachSettingCameFrom() throws Exception {
    Path file = config(mooncake(Fake.library(), ""));
    int code = doctor(Map.of("MC_LOG_LEVEL", "WARNING"), file.toString());
    String out = output();
    assertEquals(ConfigDoctor.OK, code, out);
    // first the JVM: its version, and whether it grants the bridge native access (surefire's
    // argLine does; before Java 24 JNI needs no grant)
    assertTrue(
        out.startsWith(
            "java     Java "
                + Runtime.version()
                + " ("
                + System.getProperty("java.vendor")
                + "); native access for the bridge (class path): "
                + (Runtime.version().feature() >= 24 ? "enabled\n" : "not restricted before")),
        out);
    assertTrue(out.contains("config   " + file.toUri()), out);
    assertTrue(out.contains("setting  backend = MOONCAKE  [file (backend)]"), out);
    assertTrue(
        out.contains("setting  master_server_address/master_server_addr = 127.0.0.1:50051  [file"),
        out);
    assertTrue(out.contains("setting  num_workers = 4  [default]"), out);
    assertTrue(out.contains("env      MC_LOG_LEVEL=WARNING"), out);
    assertTrue(out.contains("library  " + Fake.library() + " (from the config's 'library')"), out);
    assertTrue(out.contains("log      Mooncake logs at "), out);
    assertTrue(out.contains("connect  master 127.0.0.1:50051"), out);
    assertTrue(
        out.matches(
            "(?s).*put      [0-9.]+ ms.*get      [0-9.]+ ms \\(value matches\\).*"
                + "remove   [0-9.]+ ms.*"),
        out);
    assertTrue(out.strip().endsWith("OK"), out);
  }

  @Test
  void clusterConsistencyWithoutTheAdminServerIsWarnedAbout() throws Exception {
    doctor(Map.of(), config(mooncake(Fake.library(), ", \"consistency\": \"cluster\"")).toString());
    assertTrue(
        output()
            .contains("WARNING  placement: consistency \"cluster\" without master_metrics_address"),
        output());
    printed.reset();
    doctor(Map.of(), config(mooncake(Fake.library(), ", \"consistency\": \"local\"")).toString());
    assertFalse(output().contains("WARNING  placement"), output());
  }

  @Test
  void theBuiltInDefaultsNeedNoLibrary() {
    int code = doctor(Map.of(), "mooncake:in-process");
    String out = output();
    assertEquals(ConfigDoctor.OK, code, out);
    assertTrue(out.contains("setting  backend = IN_PROCESS  [default]"), out);
    assertTrue(out.contains("library  none needed"), out);
  }

  @Test
  void aLibraryFromTheEnvironmentIsNamedAsSuch() throws Exception {
    Path file =
        config(
            """
        {"backend": "mooncake", "master_server_address": "127.0.0.1:50051",
         "metadata_server": "P2PHANDSHAKE", "global_segment_size": "16MB",
         "local_buffer_size": "8MB"}
        """);
    doctor(Map.of("MOONCAKE_STORE_LIBRARY", Fake.library()), file.toString());
    assertTrue(
        output().contains("[environment (MOONCAKE_STORE_LIBRARY=" + Fake.library() + ")]"),
        output());
  }

  @Test
  void aWrongMetadataSchemeFailsTheConfigStepInOneLine() throws Exception {
    Path file = config(mooncake(Fake.library(), "").replace("P2PHANDSHAKE", "zk://127.0.0.1:1"));
    int code = doctor(Map.of(), file.toString());
    assertEquals(ConfigDoctor.CONFIG, code, output());
    assertFailedLine("config", "metadata_server");
  }

  @Test
  void rdmaWithoutADeviceFailsTheConfigStep() throws Exception {
    Path file = config(mooncake(Fake.library(), "").replace("\"tcp\"", "\"rdma\""));
    int code = doctor(Map.of(), file.toString());
    assertEquals(ConfigDoctor.CONFIG, code, output());
    assertFailedLine("config", "needs an RDMA device");
  }

  @Test
  void aMissingLibraryFailsTheLibraryStep() throws Exception {
    Path file = config(mooncake(dir.resolve("nowhere/libmooncake_store.so").toString(), ""));
    int code = doctor(Map.of(), file.toString());
    assertEquals(ConfigDoctor.LIBRARY, code, output());
    assertFailedLine("library", "nowhere/libmooncake_store.so");
  }

  @Test
  void anUnreachableMasterFailsTheConnectStepWithinTheTimeout() throws Exception {
    long clients = Fake.stat("clients");
    Fake.control("setup_delay_ms=4000"); // the fake's stand-in for a master that never answers
    Path file = config(mooncake(Fake.library(), ", \"operation_timeout_ms\": 500"));
    long start = System.nanoTime();
    int code = doctor(Map.of(), file.toString());
    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    assertEquals(ConfigDoctor.CONNECT, code, output());
    assertFailedLine("connect", "500 ms");
    assertTrue(tookMillis < 3500, "took " + tookMillis + " ms");
    // The timed-out client is closed by its setup thread once the delayed setup returns; wait for
    // it, so that later tests counting the fake's clients do not see it go away under them.
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (Fake.stat("clients") > clients && System.nanoTime() < deadline) {
      LockSupport.parkNanos(20_000_000L); // polls the fake's counter; nothing to wait on
    }
    assertEquals(clients, Fake.stat("clients"), "the timed-out client was never closed");
  }

  @Test
  void aMissingFileFailsTheConfigStep() {
    int code = doctor(Map.of(), dir.resolve("absent.json").toString());
    assertEquals(ConfigDoctor.CONFIG, code, output());
    assertFailedLine("config", "absent.json");
  }

  private void assertFailedLine(String step, String mentioned) {
    String out = output();
    String last = out.strip().substring(out.strip().lastIndexOf('\n') + 1);
    assertTrue(last.startsWith("FAILED " + step + ": "), out);
    assertTrue(last.contains(mentioned), out);
    assertEquals(1, out.lines().filter(l -> l.startsWith("FAILED")).count(), out);
  }
}
