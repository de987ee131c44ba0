package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jepsen-style histories across JVMs: three JVMs of two threads (one virtual where the JVM has
 * them) run a random mix of every per-key and multi-key JCache call, bursts through the async view
 * and zero-copy calls ({@link Workload}) on five contended keys (and three of a byte[] cache), each
 * call recorded with its invocation and completion time, while a fault hits the cluster; then every
 * key's history is checked for linearizability against one JSR-107 entry, with the fault's losses
 * as pseudo-operations (a killed or paused JVM's segment: its values become absent once, between
 * the fault and the moment the cluster was seen to drop it), and every value read is checked to
 * belong to its key. A subclass names the cluster.
 *
 * <p>Sizes: {@code -Dhistory.ops} (total per run; default {@link #defaultOperations()}), {@code
 * -Dhistory.runs} (runs per test, default 1: e.g. 20 for the record), {@code -Dhistory.keys} (5),
 * {@code -Dhistory.valueBytes} (256), {@code -Dhistory.seed}, {@code -Dhistory.budgetSeconds} (the
 * checker's budget per key, 30). Failing runs keep their histories under {@code
 * target/history/<class>/} (the peers' logs and the merged history, one {@link Operation#toLine()}
 * each).
 */
public abstract class HistoryScenarios {
  /**
   * The share of planned operations that must end with a known outcome for a run to count (the
   * calls that ended unknown are also held to their scenario's share: {@link
   * RunResult#allowedUnknownShare}).
   */
  private static final double KNOWN_SHARE = 0.8;

  /** Skips (with the reason) when this cluster is not available here. */
  protected abstract void assumeAvailable();

  /** A fresh cluster for one run, with its working files in {@code dir}. */
  protected abstract HistoryCluster openCluster(Path dir) throws Exception;

  /** Operations per run unless {@code -Dhistory.ops} says otherwise. */
  protected abstract int defaultOperations();

  @BeforeEach
  void skipUnlessAvailable() {
    assumeAvailable();
  }

  @Test
  void withoutFaultsEveryKeyIsLinearizable() throws Exception {
    assertEveryRunClean(plan("no fault", "cluster", HistoryRun.Fault.NONE, false));
  }

  @Test
  void aJvmKilledMidRunLosesOnlyItsSegment() throws Exception {
    assertEveryRunClean(plan("kill -9 of a JVM", "cluster", HistoryRun.Fault.KILL, false));
  }

  @Test
  void aJvmPausedPastItsLeaseAndTtlLosesOnlyItsSegment() throws Exception {
    assertEveryRunClean(
        plan("SIGSTOP of a JVM past lease and TTL", "cluster", HistoryRun.Fault.PAUSE, false));
  }

  @Test
  void onALoadedMachineEveryKeyIsLinearizable() throws Exception {
    assertEveryRunClean(plan("CPU hog on every core", "cluster", HistoryRun.Fault.NONE, true));
  }

  // Lock keeping (lock_keep_idle_ms): every JVM keeps its locks; the others revoke them by want.

  @Test
  void withLockKeepingEveryKeyIsLinearizable() throws Exception {
    assertEveryRunClean(
        plan("lock keeping", HistoryRun.Plan.CLUSTER_KEEPING, HistoryRun.Fault.NONE, false));
  }

  @Test
  void aJvmKeepingLocksKilledLosesOnlyItsSegment() throws Exception {
    assertEveryRunClean(
        plan(
            "lock keeping, kill -9 of a JVM",
            HistoryRun.Plan.CLUSTER_KEEPING,
            HistoryRun.Fault.KILL,
            false));
  }

  @Test
  void aJvmKeepingLocksPausedPastItsLeaseLosesOnlyItsSegment() throws Exception {
    assertEveryRunClean(
        plan(
            "lock keeping, SIGSTOP of a JVM past lease and TTL",
            HistoryRun.Plan.CLUSTER_KEEPING,
            HistoryRun.Fault.PAUSE,
            false));
  }

  @Test
  void revocationUnderACpuHogKeepsEveryKeyLinearizable() throws Exception {
    assertEveryRunClean(
        plan(
            "lock keeping, CPU hog on every core",
            HistoryRun.Plan.CLUSTER_KEEPING,
            HistoryRun.Fault.NONE,
            true));
  }

  /**
   * Keeping's worst case: two JVMs (two threads each) writing and reading the same five keys, so
   * nearly every operation meets the other JVM's lock. Runs with keeping off (today's protocol) and
   * on alternate in one sitting ({@code -Dhistory.alternatingRounds}, default 3, of {@code
   * history.alternatingOps} operations, default 2,000); every run must be clean, and the median run
   * time with keeping must stay within 1.5× of today's (a revocation that waited for the holder's
   * idle time instead of its poll makes it several times slower).
   */
  @Test
  void twoJvmsAlternatingOnTheSameKeysAreNoSlowerWithKeeping() throws Exception {
    int rounds = Integer.getInteger("history.alternatingRounds", 3);
    List<Double> off = new ArrayList<>();
    List<Double> on = new ArrayList<>();
    for (int run = 1; run <= rounds; run++) {
      off.add(cleanRunSeconds(twoJvms("two JVMs alternating, keeping off", "cluster"), run));
      on.add(
          cleanRunSeconds(
              twoJvms("two JVMs alternating, keeping on", HistoryRun.Plan.CLUSTER_KEEPING), run));
    }
    double medianOff = median(off);
    double medianOn = median(on);
    report(
        String.format(
            java.util.Locale.ROOT,
            "two JVMs alternating: run time keeping off %s s (median %.2f), on %s s (median %.2f),"
                + " on/off %.2f",
            off,
            medianOff,
            on,
            medianOn,
            medianOn / medianOff));
    assertTrue(
        medianOn <= 1.5 * medianOff,
        "keeping made two alternating JVMs slower: " + on + " s against " + off + " s");
  }

  private HistoryRun.Plan twoJvms(String scenario, String consistency) {
    return new HistoryRun.Plan(
        scenario,
        consistency,
        HistoryRun.Fault.NONE,
        false,
        2,
        2,
        5,
        Integer.getInteger("history.alternatingOps", 2000),
        256,
        Long.getLong("history.seed", System.nanoTime()),
        Duration.ofSeconds(30));
  }

  /** One run's workload time in seconds; the run must be clean. */
  private double cleanRunSeconds(HistoryRun.Plan plan, int run) throws Exception {
    RunResult result = run(plan, run);
    List<String> problems = result.problems(KNOWN_SHARE);
    assertTrue(problems.isEmpty(), result.summary() + ": " + problems);
    return result.runSeconds();
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /**
   * The negative control: without cluster locks the same workload breaks linearizability across
   * JVMs (lost CAS, two putIfAbsent winners, …), and the checker must say so in every run.
   */
  @Test
  void withLocalConsistencyTheCheckerFindsViolations() throws Exception {
    HistoryRun.Plan plan = plan("consistency local", "local", HistoryRun.Fault.NONE, false);
    List<String> linearizable = new ArrayList<>();
    for (int run = 1; run <= runs(); run++) {
      RunResult result = run(plan, run);
      if (result.report().notLinearizable().isEmpty()) {
        linearizable.add("run " + run + ": " + result.summary());
      }
    }
    assertEquals(
        List.of(), linearizable, "runs of the local control the checker found linearizable");
  }

  /**
   * The second negative control, for clusters that can turn the value checks off (the test-only
   * switch): without the checksum and owner checks the same no-fault workload must read a value
   * under another key (or torn, or another cache's object that the value-type check refused) in
   * every run, so clean runs mean the checks work, not that the reuse race never opened.
   */
  protected void assertEveryRunReadsForeignValues() throws Exception {
    HistoryRun.Plan plan = plan("value checks off", "cluster", HistoryRun.Fault.NONE, false);
    List<String> clean = new ArrayList<>();
    for (int run = 1; run <= runs(); run++) {
      RunResult result = run(plan, run);
      if (result.foreign().isEmpty()
          && result.torn().isEmpty()
          && result.refusedAsAnotherCaches().isEmpty()) {
        clean.add("run " + run + ": " + result.summary());
      }
    }
    report(
        "value checks off: "
            + (runs() - clean.size())
            + " of "
            + runs()
            + " runs read values not their own");
    assertEquals(List.of(), clean, "runs with the value checks off that read only their own");
  }

  /** Kills the master under load and starts a new one: every value is lost once, in between. */
  @Test
  void aMasterKilledAndRestartedLosesEveryValueOnce() throws Exception {
    assumeTrue(canRestartMaster(), "skipped: this cluster has no master to restart");
    assertEveryRunClean(
        plan("master kill -9 and restart", "cluster", HistoryRun.Fault.MASTER_RESTART, false));
  }

  /**
   * A master restart while every JVM keeps its locks and steps use the entries they remember (the
   * remembered copy): the new master has no object, so a step's remove-first answers absent and no
   * value lost with the old master comes back from a JVM's memory.
   */
  @Test
  void aMasterRestartedUnderKeptLocksLosesEveryValueOnce() throws Exception {
    assumeTrue(canRestartMaster(), "skipped: this cluster has no master to restart");
    assertEveryRunClean(
        plan(
            "lock keeping, master kill -9 and restart",
            HistoryRun.Plan.CLUSTER_KEEPING,
            HistoryRun.Fault.MASTER_RESTART,
            false));
  }

  /**
   * The standalone topology: the values in a pool process's segment, the app JVMs in {@code
   * standalone-store}; the pool gets kill -9 under load and a new one starts: every value is lost
   * once, between the kill and the moment the cluster shows the segment gone.
   */
  @Test
  void aPoolKilledAndReplacedLosesEveryValueOnce() throws Exception {
    assumeTrue(
        hasPool(),
        "skipped: no pool process here (a real run needs MOONCAKE_CLIENT, mooncake_client)");
    assertEveryRunClean(
        plan(
            "standalone pool kill -9 and restart",
            "cluster",
            HistoryRun.Fault.POOL_RESTART,
            false));
  }

  /** Whether {@link #openCluster}'s clusters can run the standalone topology with a pool. */
  protected boolean hasPool() {
    return true;
  }

  /** Whether {@link #openCluster}'s clusters have a master the test may kill and restart. */
  protected boolean canRestartMaster() {
    return false;
  }

  /** A plan for this test's sizes. */
  protected HistoryRun.Plan plan(
      String scenario, String consistency, HistoryRun.Fault fault, boolean cpuHog) {
    return new HistoryRun.Plan(
        scenario,
        consistency,
        fault,
        cpuHog,
        3,
        2,
        Integer.getInteger("history.keys", 5),
        Integer.getInteger("history.ops", defaultOperations()),
        Integer.getInteger("history.valueBytes", 256),
        Long.getLong("history.seed", System.nanoTime()),
        Duration.ofSeconds(Long.getLong("history.budgetSeconds", 30)));
  }

  protected static int runs() {
    return Integer.getInteger("history.runs", 1);
  }

  /** Runs the plan {@link #runs()} times; fails naming every run that was not clean. */
  protected void assertEveryRunClean(HistoryRun.Plan plan) throws Exception {
    List<String> failed = new ArrayList<>();
    for (int run = 1; run <= runs(); run++) {
      RunResult result = run(plan, run);
      List<String> problems = result.problems(KNOWN_SHARE);
      if (!problems.isEmpty()) {
        failed.add(
            "run " + run + " (" + result.summary() + "):\n  " + String.join("\n  ", problems));
      }
    }
    report(plan.scenario() + ": " + failed.size() + " of " + runs() + " runs not clean");
    assertTrue(failed.isEmpty(), String.join("\n", failed));
  }

  /** One run on a fresh cluster; its summary printed; its files kept when it was not clean. */
  protected RunResult run(HistoryRun.Plan plan, int run) throws Exception {
    HistoryRun.Plan seeded =
        new HistoryRun.Plan(
            plan.scenario(),
            plan.consistency(),
            plan.fault(),
            plan.cpuHog(),
            plan.jvms(),
            plan.threads(),
            plan.keys(),
            plan.ops(),
            plan.valueBytes(),
            plan.seed() + run,
            plan.budgetPerKey());
    Path dir =
        Path.of("target", "history", getClass().getSimpleName())
            .resolve(
                plan.scenario().replaceAll("[^A-Za-z0-9]+", "-")
                    + "-run"
                    + run
                    + "-"
                    + System.currentTimeMillis())
            .toAbsolutePath();
    Files.createDirectories(dir);
    RunResult result;
    try (HistoryCluster cluster = openCluster(dir)) {
      result = new HistoryRun(seeded, cluster, dir).run();
    } catch (Throwable e) {
      report("run " + run + " failed; its files are in " + dir);
      throw e;
    }
    report("run " + run + "/" + runs() + " seed " + seeded.seed() + " " + result.summary());
    boolean expected = plan.consistency().equals("local") != result.clean();
    if (!expected) {
      HistoryFile.write(dir.resolve("history.txt"), result.history());
      report("  kept in " + dir + ": " + result.report().summary().replace("\n", "\n  "));
    } else {
      delete(dir);
    }
    return result;
  }

  static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  protected void report(String line) {
    System.out.println("[history " + getClass().getSimpleName() + "] " + line);
  }
}
