package dev.mooncake.jcache.history;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One recorded run: {@code jvms} {@link HistoryPeer}s of {@code threads} threads each on a fresh
 * {@link HistoryCluster}, one fault injected a third of the way into the first victim's share,
 * every peer's history read back, the faults added as loss pseudo-operations, and the whole checked
 * per key ({@link LinearizabilityChecker}) and for values read under another key.
 */
final class HistoryRun {

  enum Fault {
    NONE,
    /** p0 gets kill -9; a replacement p0b (a new segment) does the rest of its share. */
    KILL,
    /** p1 gets SIGSTOP until the master has dropped its segment (past lease and TTL), then CONT. */
    PAUSE,
    /** The master gets kill -9 and a new one starts (real Mooncake only). */
    MASTER_RESTART,
    /**
     * The standalone topology: every value lives in a pool process's segment, which gets kill -9
     * and is replaced by a new pool (another segment name).
     */
    POOL_RESTART
  }

  /** What to run. {@code ops} is the total of the first JVMs' shares. */
  record Plan(
      String scenario,
      String consistency,
      Fault fault,
      boolean cpuHog,
      int jvms,
      int threads,
      int keys,
      int ops,
      int valueBytes,
      long seed,
      Duration budgetPerKey) {

    /** {@code consistency} with lock keeping on ({@code lock_keep_idle_ms}, below the lease). */
    static final String CLUSTER_KEEPING = "cluster+keeping";

    static final long KEEP_IDLE_MS = 500;

    /** The config's {@code consistency}. */
    String level() {
      return consistency.equals(CLUSTER_KEEPING) ? "cluster" : consistency;
    }

    /** The config's extra setting for {@link #CLUSTER_KEEPING}, else none. */
    String keepingSetting() {
      return consistency.equals(CLUSTER_KEEPING)
          ? ",\n  \"lock_keep_idle_ms\": " + KEEP_IDLE_MS
          : "";
    }
  }

  private final Plan plan;
  private final HistoryCluster cluster;
  private final Path dir;
  private final List<PeerProcess> peers = new ArrayList<>();
  private final List<Operation> losses = new ArrayList<>();
  private final List<String> timeline = new ArrayList<>();
  private Path config;
  private long unexpectedDrops;
  private long origin;

  HistoryRun(Plan plan, HistoryCluster cluster, Path dir) {
    this.plan = plan;
    this.cluster = cluster;
    this.dir = dir;
  }

  RunResult run() throws Exception {
    config = dir.resolve("config.json");
    Files.writeString(
        config,
        plan.fault() == Fault.POOL_RESTART
            ? cluster.startPoolAndConfigure(plan.level(), plan.keepingSetting())
            : cluster.config(plan.level(), cluster.defaultHostname(), plan.keepingSetting()));
    int share = plan.ops() / plan.jvms();
    long started = System.nanoTime();
    long ended;
    try {
      for (int i = 0; i < plan.jvms(); i++) {
        peers.add(start("p" + i, share));
      }
      for (PeerProcess peer : peers) {
        peer.awaitReady();
      }
      peers.get(0).otherLines().stream()
          .filter(line -> line.startsWith("THREADS "))
          .forEach(line -> timeline.add("per JVM " + line.substring(8).replace(" of ", "/")));
      try (CpuHog hog = plan.cpuHog() ? new CpuHog() : null) {
        if (hog != null) {
          timeline.add(hog.loops() + " busy loops during the run");
        }
        origin = System.nanoTime();
        peers.forEach(p -> p.send("go"));
        switch (plan.fault()) {
          case NONE -> {}
          case KILL -> kill(peers.get(0), share);
          case PAUSE -> pause(peers.get(1), share);
          case MASTER_RESTART -> restartMaster(peers.get(0), share);
          case POOL_RESTART -> restartPool(peers.get(0), share);
        }
        for (PeerProcess peer : peers) {
          if (peer.alive()) {
            peer.awaitDone();
          }
        }
        ended = System.nanoTime();
        checkDrops();
      }
    } finally {
      for (PeerProcess peer : peers) {
        peer.close();
      }
    }
    List<Operation> history = new ArrayList<>(losses);
    List<String> failures = new ArrayList<>();
    List<String> torn = new ArrayList<>();
    for (PeerProcess peer : peers) {
      PeerLogs.Parsed parsed = PeerLogs.read(log(peer.id));
      history.addAll(parsed.operations());
      failures.addAll(parsed.failures());
      torn.addAll(parsed.torn());
    }
    long checking = System.nanoTime();
    Report report =
        LinearizabilityChecker.check(
            LossStraddle.relaxed(history), Values::segmentOf, plan.budgetPerKey());
    long checked = System.nanoTime();
    return new RunResult(
        plan,
        history,
        failures,
        torn,
        foreignReads(history),
        unexpectedDrops,
        report,
        timeline,
        origin,
        ended - started,
        checked - checking);
  }

