package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mooncake.jcache.testing.ChildJava;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs {@link Soak} in a JVM of its own: a fixed, pre-touched 768 MB heap, so that resident memory
 * measures only what lives outside the heap. {@code -Dsoak.seconds=N} sets the length per backend
 * (default 45: 90 s in CI for both); bench/soak.sh runs it for minutes.
 */
class SoakTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "fake"})
  void soak(String backend) throws Exception {
    long seconds = Long.getLong("soak.seconds", 45);
    assertEquals(0, run(backend, seconds, dir), "the soak failed; its output is above");
  }

  /**
   * The same on a real Mooncake: runs only inside test-support/netns with a real library and master
   * (the real-mooncake execution; {@code bench/soak.sh SECONDS real}), skipped otherwise.
   */
  @Test
  void soakOnRealMooncake() throws Exception {
    assumeTrue(
        System.getenv("MOONCAKE_STORE_LIBRARY") != null
            && System.getenv("MOONCAKE_MASTER") != null
            && System.getenv("MCJ_IN_NETNS") != null,
        "skipped: the real-Mooncake soak needs MOONCAKE_STORE_LIBRARY, MOONCAKE_MASTER and the"
            + " network namespace of test-support/netns (mvn verify -Preal-mooncake"
            + " -Dmooncake.real.tests=dev.mooncake.jcache.reliability.SoakTest#soakOnRealMooncake)");
    long seconds = Long.getLong("soak.seconds", 45);
    assertEquals(0, run("real", seconds, dir), "the soak failed; its output is above");
  }

  static int run(String backend, long seconds, Path dir) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                ChildJava.java(),
                ChildJava.NATIVE_ACCESS,
                "-Xms768m",
                "-Xmx768m",
                "-XX:+AlwaysPreTouch",
                "-Dmooncake.fixture.library="
                    + (backend.equals("fake") ? Configs.fakeLibrary() : ""),
                "-Dmooncake.jcache.clientLingerMillis=0",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                System.getProperty("java.class.path"),
                Soak.class.getName(),
                backend,
                Long.toString(seconds),
                dir.toString()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    Thread copier =
        new Thread(
            () -> {
              try (var lines =
                  new java.io.BufferedReader(
                      new java.io.InputStreamReader(
                          process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
                lines.lines().forEach(System.out::println);
              } catch (java.io.IOException e) {
                System.out.println("soak output: " + e);
              }
            },
            "soak-output");
    copier.start();
    if (!process.waitFor(seconds + 120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the soak JVM did not end within " + (seconds + 120) + " s");
    }
    copier.join();
    return process.exitValue();
  }
}
