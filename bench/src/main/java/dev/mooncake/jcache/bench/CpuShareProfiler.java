package dev.mooncake.jcache.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler ({@code -prof dev.mooncake.jcache.bench.CpuShareProfiler}) that says, per
 * iteration, where the CPU went: how busy the CPUs the fork may run on were, and which threads used
 * them. It answers "what limits the throughput" for issue 33's benchmarks: when the fork's CPUs are
 * near 100 % busy and its threads queue for them, more calls in flight cannot help.
 *
 * <p>Every figure is a share of one core over the iteration (100 = one core all the time), from the
 * kernel's own accounting (see {@link ProcCpu}):
 *
 * <ul>
 *   <li>{@code cpu.busy}, {@code cpu.kernel}: the fork's allowed CPUs busy, and busy in the kernel
 *       (system, irq, softirq: loopback TCP is mostly here), as a share of those CPUs' capacity;
 *   <li>{@code cpu.callers}: the threads that call the cache (JMH's workers, the benchmark's load
 *       threads, virtual threads' carriers); {@code cpu.provider}: the provider's {@code
 *       mooncake-…} threads; {@code cpu.otherJava}: every other Java thread (e.g. Redisson's
 *       Netty); {@code cpu.jvm}: the JVM's own (GC, JIT, VM thread); {@code cpu.native}: the rest
 *       of the process, the threads Mooncake's client library starts itself; {@code cpu.ended}:
 *       threads that ended during the iteration (10 ms ticks, so ±1 % of a core);
 *   <li>{@code cpu.waiting}: time the fork's threads were ready to run but waited for a CPU, summed
 *       over threads (above 0 means the CPU, not Mooncake, was what they waited for);
 *   <li>{@code cpu.master}, {@code cpu.redis}: {@code mooncake_master} and {@code redis-server},
 *       where one runs on this machine.
 * </ul>
 *
 * <p>Java threads are measured by name through {@link com.sun.management.ThreadMXBean} (their OS
 * names are cut to 15 characters, and a thread Mooncake starts inherits its creator's OS name, so
 * names from {@code /proc} could not tell them apart); the native share is the process's total less
 * the Java threads and the JVM's own.
 */
public final class CpuShareProfiler implements InternalProfiler {
  static final String PREFIX = "cpu.";

  private static final String MASTER = "mooncake_master";
  private static final String REDIS = "redis-server";

  private final ProcCpu proc;
  private final com.sun.management.ThreadMXBean threads =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private Snapshot before;

  public CpuShareProfiler() {
    this(new ProcCpu(Path.of("/proc")));
  }

  CpuShareProfiler(ProcCpu proc) {
    this.proc = proc;
    threads.setThreadCpuTimeEnabled(true);
  }

  @Override
  public String getDescription() {
    return "where the CPU went per iteration: the fork's CPUs busy, its threads by kind, the"
        + " servers (from /proc and ThreadMXBean)";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
    before = snapshot();
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmark, IterationParams iteration, IterationResult result) {
    Snapshot after = snapshot();
    List<Result> results = new ArrayList<>();
    for (Map.Entry<String, Double> share : shares(before, after).entrySet()) {
      results.add(
          new ScalarResult(PREFIX + share.getKey(), share.getValue(), "%", AggregationPolicy.AVG));
    }
    return results;
  }

  /**
   * What is counted at one instant; CPU times in nanoseconds. {@code tasks}: this process's threads
   * by OS id; {@code javaNanos}: its Java threads by id, with their kind; {@code withEnded}: the
   * process's total including threads that ended (10 ms ticks).
   */
  record Snapshot(
      long wallNanos,
      ProcCpu.CpuTicks cpus,
      Map<Long, ProcCpu.Task> tasks,
      long withEnded,
      Map<Long, JavaThread> java,
      Map<String, Long> serverNanos) {}

  /** A Java thread's kind ({@link #kindOf}) and CPU time. */
  record JavaThread(String kind, long nanos) {}

  private Snapshot snapshot() {
    try {
      List<Integer> allowed = proc.allowedCpus();
      Map<String, Long> byName = proc.processNanos(List.of(MASTER, REDIS));
      Map<String, Long> servers = new LinkedHashMap<>();
      servers.put("master", byName.get(MASTER));
      servers.put("redis", byName.get(REDIS));
      return new Snapshot(
          System.nanoTime(),
          proc.cpuTicks(allowed),
          proc.tasks("self").byTid(),
          proc.selfNanosWithEnded(),
          javaThreads(),
          servers);
    } catch (IOException e) {
      throw new IllegalStateException("CpuShareProfiler could not read /proc: " + e, e);
    }
  }

  private Map<Long, JavaThread> javaThreads() {
    long[] ids = threads.getAllThreadIds();
    long[] cpu = threads.getThreadCpuTime(ids);
    java.lang.management.ThreadInfo[] infos = threads.getThreadInfo(ids);
    Map<Long, JavaThread> byId = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (infos[i] != null && cpu[i] >= 0) {
        byId.put(ids[i], new JavaThread(kindOf(infos[i].getThreadName()), cpu[i]));
      }
    }
    return byId;
  }

  /** Which group a Java thread's CPU counts in (see the class comment). */
  static String kindOf(String threadName) {
    if (threadName.contains("jmh-worker")
        || threadName.startsWith(VirtualThreadBenchmark.LOAD_THREAD)
        || threadName.matches("ForkJoinPool-\\d+-worker-\\d+")) {
      return "callers";
    }
    return threadName.startsWith("mooncake-") ? "provider" : "otherJava";
  }

  /**
   * The shares of one core between two snapshots. Each thread counts what it used between them
   * (from 0 when it started in between); threads that ended in between (the provider's pools end
   * threads idle for 2 s) are not in any group and show as {@code ended}, the process's total less
   * the threads still alive.
   */
  static Map<String, Double> shares(Snapshot a, Snapshot b) {
    double wall = Math.max(1, b.wallNanos() - a.wallNanos());
    Map<String, Double> shares = new LinkedHashMap<>();
    ProcCpu.CpuTicks cpus = b.cpus().minus(a.cpus());
    shares.put("busy", percent(cpus.busy(), cpus.total()));
    shares.put("kernel", percent(cpus.kernel(), cpus.total()));
    Map<String, Long> java = new LinkedHashMap<>();
    for (String kind : List.of("callers", "provider", "otherJava")) {
      java.put(kind, 0L);
    }
    long javaSum = 0;
    for (Map.Entry<Long, JavaThread> t : b.java().entrySet()) {
      JavaThread earlier = a.java().get(t.getKey());
      long used = t.getValue().nanos() - (earlier == null ? 0 : earlier.nanos());
      java.merge(t.getValue().kind(), used, Long::sum);
      javaSum += used;
    }
    long run = 0;
    long jvm = 0;
    long wait = 0;
    for (ProcCpu.Task t : b.tasks().values()) {
      ProcCpu.Task earlier = a.tasks().get(t.tid());
      long used = t.runNanos() - (earlier == null ? 0 : earlier.runNanos());
      run += used;
      wait += t.waitNanos() - (earlier == null ? 0 : earlier.waitNanos());
      if (ProcCpu.isJvmInternal(t.name())) {
        jvm += used;
      }
    }
    java.forEach((kind, used) -> shares.put(kind, 100 * used / wall));
    shares.put("jvm", 100 * jvm / wall);
    shares.put("native", 100 * Math.max(0, run - javaSum - jvm) / wall);
    shares.put("ended", 100 * Math.max(0, b.withEnded() - a.withEnded() - run) / wall);
    shares.put("waiting", 100 * wait / wall);
    for (Map.Entry<String, Long> server : b.serverNanos().entrySet()) {
      long start = a.serverNanos().getOrDefault(server.getKey(), -1L);
      if (start >= 0 && server.getValue() >= start) {
        shares.put(server.getKey(), 100 * (server.getValue() - start) / wall);
      }
    }
    return shares;
  }

  private static double percent(long part, long whole) {
    return whole <= 0 ? 0 : 100.0 * part / whole;
  }
}
