package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.testing.ChildJava;
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
 * The provider's shutdown hook closes the shared Mooncake client only after the managers that are
 * being closed: by a hook it is told of (mooncake.jcache.shutdownAwaitThreads; Spring's by default,
 * see the Spring sample's GracefulShutdownTest), or by a close already running. It never waits for
 * a hook it is not told of. Run in child JVMs over the fake library ({@link ShutdownOrderChild}).
 */
class ShutdownOrderTest {
  /**
   * Longer than any exit here, even on a loaded machine; the grace is longer still, so a hook that
   * waited for the grace's end instead of the manager's close fails the wait for the exit.
   */
  private static final long EXIT_WITHIN_SECONDS = 120;

  private static final String GRACE_MILLIS = "600000";

  private static final String CLOSED = "JVM shutdown: closed the client";

  @TempDir Path dir;

  /** A finished child JVM: its output and exit code. */
  private record Child(String output, int exit, long millis) {}

  private Child run(String mode, String... options) throws Exception {
    List<String> command = ChildJava.command();
    command.addAll(List.of(options));
    command.addAll(
        List.of(
            "--add-opens=java.base/java.lang=ALL-UNNAMED", // the child finds the provider's hook
            "-cp",
            System.getProperty("java.class.path"),
            ShutdownOrderChild.class.getName(),
            Configs.fake(dir, "shutdown", "").toString(),
            mode));
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
  void lateRequestsInAnAwaitedHookSucceedAndTheClientClosesAfterItsManager() throws Exception {
    Child child =
        run(
            "hook",
            "-Dmooncake.jcache.shutdownGraceMillis=" + GRACE_MILLIS,
            "-Dmooncake.jcache.shutdownAwaitThreads=" + ShutdownOrderChild.APP_HOOK);
    System.out.println(child.output());
    System.out.printf("shutdown order: child exited %d in %d ms%n", child.exit(), child.millis());
    assertTrue(child.output().contains("LATE OK 50"), child.output());
    assertTrue(
        child
            .output()
            .contains("waiting up to 600000 ms while thread " + ShutdownOrderChild.APP_HOOK),
        "the hook did not wait: " + child.output());
    assertTrue(child.output().contains(CLOSED), child.output());
    assertEquals(0, child.exit()); // within EXIT_WITHIN_SECONDS: not at the grace's end
  }

  @Test
  void aHookTheProviderIsNotToldOfIsNotWaitedFor() throws Exception {
    // Its manager is one the provider cannot know will be closed: the client closes at once.
    Child child = run("hook", "-Dmooncake.jcache.shutdownGraceMillis=" + GRACE_MILLIS);
    assertTrue(
        child.output().contains("LATE FAILED after 0") && child.output().contains(CLOSED),
        child.output());
    assertEquals(0, child.exit());
  }

  @Test
  void withoutTheGraceTheHookClosesTheClientUnderAnAwaitedHook() throws Exception {
    // grace 0: the hook never waits; proves the first test can fail.
    Child child =
        run(
            "hook",
            "-Dmooncake.jcache.shutdownGraceMillis=0",
            "-Dmooncake.jcache.shutdownAwaitThreads=" + ShutdownOrderChild.APP_HOOK);
    assertTrue(
        child.output().contains("LATE FAILED after 0") && child.output().contains(CLOSED),
        child.output());
  }

  @Test
  void aManagerBeingClosedAtExitClosesBeforeTheClient() throws Exception {
    Child child = run("closing", "-Dmooncake.jcache.shutdownGraceMillis=" + GRACE_MILLIS);
    System.out.println(child.output());
    System.out.printf("closing at exit: child exited %d in %d ms%n", child.exit(), child.millis());
    assertTrue(
        child.output().contains("waiting up to 600000 ms while a cache manager is closing")
            && child.output().contains("HOOK WAITS FOR THE CLOSE"),
        "the hook did not wait for the close: " + child.output());
    assertTrue(child.output().contains(CLOSED), child.output());
    String ownLines = ChildJava.withoutJvmWarnings(child.output()); // the JDK's are not ours
    assertTrue(!ownLines.contains("WARN") && !ownLines.contains("ERROR"), child.output());
    assertEquals(0, child.exit()); // within EXIT_WITHIN_SECONDS: not at the grace's end
  }

  @Test
  void withoutTheGraceTheClientClosesUnderAManagerBeingClosed() throws Exception {
    // proves the test above can fail
    Child child = run("closing", "-Dmooncake.jcache.shutdownGraceMillis=0");
    assertTrue(child.output().contains("HOOK CLOSED THE CLIENT UNDER THE CLOSE"), child.output());
  }
}
