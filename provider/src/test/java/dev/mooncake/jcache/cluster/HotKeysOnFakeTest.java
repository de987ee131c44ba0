package dev.mooncake.jcache.cluster;

import static org.junit.jupiter.api.Assertions.assertNull;

import dev.mooncake.jcache.internal.event.remote.FakeEventRelay;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link HotKeysScenarios} on the fake library's cross-process mode, with its event file relayed as
 * the master's KV events ({@link FakeEventRelay}, as in {@code ClusterEventsOnFakeTest}).
 */
class HotKeysOnFakeTest extends HotKeysScenarios {
  private final String run = ProcessHandle.current().pid() + "-" + System.nanoTime();
  private final Path table = Path.of("/dev/shm", "mcj-hot-" + run);
  private final Path events = Path.of("/dev/shm", "mcj-hot-" + run + ".events");
  private final FakeEventRelay relay;

  HotKeysOnFakeTest() throws IOException {
    relay = Files.isDirectory(Path.of("/dev/shm")) ? new FakeEventRelay(events) : null;
  }

  @Override
  protected void assumeAvailable() {
    MultiJvmOnFakeTest.assumeFake();
  }

  @Override
  protected String configJson(String settings) {
    return """
        {
          "backend": "mooncake",
          "library": "%s",
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": "16MB",
          "local_buffer_size": "8MB",
          "consistency": "cluster",
          %s
        }
        """
        .formatted(System.getProperty("mooncake.fixture.library"), settings);
  }

  @Override
  protected Map<String, String> environment() {
    return Map.of(
        "MCJ_FAKE_SHARED",
        table.toString(),
        "MCJ_FAKE_EVENTS",
        events.toString(),
        "MCJ_FAKE_EVENTS_BACKEND_ID",
        "fake-hot-keys");
  }

  @Override
  protected String eventsEndpoint() {
    return relay == null ? null : relay.endpoint();
  }

  @AfterAll
  void removeFiles() throws Exception {
    if (relay != null) {
      relay.close();
      assertNull(relay.failure(), "the relay failed");
    }
    Files.deleteIfExists(events);
    MultiJvmOnFakeTest.removeTable(table);
  }
}
