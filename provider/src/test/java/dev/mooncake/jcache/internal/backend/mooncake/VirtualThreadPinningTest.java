package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.testing.ChildJava;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a Java 25 JDK ({@code -Dmooncake.java25.home}, default {@code
 * /usr/lib/jvm/temurin-25-jdk-amd64}; skipped, saying so, when it is absent): 200 virtual threads
 * on 2 carriers get values from the fake store, each read taking 2 ms ({@code
 * MCJ_FAKE_READ_DELAY_US}), in a child JVM ({@link VirtualThreadPinningChild}) under JFR, after a
 * first round that loads the classes of the path.
 *
 * <p>With the hand-off no {@code jdk.VirtualThreadPinned} event has a provider frame, and the reads
 * overlap: the run takes far less than the reads' time divided by the carriers; the reads ready
 * together went as batch calls ({@code ReadCoalescer}), under a quarter of a call per get. Without
 * it (control) the native calls hold their carriers: the run takes at least that long. A thread
 * blocked in a JNI call never tries to park, so JFR reports no event for it: the control's proof is
 * the time. That the recording sees pinning at all is shown by a park inside a class initializer.
 */
class VirtualThreadPinningTest {
  private static final int CARRIERS = 2;
  private static final int THREADS = 200;
  private static final int GETS_EACH = 10;
  private static final int READ_DELAY_US = 2000;

  /** What the reads alone take when at most {@link #CARRIERS} are in flight. */
  private static final long PINNED_FLOOR_MS =
      (long) THREADS * GETS_EACH * READ_DELAY_US / 1000 / CARRIERS;

  private static final Pattern RESULT =
      Pattern.compile(
          "RESULT gets=(\\d+) millis=(\\d+) pinnedOurs=(\\d+) pinnedControl=(\\d+)"
              + " getInto=(\\d+) batchGetInto=(\\d+) calls=(\\d+)");

  @TempDir Path dir;

  @Test
  void virtualThreadsDoNotPinTheirCarriersInStoreCalls() throws Exception {
    long[] handedOff = run(true, 30_000);
    long[] inline = run(false, 30_000);
    String both =
        "handed off: "
            + handedOff[1]
            + " ms, inline: "
            + inline[1]
            + " ms, floor with pinned carriers "
            + PINNED_FLOOR_MS
            + " ms";
    assertEquals(0, handedOff[2], "pinned events with a provider frame; " + both);
    assertTrue(inline[1] >= PINNED_FLOOR_MS * 9 / 10, "the control did not pin: " + both);
    assertTrue(handedOff[1] < PINNED_FLOOR_MS / 2, "the reads did not overlap: " + both);
    assertBatched(handedOff);
    assertTrue(handedOff[5] > 0, "no batch_get_into: " + handedOff[4] + " get_into");
    assertEquals(0, inline[5], "inline reads are one call each");
  }

  /**
   * Reads of virtual threads ready together went as batch calls ({@code ReadCoalescer}): the
   * round's {@code THREADS × GETS_EACH} gets made far fewer calls than gets.
   */
  private static void assertBatched(long[] run) {
    long gets = (long) THREADS * GETS_EACH;
    assertTrue(run[6] > 0, "no call counted");
    assertTrue(run[6] < gets / 4, run[6] + " store calls for " + gets + " gets");
  }

  /**
   * Below {@code DIRECT_CALLS_FROM_MS} every call runs on {@code BoundedCalls} already, its caller
   * waiting in {@code Object.wait}, which no longer pins on Java 24 and later (JEP 491).
   */
  @Test
  void boundedCallsDoNotPinEither() throws Exception {
    long[] bounded = run(true, 2_000);
    assertEquals(0, bounded[2], "pinned events with a provider frame");
    assertTrue(
        bounded[1] < PINNED_FLOOR_MS / 2,
        "the reads did not overlap: " + bounded[1] + " ms, floor " + PINNED_FLOOR_MS + " ms");
    assertBatched(bounded);
  }

  /** Answers gets, millis, pinnedOurs, pinnedControl of one child run. */
  private long[] run(boolean handOff, long timeoutMs) throws Exception {
    Path java = ChildJava.java25("virtual threads need Java 21+, the build may run on 17");
    Path config = dir.resolve("vthreads-" + handOff + "-" + timeoutMs + ".json");
    Files.writeString(
        config,
        "{\"backend\": \"mooncake\", \"master_server_address\": \"127.0.0.1:50051\","
            + " \"metadata_server\": \"P2PHANDSHAKE\", \"protocol\": \"tcp\","
            + " \"local_hostname\": \"127.0.0.1\", \"global_segment_size\": \"16MB\","
            // from 10 s (StoreCallRunner.DIRECT_CALLS_FROM_MS) calls are direct, below bounded
            + " \"local_buffer_size\": \"16MB\", \"operation_timeout_ms\": "
            + timeoutMs
            + ","
            + " \"library\": \""
            + Fake.library()
            + "\", \"tenant_id\": \"vthreads\"}");
    List<String> command =
        List.of(
            java.toString(),
            ChildJava.NATIVE_ACCESS,
            "-Djdk.virtualThreadScheduler.parallelism=" + CARRIERS,
            "-Djdk.virtualThreadScheduler.maxPoolSize=" + CARRIERS,
            "-D" + VirtualThreadCalls.SWITCH + "=" + handOff,
            "-Dmooncake.jcache.clientLingerMillis=0",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp",
            System.getProperty("java.class.path"),
            VirtualThreadPinningChild.class.getName(),
            config.toUri().toString(),
            String.valueOf(THREADS),
            String.valueOf(GETS_EACH));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("MCJ_FAKE_READ_DELAY_US", String.valueOf(READ_DELAY_US));
    Process child = builder.start();
    CompletableFuture<String> out = ChildJava.readAll(child.getInputStream());
    CompletableFuture<String> err = ChildJava.readAll(child.getErrorStream());
    assertTrue(child.waitFor(300, TimeUnit.SECONDS), "the child did not exit");
    String output = out.get(10, TimeUnit.SECONDS) + "\nSTDERR\n" + err.get(10, TimeUnit.SECONDS);
    assertEquals(0, child.exitValue(), output);
    Matcher result = RESULT.matcher(output);
    assertTrue(result.find(), output);
    long[] answer = new long[7];
    for (int i = 0; i < answer.length; i++) {
      answer[i] = Long.parseLong(result.group(i + 1));
    }
    System.out.println("hand-off " + handOff + ", timeout " + timeoutMs + " ms: " + result.group());
    assertEquals(THREADS * GETS_EACH, answer[0], output);
    assertTrue(answer[3] > 0, "the recording saw no pinning at all: " + output);
    return answer;
  }
}
