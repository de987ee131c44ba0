package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mooncake's log lines under each native log setting, in child JVMs (the settings are applied once
 * per process, before the library is loaded), over the fake store, which writes its lines the way
 * Mooncake does through glog 0.6 (fake_mooncake_glog.c). SLF4J (slf4j-simple) writes to the child's
 * stdout, so its stderr holds only what Mooncake itself printed there.
 */
class NativeLogsTest {
  private static final String BENIGN =
      "transfer_metadata.cpp:1029] Local segment descriptor not found";
  private static final String REAL = "] fake: setup against 127.0.0.1:1 failed: -800";
  private static final String START = "] fake: client 127.0.0.1 set up";

  private record Run(String out, String err) {
    String line(String prefix) {
      return out.lines().filter(l -> l.startsWith(prefix)).findFirst().orElse("");
    }
  }

  private static Run child(Map<String, String> environment, String... args) throws Exception {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command =
        new ArrayList<>(
            List.of(
                // -P aarch64-qemu names its qemu-user wrapper (as for SignalsTest)
                System.getProperty(
                    "mooncake.test.java",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString()),
                NativeAccessTest.CLASS_PATH_FLAG, // as docs/native-bridge.md says
                "-cp",
                classPath,
                "-Dmooncake.fixture.library=" + FakeStore.library(),
                "-Dorg.slf4j.simpleLogger.logFile=System.out",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug",
                "-Dorg.slf4j.simpleLogger.log.dev.mooncake=warn",
                // the child starts `env`: under qemu-user (-P aarch64-qemu) the default
                // posix_spawn runs the JDK's aarch64 jspawnhelper, which the kernel cannot exec
                // without binfmt_misc; vfork execs the host's `env` directly
                "-Djdk.lang.Process.launchMechanism=VFORK",
                NativeLogsChild.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    // the tests assert what the provider does on its own: not under the developer's MC_LOG_LEVEL
    builder.environment().keySet().removeIf(k -> k.startsWith("MC_LOG") || k.startsWith("GLOG_"));
    builder.environment().putAll(environment);
    Process process = builder.start();
    CompletableFuture<String> out = read(process.getInputStream());
    CompletableFuture<String> err = read(process.getErrorStream());
    assertTrue(process.waitFor(180, TimeUnit.SECONDS), "child JVM did not end");
    Run run = new Run(out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
    assertEquals(0, process.exitValue(), () -> "child failed: " + run);
    assertTrue(run.out().contains("SETUP 0 -800"), run::toString);
    return run;
  }

  private static CompletableFuture<String> read(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  private static boolean hasGlogLine(String text) {
    return text.lines().anyMatch(l -> GlogTailer.RECORD.matcher(l).matches());
  }

  @Test
  void theDefaultStartPrintsNothingOnStderrAndRealErrorsReachSlf4j() throws Exception {
    Run run = child(Map.of());
    assertFalse(hasGlogLine(run.err()), () -> "stderr: " + run.err());
    assertFalse(run.err().contains("Local segment descriptor"), run::toString);
    assertTrue(
        run.out().contains("ERROR mooncake.native - client_service.cpp:2" + REAL), run::toString);
    assertTrue(run.out().contains("DEBUG mooncake.native - " + BENIGN), run::toString);
    assertFalse(run.out().contains("ERROR mooncake.native - " + BENIGN), run::toString);
    assertFalse(run.out().contains(START), "WARNING is the default level: " + run);
    assertEquals("LEVEL WARNING", run.line("LEVEL "));
    assertEquals("FORWARDED true", run.line("FORWARDED "));
    String set = run.line("SET ");
    for (String variable :
        List.of(
            "MC_LOG_LEVEL=WARNING",
            "GLOG_minloglevel=1",
            "MC_LOG_DIR=",
            "GLOG_stderrthreshold=3",
            "GLOG_logbufsecs=0")) {
      assertTrue(set.contains(variable), set);
    }
    Path directory = Path.of(run.line("DIRECTORY ").substring("DIRECTORY ".length()));
    assertTrue(
        directory.getFileName().toString().startsWith(NativeLogs.DIRECTORY_PREFIX), run::toString);
    assertFalse(Files.exists(directory), "removed when the child exited: " + directory);
    assertEquals("CHILD_ENV 0 ", run.line("CHILD_ENV "), "nothing of ours reaches a child");
  }

  /**
   * A process started with an untouched environment (ProcessBuilder without environment(),
   * Runtime.exec) gets the live C environment: what the provider set there for the library load
   * reached it. A mooncake_client so started aborted at start (glog initialised twice: it found
   * MC_LOG_DIR), and a child JVM with this provider logged into the parent's directory. The
   * variables are unset once the library is loaded (both setups come after that and are still
   * logged where they should: see the default test).
   */
  @Test
  void aChildProcessSeesOnlyTheUsersVariables(@TempDir Path temp) throws Exception {
    Run run =
        child(Map.of("MC_LOG_DIR", temp.toString(), "GLOG_minloglevel", "0"), "info", "slf4j");
    assertEquals(
        "CHILD_ENV 0 GLOG_minloglevel=0 MC_LOG_DIR=" + temp,
        run.line("CHILD_ENV "),
        "the user's, as they were");
  }

  @Test
  void theUsersMcLogLevelWins() throws Exception {
    Run run = child(Map.of("MC_LOG_LEVEL", "INFO"));
    assertTrue(
        run.out().contains("INFO mooncake.native - client_service.cpp:1" + START), run::toString);
    assertEquals("LEVEL INFO", run.line("LEVEL "));
    assertFalse(run.line("SET ").contains("MC_LOG_LEVEL"), run::toString);
    assertTrue(run.line("SET ").contains("GLOG_minloglevel=0"), run::toString);
    assertFalse(hasGlogLine(run.err()), run::toString);
  }

  @Test
  void theUsersStderrThresholdWinsEvenOnGlog06() throws Exception {
    Run run = child(Map.of("GLOG_stderrthreshold", "2"));
    assertTrue(run.err().contains(REAL), "the user asked for errors on stderr: " + run);
    assertTrue(
        run.out().contains("ERROR mooncake.native - client_service.cpp:2" + REAL), run::toString);
    assertFalse(run.line("SET ").contains("GLOG_stderrthreshold"), run::toString);
  }

  @Test
  void stderrKeepsMooncakesBehaviourWithTheLevelApplied() throws Exception {
    Run run = child(Map.of(), "error", "stderr");
    assertTrue(run.err().contains(BENIGN), run::toString);
    assertTrue(run.err().contains(REAL), run::toString);
    assertFalse(run.err().contains(START), run::toString);
    assertFalse(run.out().contains("mooncake.native -"), run::toString);
    assertEquals("DIRECTORY null", run.line("DIRECTORY "));
  }

  @Test
  void aDirectoryKeepsGlogsFilesAndStderrClean(@TempDir Path temp) throws Exception {
    Path directory = temp.resolve("logs");
    Run run = child(Map.of(), "INFO", directory.toString());
    assertFalse(hasGlogLine(run.err()), run::toString);
    assertFalse(run.out().contains("mooncake.native -"), run::toString);
    assertEquals("FORWARDED false", run.line("FORWARDED "));
    List<Path> info;
    try (Stream<Path> files = Files.list(directory)) {
      info = files.filter(GlogTailer::isInfoFile).toList();
    }
    assertEquals(1, info.size(), () -> "one INFO file: " + info);
    String name = info.get(0).getFileName().toString();
    assertTrue(
        name.matches("mooncake-transfer-engine\\.[^.]+.*\\.log\\.INFO\\.\\d{8}-\\d{6}\\.\\d+"),
        name);
    assertTrue(Files.isSymbolicLink(directory.resolve("mooncake-transfer-engine.INFO")));
    String content = Files.readString(info.get(0));
    assertTrue(
        content.contains(START) && content.contains(BENIGN) && content.contains(REAL), content);
    assertTrue(Files.exists(directory), "a chosen directory is kept");
  }

  @Test
  void theUsersMcLogDirIsKeptAndNotForwarded(@TempDir Path temp) throws Exception {
    Run run = child(Map.of("MC_LOG_DIR", temp.toString()));
    assertEquals("FORWARDED false", run.line("FORWARDED "));
    assertEquals("DIRECTORY " + temp, run.line("DIRECTORY "));
    assertFalse(hasGlogLine(run.err()), run::toString);
    try (Stream<Path> files = Files.list(temp)) {
      assertEquals(1, files.filter(GlogTailer::isInfoFile).count());
    }
  }

  @Test
  void badSettingsAreRefusedNamingTheProblem() {
    IllegalArgumentException level =
        assertThrows(IllegalArgumentException.class, () -> NativeLogs.Settings.of("WARN", "slf4j"));
    assertTrue(level.getMessage().contains("TRACE, INFO, WARNING or ERROR"), level.getMessage());
    assertTrue(level.getMessage().contains("WARNING"), level.getMessage());
    IllegalArgumentException destination =
        assertThrows(IllegalArgumentException.class, () -> NativeLogs.Settings.of("INFO", "logs"));
    assertTrue(destination.getMessage().contains("absolute directory"), destination.getMessage());
    assertEquals(
        new NativeLogs.Settings(NativeLogs.Level.ERROR, "slf4j"),
        NativeLogs.Settings.of(" error ", "SLF4J"));
  }
}
