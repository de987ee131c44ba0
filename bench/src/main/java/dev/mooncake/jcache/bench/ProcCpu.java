package dev.mooncake.jcache.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The kernel's CPU accounting as {@link CpuShareProfiler} reads it from a {@code /proc} tree (a
 * directory argument, so tests can hand it a made-up one): per-CPU ticks from {@code /proc/stat},
 * and per-thread time on a CPU and time waiting for one, in nanoseconds, from {@code
 * /proc/<pid>/task/<tid>/schedstat} (exact, unlike the 10 ms ticks of {@code stat}).
 */
final class ProcCpu {
  private final Path root;

  ProcCpu(Path root) {
    this.root = root;
  }

  /** One or more CPUs' ticks from {@code /proc/stat}: busy, of which in the kernel, and all. */
  record CpuTicks(long busy, long kernel, long total) {
    CpuTicks minus(CpuTicks earlier) {
      return new CpuTicks(busy - earlier.busy, kernel - earlier.kernel, total - earlier.total);
    }
  }

  /** One thread: its id, name, time on a CPU and time ready but waiting for one. */
  record Task(long tid, String name, long runNanos, long waitNanos) {}

  /** The threads of one process that existed at one instant. */
  record Tasks(List<Task> tasks) {
    long runNanos() {
      return tasks.stream().mapToLong(Task::runNanos).sum();
    }

    Map<Long, Task> byTid() {
      Map<Long, Task> byTid = new HashMap<>();
      tasks.forEach(t -> byTid.put(t.tid(), t));
      return byTid;
    }
  }

  /**
   * This process's CPU time so far in ticks of 10 ms ({@code utime + stime} of {@code
   * /proc/self/stat}), threads that ended included, as nanoseconds.
   */
  long selfNanosWithEnded() throws IOException {
    String stat = Files.readString(root.resolve("self/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
    // after the name: state is field 3 of stat(5), utime 14 and stime 15
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK;
  }

  /** USER_HZ, 100 on every Linux architecture this project runs on. */
  static final long NANOS_PER_TICK = 10_000_000L;

  /** The CPUs this process may run on ({@code Cpus_allowed_list}: "0", "0-1", "0,2-3"). */
  List<Integer> allowedCpus() throws IOException {
    for (String line : Files.readAllLines(root.resolve("self/status"), StandardCharsets.UTF_8)) {
      if (line.startsWith("Cpus_allowed_list:")) {
        return cpuList(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    throw new IOException("no Cpus_allowed_list in " + root.resolve("self/status"));
  }

  static List<Integer> cpuList(String list) {
    List<Integer> cpus = new ArrayList<>();
    for (String range : list.split(",")) {
      String[] ends = range.trim().split("-");
      int first = Integer.parseInt(ends[0]);
      int last = ends.length == 1 ? first : Integer.parseInt(ends[1]);
      for (int cpu = first; cpu <= last; cpu++) {
        cpus.add(cpu);
      }
    }
    return cpus;
  }

  /**
   * Those CPUs' ticks summed. A {@code cpuN} line: user nice system idle iowait irq softirq steal
   * …; busy is all but idle and iowait, kernel is system, irq and softirq.
   */
  CpuTicks cpuTicks(List<Integer> cpus) throws IOException {
    long busy = 0;
    long kernel = 0;
    long total = 0;
    for (String line : Files.readAllLines(root.resolve("stat"), StandardCharsets.UTF_8)) {
      String[] f = line.trim().split("\\s+");
      if (!f[0].startsWith("cpu") || f[0].equals("cpu")) {
        continue;
      }
      if (!cpus.contains(Integer.parseInt(f[0].substring(3)))) {
        continue;
      }
      long[] t = new long[8];
      for (int i = 0; i < t.length && i + 1 < f.length; i++) {
        t[i] = Long.parseLong(f[i + 1]);
      }
      long idle = t[3] + t[4];
      long all = 0;
      for (long v : t) {
        all += v;
      }
      busy += all - idle;
      kernel += t[2] + t[5] + t[6];
      total += all;
    }
    return new CpuTicks(busy, kernel, total);
  }

  /** The threads of process {@code pid} ("self" for this one) that still exist. */
  Tasks tasks(String pid) throws IOException {
    List<Task> tasks = new ArrayList<>();
    Path dir = root.resolve(pid).resolve("task");
    for (Path task : list(dir)) {
      try {
        String[] sched = Files.readString(task.resolve("schedstat")).trim().split("\\s+");
        tasks.add(
            new Task(
                Long.parseLong(task.getFileName().toString()),
                commOf(Files.readString(task.resolve("stat"))),
                Long.parseLong(sched[0]),
                Long.parseLong(sched[1])));
      } catch (NoSuchFileException ended) {
        // the thread ended between the listing and the read
      }
    }
    return new Tasks(tasks);
  }

  /** A stat line's name: between the first '(' and the last ')' (a name may hold either). */
  static String commOf(String statLine) {
    return statLine.substring(statLine.indexOf('(') + 1, statLine.lastIndexOf(')'));
  }

  /**
   * The CPU time of every thread of the processes with each of these names ({@code
   * /proc/<pid>/comm}), in one pass over {@code /proc}: -1 for a name no process has.
   */
  Map<String, Long> processNanos(List<String> names) throws IOException {
    Map<String, Long> sums = new LinkedHashMap<>();
    names.forEach(name -> sums.put(name, -1L));
    for (Path entry : list(root)) {
      String pid = entry.getFileName().toString();
      if (!pid.chars().allMatch(Character::isDigit)) {
        continue;
      }
      try {
        String name = Files.readString(entry.resolve("comm")).trim();
        if (sums.containsKey(name)) {
          sums.put(name, Math.max(sums.get(name), 0) + tasks(pid).runNanos());
        }
      } catch (NoSuchFileException | java.nio.file.AccessDeniedException gone) {
        // ended meanwhile, or not ours to read
      }
    }
    return sums;
  }

  private static List<Path> list(Path dir) throws IOException {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      stream.forEach(entries::add);
    }
    return entries;
  }

  /**
   * The JVM's own threads that {@code ThreadMXBean} does not list (their OS names, cut to 15
   * characters): GC, JIT compilers, the VM thread and its helpers.
   */
  static boolean isJvmInternal(String name) {
    return name.startsWith("VM Thread")
        || name.startsWith("VM Periodic")
        || name.startsWith("GC Thread")
        || name.startsWith("G1 ")
        || name.startsWith("C1 CompilerThre")
        || name.startsWith("C2 CompilerThre")
        || name.startsWith("Sweeper thread")
        || name.startsWith("Monitor Deflati")
        || name.startsWith("Service Thread");
  }
}
