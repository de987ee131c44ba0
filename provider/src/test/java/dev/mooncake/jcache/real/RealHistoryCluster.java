package dev.mooncake.jcache.real;

import dev.mooncake.jcache.history.HistoryCluster;
import dev.mooncake.jcache.history.PeerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A real Mooncake for one history run: a master of the run's own on 127.0.0.1:{@value #PORT}
 * (inside the test's network namespace, default {@code --client_ttl} of 10 s), so that a run starts
 * empty and may kill and restart it. Mounted segments are the master's {@code
 * master_total_capacity_bytes} metric (segments mounted). The shared segment of the tenant test is
 * the JVM whose {@code local_hostname} carries a fixed port: Mooncake then names its segment
 * exactly that.
 */
final class RealHistoryCluster implements HistoryCluster {
  private static final int PORT = 50071;
  private static final int METRICS_PORT = PORT + 1000;
  private static final String SHARED_SEGMENT = "127.0.0.1:17071";
  private static final long CLIENT_TTL_MS = 10_000;

  private final Path dir;
  private Process master;
  private int masters;

  RealHistoryCluster(Path dir) throws Exception {
    this.dir = dir;
    startMaster();
  }

  @Override
  public String config(String consistency, String localHostname, String extra) {
    return """
        {
          "backend": "mooncake",
          "mode": "embedded",
          "master_server_address": "127.0.0.1:%d",
          "metadata_server": "%s",
          "protocol": "tcp",
          "local_hostname": "%s",
          "global_segment_size": "64MB",
          "local_buffer_size": "16MB",
          "operation_timeout_ms": 20000,
          "consistency": "%s"%s
        }
        """
        .formatted(PORT, RealMooncake.metadataServer(PORT), localHostname, consistency, extra);
  }

  /** The pool's RPC port (it also names its IPC socket) in the standalone topology. */
  private static final int POOL_PORT = PORT + 4;

  private StandalonePool pool;
  private int pools;

  @Override
  public boolean hasPool() {
    return System.getenv("MOONCAKE_CLIENT") != null;
  }

  /**
   * A {@code mooncake_client} pool of 256 MiB under this run's master, and app JVMs in {@code
   * standalone-store} with a 16 MiB lock segment each that find the pool, and a replaced one under
   * its new name, through the master's metrics port ({@code master_metrics_address}).
   */
  @Override
  public String startPoolAndConfigure(String consistency, String extra) throws Exception {
    startPool();
    return """
        {
          "backend": "mooncake",
          "mode": "standalone-store",
          "lock_segment_size": "16MB",
          "master_metrics_address": "127.0.0.1:%d",
          "master_server_address": "127.0.0.1:%d",
          "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": 0,
          "local_buffer_size": "16MB",
          "operation_timeout_ms": 20000,
          "consistency": "%s"%s
        }
        """
        .formatted(METRICS_PORT, PORT, consistency, extra);
  }

  @Override
  public void startPool() throws Exception {
    pool =
        StandalonePool.start(
            "256MB",
            dir.resolve("pool-" + ++pools + ".log"),
            POOL_PORT,
            PORT,
            METRICS_PORT,
            Map.of(),
            List.of());
  }

  @Override
  public void killPool() throws Exception {
    ProcessHandle.of(pool.pid()).ifPresent(ProcessHandle::destroyForcibly);
    pool.close();
    pool = null;
  }

  @Override
  public String defaultHostname() {
    return "127.0.0.1";
  }

  @Override
  public Map<String, String> environment() {
    return Map.of("MC_LOG_LEVEL", "WARNING");
  }

  @Override
  public List<String> peerArguments() {
    return List.of();
  }

  /**
   * The master's {@code master_total_capacity_bytes}: its client monitor counts an expired client
   * out of {@code master_active_clients} first, then clears the objects in its segments, then
   * commits the unmount, which takes the segment's capacity off this metric.
   */
  @Override
  public long mounted(PeerProcess live) throws Exception {
    return RealMooncake.metric(METRICS_PORT, "master_total_capacity_bytes");
  }

  /** client_ttl + 20 s: the master's ~1 s sweep, and slack for runs beside a CPU hog. */
  @Override
  public Duration dropBound() {
    return Duration.ofMillis(CLIENT_TTL_MS + 20_000);
  }

  @Override
  public String sharedSegmentHostname() {
    return SHARED_SEGMENT;
  }

  @Override
  public String sharedSegmentName(PeerProcess owner) {
    return SHARED_SEGMENT;
  }

  @Override
  public boolean canRestartMaster() {
    return true;
  }

  @Override
  public void killMaster() throws InterruptedException {
    master.destroyForcibly(); // SIGKILL
    master.waitFor();
  }

  /** A master on {@link #PORT}, up once it accepts connections. */
  @Override
  public void startMaster() throws Exception {
    master = RealMooncake.startMaster(PORT, dir, "master-" + ++masters + ".log");
  }

  @Override
  public void close() throws InterruptedException {
    if (pool != null) {
      pool.close();
    }
    master.destroyForcibly().waitFor();
  }
}
