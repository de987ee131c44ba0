package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
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
  @TempDir Path dir;

  @Test
  void withoutTheGraceTheHookClosesTheClientUnderTheLateRequests() throws Exception {
    // The behaviour before the fix, kept reachable by the property: proves the test above can fail.
    Process child = new ProcessBuilder(command("0")).redirectErrorStream(true).start();
    String output;
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(
                child.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
      output = lines.lines().collect(Collectors.joining("\n"));
    }
    assertTrue(child.waitFor(60, TimeUnit.SECONDS));
    assertTrue(output.contains("LATE FAILED after 0") && output.contains("closed"), output);
  }

  private List<String> command(String grace) {
    return List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dmooncake.jcache.shutdownGraceMillis=" + grace,
        "-Dmooncake.fixture.library=" + Configs.fakeLibrary(),
        "-Dmooncake.jcache.clientLingerMillis=0",
        "-cp",
        System.getProperty("java.class.path"),
        ShutdownOrderChild.class.getName(),
        Configs.fake(dir, "shutdown", "").toString());
  }

  @Test
  void lateRequestsDuringShutdownSucceedAndTheClientClosesAfterTheLastManager() throws Exception {
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Dmooncake.jcache.shutdownGraceMillis=10000",
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
        new BufferedReader(
            new InputStreamReader(
                child.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
      output = lines.lines().collect(Collectors.joining("\n"));
    }
    assertTrue(child.waitFor(60, TimeUnit.SECONDS));
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.println(output);
    System.out.printf("shutdown order: child exited %d in %d ms%n", child.exitValue(), millis);
    assertTrue(output.contains("LATE OK 50"), output);
    assertTrue(output.contains("waiting up to"), "the hook did not wait: " + output);
    assertEquals(0, child.exitValue());
    assertTrue(millis < 9_000, "the client closed at the grace's end, not after the manager");
  }
}
