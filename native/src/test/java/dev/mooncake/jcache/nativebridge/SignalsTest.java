package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The JVM keeps its signals with a store open. The fake store mimics Mooncake: its first create
 * blocks SIGINT/SIGTERM/SIGHUP/SIGUSR1 in the caller and starts a sigwait() thread unless
 * Py_IsInitialized is visible; on request it also installs a SIGINT handler of its own.
 */
class SignalsTest {
  private static final int SIGHUP = 1;
  private static final int SIGINT = 2;
  private static final int SIGUSR1 = 10;
  private static final int SIGTERM = 15;

  @AfterEach
  void reset() {
    FakeStore.control("reset=1");
  }

  /** The calling thread's blocked signals, from /proc ("SigBlk: ..."). */
  static String blockedSignals() {
    try {
      return Files.readAllLines(Path.of("/proc/thread-self/status")).stream()
          .filter(line -> line.startsWith("SigBlk:"))
          .findFirst()
          .orElse("SigBlk: ?")
          .replace('\t', ' ');
    } catch (IOException e) {
      return "SigBlk: " + e;
    }
  }

  /**
   * Skips unless SIGINT can reach a child: a process started as a background job of a shell without
   * job control ignores it, and its children inherit that (provider's {@code reliability.CtrlC}
   * says the same; {@code .ci/run} resets it).
   */
  private static void assumeCtrlCDeliverable() throws IOException {
    long ignored =
        Files.readAllLines(Path.of("/proc/self/status")).stream()
            .filter(line -> line.startsWith("SigIgn:"))
            .mapToLong(line -> Long.parseUnsignedLong(line.substring(7).trim(), 16))
            .findFirst()
            .orElse(0);
    assumeFalse(
        bit(ignored, SIGINT),
        "skipped: SIGINT is ignored in this process (inherited from a shell without job control),"
            + " so no Ctrl-C reaches a JVM started from here; run from a terminal or .ci/run");
  }

  private static long blockedMask() {
    return Long.parseUnsignedLong(blockedSignals().substring("SigBlk:".length()).trim(), 16);
  }

  private static boolean bit(long mask, int signal) {
    return (mask & (1L << (signal - 1))) != 0;
  }

  @Test
  void theHostProbeKeepsMooncakesSignalThreadFromStarting() {
    try (MooncakeClient client = FakeStore.client(0)) {
      assertTrue(MooncakeLibrary.hostProbeVisible());
      assertEquals(0, FakeStore.stat("signal_thread"), "no sigwait thread in this JVM");
    }
  }

  @Test
  void handlersAndTheCallersMaskAreRestored() {
    FakeStore.control("sigint_handler_on_create=1");
    FakeStore.control("block_on_create=1");
    long handlersBefore = FakeStore.stat("sigint_handler");
    long maskBefore = blockedMask();
    try (MooncakeClient client = MooncakeClient.create(FakeStore.open())) {
      // (every create installs one while the control is on, the probing clients' too)
      assertTrue(FakeStore.stat("sigint_handler") > handlersBefore, "the fake did install one");
      long restored = client.signalsRestored();
      assertTrue(
          (restored & (1L << SIGINT)) != 0, "SIGINT put back: 0x" + Long.toHexString(restored));
      long mask = blockedMask();
      assertEquals(maskBefore, mask, blockedSignals());
      for (int signal : new int[] {SIGHUP, SIGINT, SIGUSR1, SIGTERM}) {
        assertFalse(bit(mask, signal), "signal " + signal + " still blocked: " + blockedSignals());
      }
    }
  }

  private record Outcome(boolean exited, int exitCode, List<String> output) {
    boolean hookRan() {
      return output.contains("HOOK-RAN");
    }
  }

  private static Outcome runChild(
      String signalMode, String signal, boolean fakeInstallsHandler, int waitSeconds)
      throws Exception {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    ProcessBuilder builder =
        new ProcessBuilder(
                // -P aarch64-qemu names its qemu-user wrapper: without binfmt_misc the arm64
                // java of java.home cannot be exec()ed directly
                System.getProperty(
                    "mooncake.test.java",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString()),
                NativeAccessTest.CLASS_PATH_FLAG, // as docs/native-bridge.md says
                "-cp",
                classPath,
                "-Dmooncake.fixture.library=" + FakeStore.library(),
                "-D" + MooncakeClient.SIGNALS_PROPERTY + "=" + signalMode,
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                SignalChild.class.getName())
            .redirectErrorStream(true);
    if (fakeInstallsHandler) {
      builder.environment().put("FAKE_MC_SIGINT_HANDLER", "1");
    }
    Process process = builder.start();
    List<String> output = java.util.Collections.synchronizedList(new ArrayList<>());
    CountDownLatch ready = new CountDownLatch(1);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  output.add(line);
                  if (line.startsWith("READY")) {
                    ready.countDown();
                  }
                }
              } catch (IOException ignored) {
                // the process is gone
              }
            });
    reader.setDaemon(true);
    reader.start();
    try {
      assertTrue(ready.await(30, TimeUnit.SECONDS), () -> "child never got ready: " + output);
      Process kill =
          new ProcessBuilder("sh", "-c", "kill -" + signal + " " + process.pid())
              .inheritIO()
              .start();
      assertEquals(0, kill.waitFor());
      boolean exited = process.waitFor(waitSeconds, TimeUnit.SECONDS);
      if (exited) {
        reader.join(5000);
      }
      return new Outcome(exited, exited ? process.exitValue() : -1, new ArrayList<>(output));
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void ctrlCRunsTheShutdownHooks() throws Exception {
    assumeCtrlCDeliverable();
    Outcome outcome = runChild("jvm", "INT", true, 20);
    assertTrue(outcome.exited(), () -> "SIGINT swallowed: " + outcome.output());
    assertEquals(130, outcome.exitCode(), () -> outcome.output().toString());
    assertTrue(outcome.hookRan(), () -> outcome.output().toString());
    String ready =
        outcome.output().stream().filter(l -> l.startsWith("READY")).findFirst().orElseThrow();
    assertTrue(ready.contains("signal_thread=0"), ready);
    assertFalse(ready.contains("sigint_handler=0"), ready);
  }

  @Test
  void sigtermRunsTheShutdownHooks() throws Exception {
    Outcome outcome = runChild("jvm", "TERM", false, 20);
    assertTrue(outcome.exited(), () -> outcome.output().toString());
    assertEquals(143, outcome.exitCode(), () -> outcome.output().toString());
    assertTrue(outcome.hookRan(), () -> outcome.output().toString());
  }

  /** The control: without the bridge's countermeasures the fake takes Ctrl-C away from the JVM. */
  @Test
  void withoutTheCountermeasuresCtrlCIsLost() throws Exception {
    assumeCtrlCDeliverable(); // else the hazard would "show" whatever the fake does
    Outcome outcome = runChild("mooncake", "INT", true, 4);
    String ready =
        outcome.output().stream().filter(l -> l.startsWith("READY")).findFirst().orElseThrow();
    assertTrue(ready.contains("signal_thread=1"), ready);
    assertFalse(
        outcome.exited() && outcome.hookRan(),
        () -> "the hazard did not show: " + outcome.output());
  }
}
