package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a Ctrl-C (SIGINT) can reach a JVM this test starts. A process started as a background job
 * of a shell without job control ({@code mvn verify &} in a script) ignores SIGINT, and the ignore
 * is inherited through exec by every child: there a SIGINT test would test nothing. {@code .ci/run}
 * resets it for CI; a test run from elsewhere skips, saying why.
 */
public final class CtrlC {
  private static final int SIGINT = 2;

  private CtrlC() {}

  /** Skips the calling test when this process ignores SIGINT. */
  public static void assumeDeliverable() {
    assumeFalse(
        ignoredHere(),
        "skipped: SIGINT is ignored in this process (inherited from a shell without job control,"
            + " e.g. `cmd &` in a script), so no Ctrl-C reaches a JVM started from here; run"
            + " from a terminal or through .ci/run");
  }

  /** SIGINT's bit in "SigIgn:" of /proc/self/status; false where there is no /proc. */
  static boolean ignoredHere() {
    try {
      return Files.readAllLines(Path.of("/proc/self/status")).stream()
          .filter(line -> line.startsWith("SigIgn:"))
          .map(line -> Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16))
          .anyMatch(mask -> (mask & (1L << (SIGINT - 1))) != 0);
    } catch (IOException e) {
      return false;
    }
  }
}
