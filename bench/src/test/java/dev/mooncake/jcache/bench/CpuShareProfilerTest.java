package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link CpuShareProfiler} and {@link ProcCpu} on a made-up /proc tree. */
class CpuShareProfilerTest {
  @TempDir Path proc;

  @Test
  void readsTheAllowedCpusTicksAndEveryThreadsExactTimes() throws IOException {
    write("self/stat", "42 (java (x)) S 1 42 42 0 -1 0 0 0 0 0 150 50 0 0 20 0 30\n");
    write("self/status", "Name:\tjava\nCpus_allowed:\t5\nCpus_allowed_list:\t0,2-3\n");
    write(
        "stat",
        "cpu  9 9 9 9 9 9 9 9 0 0\n"
            + "cpu0 100 0 20 50 10 1 4 0 0 0\n"
            + "cpu1 999 999 999 999 999 999 999 0 0 0\n"
            + "cpu2 10 0 0 90 0 0 0 0 0 0\n"
            + "cpu3 0 0 0 100 0 0 0 0 0 0\n"
            + "intr 12345\n");
    thread("self", 11, "java", 1_000, 10);
    thread("self", 12, "C2 CompilerThre", 300, 0);
    thread("self", 13, "a (b) c", 50, 5);
    thread("77", 77, "mooncake_master", 400, 0);
    thread("77", 78, "mooncake_master", 600, 0);
    write("77/comm", "mooncake_master\n");
    write("88/comm", "bash\n");
    thread("88", 88, "bash", 9_999, 0);

    ProcCpu cpu = new ProcCpu(proc);
    assertEquals(List.of(0, 2, 3), cpu.allowedCpus());
    // cpu0: busy 100+20+1+4 = 125 of 185 (idle 50, iowait 10), kernel 20+1+4; cpu2: 10 of 100
    assertEquals(new ProcCpu.CpuTicks(135, 25, 385), cpu.cpuTicks(cpu.allowedCpus()));
    ProcCpu.Tasks tasks = cpu.tasks("self");
    assertEquals(1_350, tasks.runNanos());
    assertEquals(new ProcCpu.Task(12, "C2 CompilerThre", 300, 0), tasks.byTid().get(12L));
    assertEquals("a (b) c", tasks.byTid().get(13L).name());
    assertEquals(
        Map.of("mooncake_master", 1_000L, "redis-server", -1L),
        cpu.processNanos(List.of("mooncake_master", "redis-server")));
    assertEquals(200 * ProcCpu.NANOS_PER_TICK, cpu.selfNanosWithEnded());
  }

  @Test
  void sharesAreOfOneCoreFromEachThreadsOwnDeltaAndTheNativeShareIsTheRest() {
    long second = 1_000_000_000L;
    CpuShareProfiler.Snapshot before =
        new CpuShareProfiler.Snapshot(
            0,
            new ProcCpu.CpuTicks(0, 0, 0),
            Map.of(
                1L, task(1, "java", 5 * second, second),
                2L, task(2, "C2 CompilerThre", second, 0),
                3L, task(3, "mooncake-lock-1", 2 * second, second)),
            8 * second,
            Map.of(
                10L, new CpuShareProfiler.JavaThread("callers", 4 * second),
                11L, new CpuShareProfiler.JavaThread("provider", 2 * second)),
            Map.of("master", 0L, "redis", -1L));
    // thread 3 (Java thread 11) ended; thread 4 (Java thread 12) started and used 0.3 s
    CpuShareProfiler.Snapshot after =
        new CpuShareProfiler.Snapshot(
            second,
            new ProcCpu.CpuTicks(90, 30, 100),
            Map.of(
                1L, task(1, "java", 5 * second + second * 6 / 10, second * 5 / 4),
                2L, task(2, "C2 CompilerThre", second + second / 10, 0),
                4L, task(4, "mooncake-lock-2", second * 3 / 10, 0)),
            8 * second + second * 12 / 10,
            Map.of(
                10L, new CpuShareProfiler.JavaThread("callers", 4 * second + second / 5),
                12L, new CpuShareProfiler.JavaThread("provider", second * 3 / 10)),
            Map.of("master", second / 2, "redis", -1L));
    Map<String, Double> shares = CpuShareProfiler.shares(before, after);
    assertEquals(90, shares.get("busy"), 1e-9);
    assertEquals(30, shares.get("kernel"), 1e-9);
    assertEquals(20, shares.get("callers"), 1e-9);
    assertEquals(30, shares.get("provider"), 1e-9, "the ended thread drops out, not negative");
    assertEquals(0, shares.get("otherJava"), 1e-9);
    assertEquals(10, shares.get("jvm"), 1e-9);
    // live threads used 0.6 + 0.1 + 0.3 s; Java 0.2 + 0.3, JVM 0.1: native 0.4
    assertEquals(40, shares.get("native"), 1e-9);
    assertEquals(20, shares.get("ended"), 1e-9, "1.2 s in all, 1.0 s by live threads");
    assertEquals(25, shares.get("waiting"), 1e-9);
    assertEquals(50, shares.get("master"), 1e-9);
    assertFalse(shares.containsKey("redis"), "a server that does not run has no figure");
  }

  private static ProcCpu.Task task(long tid, String name, long run, long wait) {
    return new ProcCpu.Task(tid, name, run, wait);
  }

  @Test
  void javaThreadsAreGroupedByTheirNames() {
    assertEquals("callers", CpuShareProfiler.kindOf("d.m.j.b.AsyncBenchmark.op-jmh-worker-1"));
    assertEquals("callers", CpuShareProfiler.kindOf(VirtualThreadBenchmark.LOAD_THREAD + "7"));
    assertEquals("callers", CpuShareProfiler.kindOf("ForkJoinPool-1-worker-2"));
    assertEquals("otherJava", CpuShareProfiler.kindOf("ForkJoinPool.commonPool-worker-1"));
    assertEquals("provider", CpuShareProfiler.kindOf("mooncake-m1-async-3"));
    assertEquals("otherJava", CpuShareProfiler.kindOf("redisson-netty-2-4"));
  }

  @Test
  void theTableGivesEachShareWithItsCpuTimePerOperation() {
    assertEquals("50 % · 100.0 µs", CpuTable.perOp(50, 5_000));
    assertEquals("—", CpuTable.perOp(Double.NaN, 5_000));
  }

  private void thread(String pid, int tid, String name, long run, long wait) throws IOException {
    write(pid + "/task/" + tid + "/stat", tid + " (" + name + ") S 1 2 3");
    write(pid + "/task/" + tid + "/schedstat", run + " " + wait + " 3\n");
  }

  private void write(String file, String text) throws IOException {
    Path path = proc.resolve(file);
    Files.createDirectories(path.getParent());
    Files.writeString(path, text);
  }
}
