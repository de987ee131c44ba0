package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM holding a Mooncake store whose cache managers nobody closes is stopped as {@code docker
 * stop} stops a container (the signal, SIGKILL 10 s later): it must exit within 2 s, its shutdown
 * hooks run and the provider's hook closing the client (so the segment leaves the master at once,
 * not at {@code client_ttl}), and never need the KILL. Over the fake library, with the provider's
 * default shutdown settings; {@code real.RealPromptExitTest} does the same on a real Mooncake.
 */
public class PromptExitTest {
  /**
   * The contract's bound. The hook's own work here is a few ms, a JVM's teardown ~100 ms; the rest
   * is slack for this loaded 2-core machine. The wait the hook had before (10 s, for the managers
   * nobody closes) fails it by far, as does docker stop's KILL.
   */
  public static final long EXIT_WITHIN_MILLIS = 2_000;

  @TempDir Path dir;

  @Test
  void sigtermWithManagersNeverClosedExitsWithin2Seconds() throws Exception {
    assertPromptExit("TERM", 143);
  }

  @Test
  void sigintWithManagersNeverClosedExitsWithin2Seconds() throws Exception {
    CtrlC.assumeDeliverable();
    assertPromptExit("INT", 130);
  }

  /**
   * The same with lock keeping on: the child's write keeps its cluster lock, and the keeper's sweep
   * thread runs; neither may hold the exit (the lock goes with the client's segment).
   */
  @Test
  void sigtermWithAKeptClusterLockExitsWithin2Seconds() throws Exception {
    assertPromptExit("TERM", 143, "\"lock_keep_idle_ms\": 1000");
  }

  private void assertPromptExit(String signal, int exitCode) throws Exception {
    assertPromptExit(signal, exitCode, "");
  }

  private void assertPromptExit(String signal, int exitCode, String extra) throws Exception {
    DockerStop child =
        DockerStop.start(
            SignalledChild.class, List.of(), Configs.fake(dir, "exit", extra).toString());
    DockerStop.Stopped stopped = child.stop(signal);
    System.out.printf(
        "SIG%s, managers never closed (fake): exit %d after %d ms%n",
        signal, stopped.exitCode(), stopped.millis());
    assertPromptExit(signal, exitCode, stopped);
  }

  /** A docker stop that needed no KILL, with every hook run and the client closed by ours. */
  public static void assertStoppedWithHooks(
      String signal, int exitCode, DockerStop.Stopped stopped) {
    assertFalse(
        stopped.killed(),
        "the JVM still ran "
            + DockerStop.KILL_AFTER_MILLIS
            + " ms after SIG"
            + signal
            + ": docker stop would have killed it: "
            + stopped.output());
    assertEquals(exitCode, stopped.exitCode(), stopped.output().toString());
    assertTrue(
        stopped.printed("HOOK-RAN"), "the child's own hook did not run: " + stopped.output());
    assertTrue(
        stopped.logged("JVM shutdown: closed the client"),
        "the provider's hook did not close the client: " + stopped.output());
  }

  private static void assertPromptExit(String signal, int exitCode, DockerStop.Stopped stopped) {
    assertStoppedWithHooks(signal, exitCode, stopped);
    assertTrue(
        stopped.millis() <= EXIT_WITHIN_MILLIS,
        "the JVM exited "
            + stopped.millis()
            + " ms after SIG"
            + signal
            + "; the bound is "
            + EXIT_WITHIN_MILLIS
            + " ms (the hook's work and the JVM's teardown take a few hundred ms at most; the"
            + " rest is slack for a loaded machine, and a hook waiting for managers nobody"
            + " closes takes 10 s): "
            + stopped.output());
  }
}
