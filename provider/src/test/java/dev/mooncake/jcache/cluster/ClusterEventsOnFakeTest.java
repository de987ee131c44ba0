package dev.mooncake.jcache.cluster;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mooncake.jcache.internal.event.remote.FakeEventRelay;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;

/**
 * The cluster-events scenarios on the fake library's cross-process mode: every JVM's fake appends
 * the events of its puts, removes and evictions to one file ({@code MCJ_FAKE_EVENTS}, one ordered
 * stream through the shared table's lock), and a {@link FakeEventRelay} in the test JVM publishes
 * them frame for frame as mooncake_master does. Gaps come from the fake's {@code events_drop_next}
 * control; a publisher restart is the relay stopped and started again on its port.
 */
class ClusterEventsOnFakeTest extends ClusterEventsScenarios {
  private final String run = ProcessHandle.current().pid() + "-" + System.nanoTime();
  private final Path table = Path.of("/dev/shm", "mcj-events-" + run);
  private final Path events = Path.of("/dev/shm", "mcj-events-" + run + ".events");
  private FakeEventRelay relay;

  ClusterEventsOnFakeTest() throws IOException {
    relay = Files.isDirectory(Path.of("/dev/shm")) ? new FakeEventRelay(events) : null;
  }

  private static String library() {
    return System.getProperty("mooncake.fixture.library");
  }

  @Override
  protected void assumeAvailable() {
    assumeTrue(
        library() != null,
        "skipped: mooncake.fixture.library (the fake libmooncake_store.so) is not set");
    assumeTrue(relay != null, "skipped: no /dev/shm");
  }

  @Override
  protected String clusterSettings() {
    return """
          "backend": "mooncake",
          "library": "%s",
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "16MB",
          "local_buffer_size": "8MB",
          "operation_timeout_ms": 20000,
          "consistency": "local"\
        """
        .formatted(library());
  }

  @Override
  protected String eventsEndpoint() {
    return relay.endpoint();
  }

  @Override
  protected Map<String, String> environment() {
    return Map.of(
        "MCJ_FAKE_SHARED", table.toString(),
        "MCJ_FAKE_EVENTS", events.toString(),
        "MCJ_FAKE_EVENTS_BACKEND_ID", "fake-events-test");
  }

  @Override
  protected void dropNextEvents(Peer writer, int n) throws InterruptedException {
    ask(writer, "ctl " + library() + " events_drop_next=" + n);
  }

  private long resumeAt;

  @Override
  protected void interruptPublisher() throws InterruptedException {
    resumeAt = relay.stop();
  }

  @Override
  protected void resumePublisher() throws IOException {
    relay = new FakeEventRelay(events, relay.port(), resumeAt);
  }

  @Override
  protected boolean storeWorksWhilePublisherIsAway() {
    return true;
  }

  @AfterAll
  void stopRelay() throws Exception {
    if (relay == null) {
      return;
    }
    relay.close();
    assertNull(relay.failure(), "the relay failed");
    Files.deleteIfExists(events);
    Files.deleteIfExists(table);
    Path values = Path.of(table + ".values");
    if (Files.isDirectory(values)) {
      try (Stream<Path> files = Files.walk(values)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