  /**
   * Segments the cluster dropped that no fault meant to (a client that missed its heartbeats, e.g.
   * on a loaded machine, loses its values unrecorded): a run with such a drop checks nothing.
   */
  private void checkDrops() throws Exception {
    PeerProcess live = peers.stream().filter(PeerProcess::alive).findFirst().orElseThrow();
    long dropped = cluster.droppedSegments(live);
    long meant =
        losses.stream().filter(op -> op.kind() == OpKind.LOSE_SEGMENT).count()
            + (plan.fault() == Fault.POOL_RESTART ? 1 : 0);
    if (dropped >= 0 && dropped != meant) {
      unexpectedDrops = dropped - meant;
      timeline.add("the cluster dropped " + dropped + " segments, the faults " + meant);
    }
  }

  private PeerProcess start(String id, int ops) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "config=" + config,
                "process=" + id,
                "out=" + log(id),
                "ops=" + ops,
                "threads=" + plan.threads(),
                "keys=" + plan.keys(),
                "valueBytes=" + plan.valueBytes(),
                "seed=" + (plan.seed() * 31 + id.hashCode()),
                "cache=history"));
    args.addAll(cluster.peerArguments());
    return PeerProcess.start(id, HistoryPeer.class, args, cluster.environment());
  }

  private Path log(String id) {
    return dir.resolve("history-" + id + ".log");
  }

  /** Some peer other than {@code victim} that runs, to ask the cluster through. */
  private PeerProcess witness(PeerProcess victim) {
    return peers.stream()
        .filter(p -> p != victim && p.alive())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no live peer besides " + victim.id));
  }

  private void kill(PeerProcess victim, int share) throws Exception {
    victim.awaitProgress(share / 3);
    PeerProcess witness = witness(victim);
    long before = cluster.mounted(witness);
    long killed = System.nanoTime();
    victim.signal("KILL");
    victim.awaitExit();
    long dropped = awaitDrop(witness, before, "killed " + victim.id);
    losses.add(Operation.loseSegment(victim.id, killed, dropped));
    timeline.add(
        "kill -9 "
            + victim.id
            + " at "
            + at(killed)
            + " (after "
            + victim.progress()
            + " ops), its segment gone by "
            + at(dropped));
    PeerProcess replacement = start(victim.id + "b", (int) Math.max(0, share - victim.progress()));
    peers.add(replacement);
    replacement.awaitReady();
    replacement.send("go");
    timeline.add("replacement " + replacement.id + " started at " + at(System.nanoTime()));
  }

  /** How often a pause that froze the fake's table is undone and tried at another moment. */
  private static final int PAUSE_ATTEMPTS = 20;

  private void pause(PeerProcess victim, int share) throws Exception {
    victim.awaitProgress(share / 3);
    PeerProcess witness = witness(victim);
    for (int attempt = 1; ; attempt++) {
      long before = cluster.mounted(witness);
      long stopped = System.nanoTime();
      victim.signal("STOP");
      if (!cluster.answersWhileAPeerIsStopped(witness)) {
        // Stopped inside the fake's critical section: nobody can run, nothing is dropped.
        victim.signal("CONT");
        timeline.add(
            "SIGSTOP " + victim.id + " at " + at(stopped) + " froze the cluster: SIGCONT, again");
        if (attempt == PAUSE_ATTEMPTS) {
          throw new AssertionError(
              PAUSE_ATTEMPTS + " pauses of " + victim.id + " froze the cluster");
        }
        Thread.sleep(50); // another moment of the victim's work, not a synchronisation
        continue;
      }
      long dropped = awaitDrop(witness, before, "paused " + victim.id);
      losses.add(Operation.loseSegment(victim.id, stopped, dropped));
      victim.signal("CONT");
      long resumed = System.nanoTime();
      timeline.add(
          "SIGSTOP "
              + victim.id
              + " at "
              + at(stopped)
              + " (after "
              + victim.progress()
              + " ops), its segment gone by "
              + at(dropped)
              + ", SIGCONT at "
              + at(resumed));
      return;
    }
  }

  private void restartMaster(PeerProcess marker, int share) throws Exception {
    marker.awaitProgress(share / 3);
    long killed = System.nanoTime();
    cluster.killMaster();
    cluster.startMaster();
    long up = System.nanoTime();
    losses.add(Operation.loseAll(killed, up));
    timeline.add("master kill -9 at " + at(killed) + ", a new master listening at " + at(up));
  }

  /**
   * Kills the pool under load, waits until the cluster shows its segment gone, and starts a new
   * one: every value (all of them live in the pool) is lost once, between the kill and the drop.
   */
  private void restartPool(PeerProcess marker, int share) throws Exception {
    marker.awaitProgress(share / 3);
    long before = cluster.mounted(marker);
    long killed = System.nanoTime();
    cluster.killPool();
    long dropped = awaitDrop(marker, before, "killed pool");
    losses.add(Operation.loseAll(killed, dropped));
    cluster.startPool();
    long up = System.nanoTime();
    timeline.add(
        "pool kill -9 at "
            + at(killed)
            + " (after "
            + marker.progress()
            + " ops), its segment gone by "
            + at(dropped)
            + ", a new pool mounted at "
            + at(up));
  }

  /**
   * Waits until the cluster's {@link HistoryCluster#mounted} measure falls below {@code before}:
   * the master (or the fake's table) has dropped the victim's segment and its objects. Polls: the
   * drop is another process's doing.
   */
  private long awaitDrop(PeerProcess witness, long before, String what) throws Exception {
    long deadline = System.nanoTime() + cluster.dropBound().toNanos();
    while (cluster.mounted(witness) >= before) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "the segment of the " + what + " was not dropped within " + cluster.dropBound());
      }
      Thread.sleep(10); // polling another process's state
    }
    return System.nanoTime();
  }

  private String at(long nanos) {
    return String.format(Locale.ROOT, "+%.3f s", (nanos - origin) / 1e9);
  }

  /** Value results whose id names another key than the operation's (or is no id of ours). */
  private List<String> foreignReads(List<Operation> history) {
    List<String> foreign = new ArrayList<>();
    for (Operation op : history) {
      if (!op.kind().isLoss() && returnsValue(op.kind()) && !op.outcomeUnknown()) {
        String result = op.result();
        if (!result.equals(Operation.ABSENT) && !op.key().equals(Values.ownerOf(result))) {
          foreign.add(op.key() + ": " + op.describe(origin));
        }
      }
    }
    return foreign;
  }

  static boolean returnsValue(OpKind kind) {
    return switch (kind) {
      case GET, GET_AND_PUT, GET_AND_REMOVE, GET_AND_REPLACE, INVOKE -> true;
      default -> false;
    };
  }

  static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
