package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.testing.ChildJava;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mooncake's lines logged while a store closes (its teardown: the fake, like Mooncake 3b5a594, logs
 * "removeSegmentDesc <host> finish" when a client is destroyed) reach SLF4J ({@code
 * mooncake.native}) by the time the close returns, and when the provider's shutdown hook closes the
 * store: the store drains the forwarding itself instead of leaving it to the forwarding thread's
 * next wake-up or to the JVM's other hooks, which run at the same time as its own. In a child JVM
 * over the fake library (the log settings are applied once per process).
 */
class NativeLogsOnCloseTest {
  private static final String TEARDOWN = "INFO mooncake.native - transfer_metadata.cpp:583]";

  @TempDir Path dir;

  private String run(String mode) throws Exception {
    Path config = dir.resolve("logs-" + mode + ".json");
    Files.writeString(config, Fake.configJson("logs", ", \"native_log\": {\"level\": \"INFO\"}"));
    List<String> command =
        List.of(
            ChildJava.java(),
            ChildJava.NATIVE_ACCESS,
            "-Dmooncake.jcache.clientLingerMillis=0", // the manager's close destroys the client
            "-Dorg.slf4j.simpleLogger.logFile=System.out",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-Dorg.slf4j.simpleLogger.log.mooncake.native=info",
            "-cp",
            System.getProperty("java.class.path"),
            NativeLogsOnCloseChild.class.getName(),
            URI.create(config.toUri().toString()).toString(),
            mode);
    Process child = new ProcessBuilder(command).start();
    CompletableFuture<String> out = ChildJava.readAll(child.getInputStream());
    CompletableFuture<String> err = ChildJava.readAll(child.getErrorStream());
    assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the child did not exit");
    String output = out.get(10, TimeUnit.SECONDS) + "\nSTDERR\n" + err.get(10, TimeUnit.SECONDS);
    assertEquals(0, child.exitValue(), output);
    return output;
  }

  @Test
  void theTeardownsLinesAreForwardedBeforeCloseReturns() throws Exception {
    String output = run("close");
    int teardown = output.indexOf(TEARDOWN);
    int closed = output.indexOf("CLOSED");
    assertTrue(teardown >= 0 && closed > teardown, "forwarded before close returned: " + output);
  }

  @Test
  void theTeardownsLinesAreForwardedWhenTheShutdownHookClosesTheStore() throws Exception {
    // The manager stays open and nobody closes it: the hook closes the store at once, next to the
    // JVM's other hooks (the forwarding's own among them), and drains what the teardown logged.
    String output = run("exit");
    assertTrue(output.contains(TEARDOWN), "the hook's close forwarded its lines: " + output);
  }
}
