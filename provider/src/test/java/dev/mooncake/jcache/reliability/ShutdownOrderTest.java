package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider's shutdown hook must not close the shared Mooncake client while another hook still
 * uses the cache: it waits for the last cache manager to close (bounded by
 * mooncake.jcache.shutdownGraceMillis). Run in a child JVM over the fake library.
 */
class ShutdownOrderTest {
  /**
   * Longer than any exit here, even on a loaded machine; the grace is longer still, so a hook that
   * waited for the grace's end instead of the manager's close fails the wait for the exit.
   */
  private static final long EXIT_WITHIN_SECONDS = 120;

  private static final String GRACE_MILLIS = "600000";

  @TempDir Path dir;

  /** A finished child JVM: its output and exit code. */
  private record Child(String output, int exit, long millis) {}

  private Child run(String grace) throws Exception {
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Dmooncake.jcache.shutdownGraceMillis=" + grace,
            "--add-opens=java.base/java.lang=ALL-UNNAMED", // the child finds the provider's hook
            "-Dmooncake.fixture.library=" + Configs.fakeLibrary(),
            "-Dmooncake.jcache.clientLingerMillis=0",
            "-cp",
            System.getProperty("java.class.path"),
            ShutdownOrderChild.class.getName(),
            Configs.fake(dir, "shutdown", "").toString());
    long start = System.nanoTime();
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      output = lines.lines().collect(Collectors.joining("\n"));
    }
    assertTrue(
        child.waitFor(EXIT_WITHIN_SECONDS, TimeUnit.SECONDS), "the child did not exit: " + output);
    return new Child(output, child.exitValue(), (System.nanoTime() - start) / 1_000_000);
  }

  @Test
  void withoutTheGraceTheHookClosesTheClientUnderTheLateRequests() throws Exception {
    // The behaviour before the fix, kept reachable by the property: proves the test below can fail.
    Child child = run("0");
    assertTrue(
        child.output().contains("LATE FAILED after 0") && child.output().contains("closed"),
        child.output());
  }

  @Test
  void lateRequestsDuringShutdownSucceedAndTheClientClosesAfterTheLastManager() throws Exception {
    Child child = run(GRACE_MILLIS);
    System.out.println(child.output());
    System.out.printf("shutdown order: child exited %d in %d ms%n", child.exit(), child.millis());
    assertTrue(child.output().contains("LATE OK 50"), child.output());
    assertTrue(
        child.output().contains("waiting up to"), "the hook did not wait: " + child.output());
    assertEquals(0, child.exit()); // within EXIT_WITHIN_SECONDS: not at the grace's end
  }
}
