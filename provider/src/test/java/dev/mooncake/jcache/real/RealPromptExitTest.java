package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.reliability.CtrlC;
import dev.mooncake.jcache.reliability.DockerStop;
import dev.mooncake.jcache.reliability.PromptExitTest;
import dev.mooncake.jcache.reliability.SignalledChild;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PromptExitTest} on a real Mooncake (profile real-mooncake; skipped with the reason
 * otherwise): a JVM holding a store whose managers nobody closes, stopped as {@code docker stop}
 * does, never needs the KILL, runs its hooks, and its segment has left the master by the time it
 * exited (the master's own metrics: one more unmount, its capacity smaller by the segment), not
 * {@code client_ttl} later. The provider's part of the exit is bounded by 2 s as on the fake; the
 * whole exit also holds Mooncake's destroy of the client, which the hook logs and which is bounded
 * by {@link #MOONCAKE_DESTROY_MILLIS}.
 */
class RealPromptExitTest {
  /**
   * Mooncake 3b5a594's destroy joins threads that sleep in 1 s steps, one after another: the
   * dummy-client monitor (real_client.cpp), then the task poll and the ping heartbeat
   * (client_service.cpp; these two sleep side by side), unmounts the segment, then the handshake
   * listener, whose accept() wakes once a second (SO_RCVTIMEO, transfer_metadata_plugin.cpp).
   * Measured 0.2-3.0 s over 39 stops; 4 s is four steps in a row.
   */
  static final long MOONCAKE_DESTROY_MILLIS = 4_000;

  private static final Pattern DESTROY = Pattern.compile("destroy of the client took (\\d+) ms");

  private static final long SEGMENT_BYTES = 128L << 20; // RealMooncake.config's segment

  @TempDir Path dir;

  @BeforeEach
  void cluster() {
    RealMooncake.assumeAvailable();
  }

  @Test
  void sigtermWithManagersNeverClosedExitsWithin2sBesidesMooncakesDestroyAndUnmountsItsSegment()
      throws Exception {
    assertPromptExit("TERM", 143);
  }

  @Test
  void sigintWithManagersNeverClosedExitsWithin2sBesidesMooncakesDestroyAndUnmountsItsSegment()
      throws Exception {
    CtrlC.assumeDeliverable();
    assertPromptExit("INT", 130);
  }

  private void assertPromptExit(String signal, int exitCode) throws Exception {
    Path config = RealMooncake.config(dir, "exit-" + UUID.randomUUID());
    // The counts below are differences over the stop: a segment of a JVM an earlier test killed,
    // dropped at client_ttl meanwhile, would count as the child's. This JVM holds none (its
    // managers are closed, clientLingerMillis 0).
    RealMooncake.awaitNoDepartedSegments(0);
    DockerStop child =
        DockerStop.start(
            SignalledChild.class,
            List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=info"),
            config.toUri().toString());
    long unmountsBefore = RealMooncake.metric("master_unmount_segment_requests_total");
    long capacityBefore = RealMooncake.mountedBytes();
    DockerStop.Stopped stopped = child.stop(signal);
    long unmounts = RealMooncake.metric("master_unmount_segment_requests_total") - unmountsBefore;
    long capacity = RealMooncake.mountedBytes() - capacityBefore;
    long destroy =
        stopped.output().stream()
            .map(DESTROY::matcher)
            .filter(Matcher::find)
            .mapToLong(m -> Long.parseLong(m.group(1)))
            .findFirst()
            .orElse(-1);
    System.out.printf(
        "SIG%s, managers never closed (real Mooncake): exit %d after %d ms, of which Mooncake's"
            + " destroy %d ms; at the exit the master had %d more unmount(s) and %d bytes less"
            + " capacity%n",
        signal, stopped.exitCode(), stopped.millis(), destroy, unmounts, -capacity);
    PromptExitTest.assertStoppedWithHooks(signal, exitCode, stopped);
    assertTrue(destroy >= 0, "the hook did not say how long the destroy took: " + stopped.output());
    assertTrue(
        stopped.millis() - destroy <= PromptExitTest.EXIT_WITHIN_MILLIS,
        "the JVM exited "
            + stopped.millis()
            + " ms after SIG"
            + signal
            + ", "
            + (stopped.millis() - destroy)
            + " ms of it outside Mooncake's destroy; the bound for that part is "
            + PromptExitTest.EXIT_WITHIN_MILLIS
            + " ms (the hook's work and the JVM's teardown take a few hundred ms at most; the rest"
            + " is slack for a loaded machine): "
            + stopped.output());
    assertTrue(
        stopped.millis() <= PromptExitTest.EXIT_WITHIN_MILLIS + MOONCAKE_DESTROY_MILLIS,
        "the JVM exited "
            + stopped.millis()
            + " ms after SIG"
            + signal
            + "; the bound is "
            + (PromptExitTest.EXIT_WITHIN_MILLIS + MOONCAKE_DESTROY_MILLIS)
            + " ms: 2 s for the provider and the JVM, 4 s for Mooncake's destroy (four 1 s"
            + " sleep steps): "
            + stopped.output());
    assertEquals(1, unmounts, "the segment was not unmounted by the exit: " + stopped.output());
    assertEquals(
        -SEGMENT_BYTES, capacity, "the master still counts the segment: " + stopped.output());
  }
}
