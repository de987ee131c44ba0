package dev.mooncake.jcache.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The master process's CPU time ({@code /proc/<pid>/task/* /schedstat}, exact) and its own RPC
 * counters over a window of work, less the CPU it spends idle with the client connected: what
 * {@link MasterCapacity} and {@link BatchRemoveCost} divide by the calls they made.
 */
final class MasterMeter {
  /** RPCs a client makes on its own, not for a call: Ping each second, FetchTasks. */
  private static final List<String> BACKGROUND_RPCS = List.of("ping", "fetch_tasks");

  /** Some work measured as a whole. */
  interface Work {
    void run() throws Exception;
  }

  /** One measured window: master CPU (idle less), wall time, RPCs the master counted. */
  record Window(long cpuNanos, long wallNanos, Map<String, Long> rpcs, int threads) {}

  private final String pid;
  private final ProcCpu proc = new ProcCpu(Path.of("/proc"));
  private final MasterMetrics metrics;
  private double idleNanosPerSecond;

  MasterMeter(String pid, URI metricsUri) {
    this.pid = pid;
    this.metrics = new MasterMetrics(metricsUri);
  }

  String pid() {
    return pid;
  }

  double idleNanosPerSecond() {
    return idleNanosPerSecond;
  }

  private long masterNanos() throws IOException {
    return proc.tasks(pid).runNanos();
  }

  Window measure(Work work) throws Exception {
    Map<String, Long> rpcs0 = metrics.requests();
    long cpu0 = masterNanos();
    long t0 = System.nanoTime();
    work.run();
    long wall = System.nanoTime() - t0;
    long cpu = masterNanos() - cpu0;
    Map<String, Long> rpcs = MasterMetrics.delta(rpcs0, metrics.requests());
    // the clients' background calls (heartbeat each second, task polling), part of the idle figure
    rpcs.keySet().removeAll(BACKGROUND_RPCS);
    int threads = proc.tasks(pid).tasks().size();
    return new Window(Math.round(cpu - idleNanosPerSecond * wall / 1e9), wall, rpcs, threads);
  }

  /** The master's CPU per second with this client connected and idle (heartbeats, its timers). */
  void measureIdle() throws Exception {
    long cpu0 = masterNanos();
    long t0 = System.nanoTime();
    Thread.sleep(3_000); // a window of wall time to read the master's idle CPU over, not a wait
    idleNanosPerSecond = (masterNanos() - cpu0) * 1e9 / (System.nanoTime() - t0);
  }

  static URI metricsUri() {
    return URI.create(
        System.getenv().getOrDefault("MOONCAKE_METRICS", "http://127.0.0.1:9003/metrics"));
  }
}
