package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mooncake.jcache.cluster.FakePool;
import dev.mooncake.jcache.internal.entry.IntegrityChecksForTests;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The fake library's cross-process mode as a history cluster, as {@code MultiJvmOnFakeTest} uses
 * it: a fresh shared table in /dev/shm per run, client TTL 3 s (a killed JVM is dropped at once, by
 * its pid; a paused one after the TTL), lease 1.5 s. Live clients are the table's, asked through a
 * peer (the table is reachable only from a process that has {@code MCJ_FAKE_SHARED}).
 */
final class FakeHistoryCluster implements HistoryCluster {
  static final long CLIENT_TTL_MS = 3000;

  /**
   * How long the fake's reads wait between finding an object and copying it (outside its lock, as a
   * real transfer copies): the window in which a forced remove and a put of the same size class
   * hand the reader another object's bytes, as on a real Mooncake. {@code
   * -Dhistory.fakeReadDelayUs}; a fake without reused blocks ignores it.
   */
  static final long READ_DELAY_US = Long.getLong("history.fakeReadDelayUs", 1000);

  /** Whether the peers read values with the checksum and owner checks off (the control). */
  private final boolean valueChecksOff;

  FakeHistoryCluster() {
    this(false);
  }

  FakeHistoryCluster(boolean valueChecksOff) {
    this.valueChecksOff = valueChecksOff;
  }

  private final Path table =
      Path.of("/dev/shm", "mcj-history-" + ProcessHandle.current().pid() + "-" + System.nanoTime());

  static void assumeAvailable() {
    assumeTrue(
        System.getProperty("mooncake.fixture.library") != null,
        "skipped: mooncake.fixture.library (the fake libmooncake_store.so) is not set");
    assumeTrue(Files.isDirectory(Path.of("/dev/shm")), "skipped: no /dev/shm");
  }

  private static String library() {
    return System.getProperty("mooncake.fixture.library");
  }

  @Override
  public String config(String consistency, String localHostname, String extra) {
    return """
        {
          "backend": "mooncake",
          "library": "%s",
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp",
          "local_hostname": "%s",
          "global_segment_size": "16MB",
          "local_buffer_size": "8MB",
          "operation_timeout_ms": 20000,
          "consistency": "%s",
          "client_ttl_ms": %d,
          "lock_lease_ms": 1500%s
        }
        """
        .formatted(library(), localHostname, consistency, CLIENT_TTL_MS, extra);
  }

  /** The fake pool of the standalone topology, while one runs. */
  private FakePool.Started pool;

  @Override
  public boolean hasPool() {
    return true;
  }

  /**
   * A {@link FakePool} of 64 MiB, and the app config {@code StandaloneMultiJvmOnFakeTest} uses: its
   * segment preferred, a lock segment of 16 MiB per app JVM. A replaced pool has another name (the
   * fake names it after its pid): puts then fall back to the oldest live segment with room, as the
   * fake places them, which holds for linearizability (a value put after the loss is kept).
   */
  @Override
  public String startPoolAndConfigure(String consistency, String extra) throws Exception {
    startPool();
    return """
        {
          "backend": "mooncake",
          "library": "%s",
          "mode": "standalone-store",
          "global_segment_size": 0,
          "lock_segment_size": "16MB",
          "preferred_segments": ["%s"],
          "master_server_address": "127.0.0.1:50051",
          "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "local_buffer_size": "8MB",
          "operation_timeout_ms": 20000,
          "consistency": "%s",
          "client_ttl_ms": %d,
          "lock_lease_ms": 1500%s
        }
        """
        .formatted(library(), pool.segment(), consistency, CLIENT_TTL_MS, extra);
  }

  @Override
  public void startPool() throws Exception {
    pool = FakePool.start("pool", 64L << 20, environment());
  }

  @Override
  public void killPool() throws Exception {
    ProcessHandle.of(pool.process().pid()).ifPresent(ProcessHandle::destroyForcibly);
    pool.process().awaitExit();
    pool.close();
    pool = null;
  }

  @Override
  public String defaultHostname() {
    return "127.0.0.1";
  }

  @Override
  public Map<String, String> environment() {
    Map<String, String> environment = new HashMap<>();
    environment.put("MCJ_FAKE_SHARED", table.toString());
    environment.put("MCJ_FAKE_CLIENT_TTL_MS", Long.toString(CLIENT_TTL_MS));
    environment.put("MCJ_FAKE_READ_DELAY_US", Long.toString(READ_DELAY_US));
    if (valueChecksOff) {
      environment.put(IntegrityChecksForTests.OFF_VARIABLE, "1");
    }
    return environment;
  }

  @Override
  public List<String> peerArguments() {
    return List.of("fake=" + library());
  }

  @Override
  /** Live clients: the fake drops a client and its objects at once, under the table's lock. */
  public long mounted(PeerProcess live) throws Exception {
    return stat(live, "clients");
  }

  /** The table's count of clients dropped (dead, or silent past the TTL). */
  @Override
  public long droppedSegments(PeerProcess live) throws Exception {
    return stat(live, "clients_dropped");
  }

  private static long stat(PeerProcess live, String name) throws InterruptedException {
    String reply = live.ask("stat " + name);
    if (!reply.startsWith("OK ")) {
      throw new AssertionError(
          "peer " + live.id + " could not read the fake's " + name + ": " + reply);
    }
    return Long.parseLong(reply.substring(3));
  }

  /** The table's mutex free: a count answered within a second (the TTL is 3 s: nothing dropped). */
  @Override
  public boolean answersWhileAPeerIsStopped(PeerProcess witness) throws Exception {
    return witness.askWithin("stat clients", Duration.ofSeconds(1)) != null;
  }

  @Override
  public Duration dropBound() {
    return Duration.ofMillis(CLIENT_TTL_MS + 10_000);
  }

  @Override
  public String sharedSegmentHostname() {
    return "127.0.0.1";
  }

  /** The fake names a process's first client {@code <host>:<pid>-1}. */
  @Override
  public String sharedSegmentName(PeerProcess owner) {
    return "127.0.0.1:" + owner.pid() + "-1";
  }

  @Override
  public void close() throws Exception {
    if (pool != null) {
      pool.close();
      pool = null;
    }
    Files.deleteIfExists(table);
    Path values = Path.of(table + ".values");
    if (Files.isDirectory(values)) {
      try (Stream<Path> files = Files.walk(values)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
