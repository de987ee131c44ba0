package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.processor.EntryProcessor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One deadline per JCache operation on a real Mooncake (docs/lanes.md, "Deadlines"): 2 JVMs × 3
 * threads of mixed operations under {@code consistency: cluster} with {@code operation_timeout_ms}
 * 3000, during each fault of issue 32: the master stopped (SIGSTOP) 8 s then resumed; the master
 * killed (SIGKILL) and restarted; a third JVM stopped 8 s while it holds cluster locks on keys the
 * load uses; a third JVM whose segment holds every value stopped 8 s, or killed. The longest call
 * of each operation type, failures included, and of each probe a fault makes stays within the
 * timeout plus the slack the docs state. Prints a table: operation type → longest ms in each JVM.
 */
class RealDeadlinesTest {
  private static final long OPERATION_TIMEOUT_MS = 3_000;

  /**
   * The slack docs/lanes.md states for a timeout below 10,000 ms (every call bounded: about 100
   * ms), plus 400 ms for a thread not scheduled at once on a loaded 2-core machine (CI runs this
   * beside other test JVMs).
   */
  private static final long SLACK_MS = 500;

  private static final long BOUND_MS = OPERATION_TIMEOUT_MS + SLACK_MS;

  /**
   * The bound for calls timed in a JVM whose threads overslept a 10 ms sleep by up to {@code
   * stallMillis} during the scenario: the 400 ms of scheduling slack grows to that stall when the
   * machine was worse (seen: stalls of 0.9-2 s at load average 20-35, with calls late by as much).
   * A call that overruns its deadline by more than the JVM's own worst stall still fails, and the
   * allowance stops at {@link #STALL_CEILING_MS} (the worst stall seen) so that a regression cannot
   * hide behind a stall of its own size.
   */
  static long boundFor(long stallMillis) {
    return BOUND_MS + Math.min(STALL_CEILING_MS, Math.max(0, stallMillis - (SLACK_MS - 100)));
  }

  /** The most a JVM's own stalls add to the bound: 2 s, the worst stall seen (load 20-35). */
  static final long STALL_CEILING_MS = 2_000;

  private static final int PORT = 50081; // not RealHistoryCluster's 50071 nor the kill test's 50061
  private static final int THREADS = 3;
  private static final String CLUSTER = ",\n  \"consistency\": \"cluster\"";

  /** How long a stopped process stays stopped: below the master's client_ttl (10 s). */
  private static final long STOP_MS = 8_000;

  /** A hang guard for a peer's answer (a JVM start and a store open take a few s). */
  private static final Duration PEER_ANSWER = Duration.ofSeconds(120);

  /**
   * The keys the lock holder holds, out of the load's {@link #HELD_KEY_SPACE}: a quarter of the
   * load's calls meet a held lock. Plus one key no load touches, for the proof that they are held.
   */
  private static final List<String> HELD = List.of("k0", "k1", "k2", "k3");

  private static final int HELD_KEY_SPACE = 16;
  private static final String HELD_ALONE = "held-alone";

  /**
   * The segment the values live in: a fixed port in {@code local_hostname} makes Mooncake name the
   * segment exactly that, so {@code preferred_segments} can name it.
   */
  private static final String OWNER_SEGMENT = "127.0.0.1:17081";

  /** Keys only the segment's owner writes ({@code s0 …}): read from this JVM during the fault. */
  private static final String OWNER_KEYS = "s";

  private static final int OWNER_KEY_COUNT = 16;
  private static final long SEGMENT_BYTES = 64L << 20; // the configs' global_segment_size

  private static final EntryProcessor<String, String, Void> SET =
      (entry, args) -> {
        entry.setValue("v");
        return null;
      };

  @TempDir Path dir;

  @BeforeEach
  void available() {
    RealMooncake.assumeAvailable();
  }

  @Test
  void masterStoppedEightSecondsThenResumed() throws Exception {
    run(
        new Scenario(
            "master SIGSTOP 8 s",
            64,
            "",
            Step.NONE,
            run -> {
              RealMooncake.signal(run.master.pid(), "-STOP");
              TimeUnit.MILLISECONDS.sleep(STOP_MS); // the fault's length, not a synchronisation
              RealMooncake.signal(run.master.pid(), "-CONT");
            },
            Step.NONE));
  }

  @Test
  void masterKilledThenRestarted() throws Exception {
    run(
        new Scenario(
            "master kill -9, restart",
            64,
            "",
            Step.NONE,
            run -> {
              run.master.destroyForcibly().waitFor(); // SIGKILL
              TimeUnit.SECONDS.sleep(2); // down a while, as an operator restarts it
              run.master = RealMooncake.startMaster(PORT, dir, "master-restarted.log");
            },
            Step.NONE));
  }

  /**
   * A JVM takes the cluster locks of {@link #HELD} and {@link #HELD_ALONE} (its entry processors
   * wait inside them), is stopped 8 s, resumed, lets its processors return, and is killed. Proved
   * held while stopped: an invoke of {@link #HELD_ALONE} from this JVM fails at its deadline naming
   * the lock. Nothing stays stuck: once the master dropped the killed JVM's segment, every held key
   * takes an invoke from this JVM.
   *
   * <p>The resumed JVM's locks must be free before the kill: its invokes outlived their operation's
   * deadline (3 s) inside the processor, and each release still gets the release floor
   * (ClusterKeyLocks.RELEASE_FLOOR_NANOS) to read its record back and remove it, so no lock may
   * stay behind an idle JVM. At 164b3b2 on a loaded machine this failed (the lock stayed):
   * docs/reliability.md.
   */
  @Test
  void lockHolderStoppedEightSecondsResumedThenKilled() throws Exception {
    run(
        new Scenario(
            "lock holder SIGSTOP 8 s, SIGCONT, kill -9",
            HELD_KEY_SPACE,
            "",
            Step.NONE,
            run -> {
              PeerJvm holder = run.faultPeer(run.config);
              List<String> held = new ArrayList<>(HELD);
              held.add(HELD_ALONE);
              holder.send("hold " + String.join(" ", held));
              for (int i = 0; i < held.size(); i++) {
                holder.await("HOLDING ", PEER_ANSWER);
              }
              holder.signal("-STOP");
              long stopped = System.nanoTime();
              long start = System.nanoTime();
              CacheException refused =
                  assertThrows(CacheException.class, () -> run.cache.invoke(HELD_ALONE, SET));
              run.probed("invoke of a held key", start);
              String message = refused.getMessage();
              System.out.println("an invoke of a key the stopped JVM holds: " + message);
              // Only the stopped JVM ever took this key's lock (its processor said HOLDING).
              assertTrue(message.contains("cluster lock not acquired"), message);
              sleepUntil(stopped, STOP_MS); // the fault's length
              holder.signal("-CONT");
              holder.send("release");
              for (int i = 0; i < held.size(); i++) {
                System.out.println("the resumed holder: " + holder.await("INVOKED ", PEER_ANSWER));
              }
              long resumed = System.nanoTime();
              try {
                run.cache.invoke(HELD_ALONE, SET);
              } catch (CacheException stillHeld) {
                throw new AssertionError(
                    "after the resumed holder's release its lock is left behind (the release"
                        + " floor did not remove it): "
                        + MixedLoad.firstLine(stillHeld),
                    stillHeld);
              }
              run.probed("invoke of a held key", resumed);
              long mounted = RealMooncake.metric(PORT + 1000, "master_total_capacity_bytes");
              holder.kill();
              long bound = RealMooncake.CLIENT_TTL_MS + RealMooncake.DROP_SLACK_MS;
              assertTrue(
                  RealMooncake.awaitMountedAtMost(PORT + 1000, mounted - SEGMENT_BYTES, bound),
                  "the killed holder's segment still mounted after " + bound + " ms");
              awaitInvoke(run, HELD_ALONE); // no load competes for it
            },
            run -> {
              for (String key : HELD) {
                awaitInvoke(run, key); // once the load, which competes for them, has stopped
              }
            }));
  }

  /**
   * Every value lives in a third JVM's segment ({@code preferred_segments}); it is stopped 8 s,
   * then resumed. Its keys {@link #OWNER_KEYS} read from this JVM meanwhile: some fail (the segment
   * answers nothing), each by its deadline; afterwards they read again.
   */
  @Test
  void segmentOwnerStoppedEightSecondsThenResumed() throws Exception {
    run(
        new Scenario(
            "segment owner SIGSTOP 8 s",
            64,
            preferOwnersSegment(),
            RealDeadlinesTest::startSegmentOwner,
            run -> {
              assertOwnersKeysRead(run);
              run.owner.signal("-STOP");
              long stopped = System.nanoTime();
              OwnerKeyReads reads = new OwnerKeyReads(run.cache).start();
              sleepUntil(stopped, STOP_MS); // the fault's length
              run.owner.signal("-CONT");
              reads.stop(run);
              assertTrue(
                  reads.failed + reads.absent > 0,
                  "every read of the stopped JVM's keys answered: " + reads);
              awaitOwnersKeysRead(run);
            },
            Step.NONE));
  }

  /**
   * The same JVM killed: its keys read from this JVM answer absent until (and after) the master
   * drops its segment at client_ttl; every call meanwhile ends by its deadline.
   */
  @Test
  void segmentOwnerKilled() throws Exception {
    run(
        new Scenario(
            "segment owner kill -9",
            64,
            preferOwnersSegment(),
            RealDeadlinesTest::startSegmentOwner,
            run -> {
              assertOwnersKeysRead(run);
              long mounted = RealMooncake.metric(PORT + 1000, "master_total_capacity_bytes");
              run.owner.kill();
              OwnerKeyReads reads = new OwnerKeyReads(run.cache).start();
              long bound = RealMooncake.CLIENT_TTL_MS + RealMooncake.DROP_SLACK_MS;
              boolean dropped =
                  RealMooncake.awaitMountedAtMost(PORT + 1000, mounted - SEGMENT_BYTES, bound);
              reads.stop(run);
              assertTrue(dropped, "the killed JVM's segment still mounted after " + bound + " ms");
              assertTrue(reads.absent > 0, "the killed JVM's keys still answered: " + reads);
            },
            Step.NONE));
  }

  private static String preferOwnersSegment() {
    return ",\n  \"preferred_segments\": [\"" + OWNER_SEGMENT + "\"]";
  }

  /** Starts the segment's owner and lets it write {@link #OWNER_KEYS} and the load's keys. */
  private static void startSegmentOwner(Run run) throws Exception {
    Path config = run.config.resolveSibling("owner-" + run.config.getFileName());
    Files.writeString(
        config,
        Files.readString(run.config)
            .replace(
                "\"local_hostname\": \"127.0.0.1\"",
                "\"local_hostname\": \"" + OWNER_SEGMENT + "\""));
    run.owner = run.faultPeer(config);
    run.owner.send("fill " + OWNER_KEYS + " " + OWNER_KEY_COUNT);
    run.owner.await("FILLED", PEER_ANSWER);
    run.owner.send("fill k 64");
    run.owner.await("FILLED", PEER_ANSWER);
  }

  /** The owner's keys as it wrote them: they are there before the fault. */
  private static void assertOwnersKeysRead(Run run) {
    for (int i = 0; i < OWNER_KEY_COUNT; i++) {
      assertEquals("from-peer", run.cache.get(OWNER_KEYS + i), OWNER_KEYS + i);
    }
  }

  /**
   * After a resumed owner nothing stays stuck: within 10 s each of its keys reads without failing
   * (the reads given up on during the stop return first). Its value, or absent when the owner's
   * segment was dropped meanwhile (8 s stopped, then slow to ping on a loaded machine, passes the
   * master's client_ttl of 10 s): printed, not asserted.
   */
  private static void awaitOwnersKeysRead(Run run) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    int kept = 0;
    for (int i = 0; i < OWNER_KEY_COUNT; i++) {
      String key = OWNER_KEYS + i;
      while (true) {
        try {
          kept += "from-peer".equals(run.cache.get(key)) ? 1 : 0;
          break;
        } catch (CacheException notYet) {
          assertTrue(
              System.nanoTime() < deadline,
              key + " still failing 10 s after the resume: " + notYet);
          TimeUnit.MILLISECONDS.sleep(50); // another process's recovery
        }
      }
    }
    System.out.printf(
        "after the resume every key of the owner reads; %d of %d as it wrote them%n",
        kept, OWNER_KEY_COUNT);
  }

  /**
   * Nothing stuck behind a resumed lock holder: {@code key} takes an invoke from this JVM within 10
   * s (one attempt is at most the bound).
   */
  private static void awaitInvoke(Run run, String key) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        run.cache.invoke(key, SET);
        return;
      } catch (CacheException e) {
        assertTrue(
            System.nanoTime() < deadline, key + " still refused 10 s after the release: " + e);
        TimeUnit.MILLISECONDS.sleep(50); // a release going on in the other JVM
      }
    }
  }

  private static void sleepUntil(long startNanos, long millis) throws InterruptedException {
    long left = startNanos + TimeUnit.MILLISECONDS.toNanos(millis) - System.nanoTime();
    TimeUnit.NANOSECONDS.sleep(Math.max(0, left));
  }

  /** One step of a scenario, on the run it belongs to. */
  @FunctionalInterface
  private interface Step {
    Step NONE = run -> {};

    void apply(Run run) throws Exception;
  }

  /**
   * A fault: the load's key count, more config members, what is started before the load JVMs open
   * their stores, the fault itself (injected once the load runs) and what is checked once the load
   * stopped.
   */
  private record Scenario(
      String fault, int keys, String extra, Step prepare, Step inject, Step after) {}

  /** What one scenario's steps share. */
  private final class Run {
    Process master;
    Path config;
    Cache<String, String> cache;

    /** The segment owner of the segment scenarios. */
    PeerJvm owner;

    final List<PeerJvm> peers = new ArrayList<>();

    /** The longest of each kind of call a fault makes itself, in ms. */
    final Map<String, Long> probes = new TreeMap<>();

    /** A {@link RealDeadlinesFaultPeer} on {@code config}, once it printed READY. */
    PeerJvm faultPeer(Path config) throws Exception {
      PeerJvm peer =
          PeerJvm.start(
              RealDeadlinesFaultPeer.class,
              dir.resolve("fault-peer-" + peers.size() + ".err"),
              config.toString());
      peers.add(peer);
      peer.await("READY", PEER_ANSWER);
      return peer;
    }

    /** Notes a probe that started at {@code startNanos} and just ended. */
    void probed(String what, long startNanos) {
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
      synchronized (probes) {
        probes.merge(what, ms, Math::max);
      }
    }
  }

  /**
   * Reads of the owner's keys from this JVM on a thread of their own, until stopped: each timed (a
   * {@link Run#probed probe}), counted by what it answered.
   */
  private static final class OwnerKeyReads {
    private final Cache<String, String> cache;
    private final Thread thread;
    private volatile boolean stop;
    long read;
    long absent;
    long failed;
    long longestMillis;

    OwnerKeyReads(Cache<String, String> cache) {
      this.cache = cache;
      this.thread = new Thread(this::run, "owner-key-reads");
    }

    OwnerKeyReads start() {
      thread.start();
      return this;
    }

    private void run() {
      for (int i = 0; !stop; i++) {
        long start = System.nanoTime();
        try {
          if (cache.get(OWNER_KEYS + (i % OWNER_KEY_COUNT)) == null) {
            absent++;
          } else {
            read++;
          }
        } catch (CacheException e) {
          failed++;
        }
        longestMillis =
            Math.max(longestMillis, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      }
    }

    /** Stops the reads (the one in flight ends first) and notes the longest as a probe. */
    void stop(Run run) throws InterruptedException {
      stop = true;
      thread.join(); // the fields are read after the join: it orders them
      synchronized (run.probes) {
        run.probes.merge("get of the owner's keys", longestMillis, Math::max);
      }
      System.out.println("reads of the owner's keys during the fault: " + this);
    }

    @Override
    public String toString() {
      return read
          + " answered its value, "
          + absent
          + " absent, "
          + failed
          + " failed; longest "
          + longestMillis
          + " ms";
    }
  }

  private void run(Scenario scenario) throws Exception {
    Run run = new Run();
    run.master = RealMooncake.startMaster(PORT, dir, "master.log");
    CacheManager manager = null;
    try {
      run.config =
          RealMooncake.onMaster(
              RealMooncake.config(
                  dir,
                  "deadlines-" + UUID.randomUUID(),
                  "64MB",
                  OPERATION_TIMEOUT_MS,
                  CLUSTER + scenario.extra()),
              PORT);
      scenario.prepare().apply(run);
      manager =
          new MooncakeCachingProvider()
              .getCacheManager(run.config.toUri(), getClass().getClassLoader());
      run.cache =
          manager.createCache(
              "load",
              new MutableConfiguration<String, String>().setTypes(String.class, String.class));
      PeerJvm loadPeer =
          PeerJvm.start(
              RealDeadlinesPeer.class,
              dir.resolve("load-peer.err"),
              run.config.toString(),
              String.valueOf(THREADS),
              String.valueOf(scenario.keys()));
      run.peers.add(loadPeer);
      loadPeer.await("READY", PEER_ANSWER);
      Stalls stalls = new Stalls().start();
      String loadBefore = Stalls.loadAverage();
      MixedLoad load = new MixedLoad(run.cache, THREADS, "deadline-load", scenario.keys()).start();
      awaitCalls(load, 200);
      scenario.inject().apply(run);
      // after the fault: failures count, the bound holds for them
      awaitCalls(load, load.calls() + 200);
      Map<String, MixedLoad.OpStats> here = load.stop();
      loadPeer.send("stop");
      Map<String, MixedLoad.OpStats> there = new TreeMap<>();
      for (int i = 0; i < MixedLoad.OPERATIONS.size(); i++) {
        Map.Entry<String, MixedLoad.OpStats> op =
            MixedLoad.OpStats.parse(loadPeer.await("OP ", PEER_ANSWER));
        there.put(op.getKey(), op.getValue());
      }
      long stallHere = stalls.stop();
      long stallThere =
          Long.parseLong(loadPeer.await("STALL ", PEER_ANSWER).substring("STALL ".length()).trim());
      System.out.printf(
          "longest scheduling stall: %d ms here, %d ms in the load's peer; load average %s before,"
              + " %s after%n",
          stallHere, stallThere, loadBefore, Stalls.loadAverage());
      report(scenario.fault(), here, there, run.probes, boundFor(stallHere), boundFor(stallThere));
      scenario.after().apply(run);
    } finally {
      for (PeerJvm peer : run.peers) {
        peer.close();
      }
      if (manager != null) {
        manager.close();
      }
      run.master.destroyForcibly().waitFor(); // the next test's master takes the same port
    }
  }

  private static void report(
      String fault,
      Map<String, MixedLoad.OpStats> here,
      Map<String, MixedLoad.OpStats> there,
      Map<String, Long> probes,
      long boundHere,
      long boundThere) {
    StringBuilder table = new StringBuilder();
    table.append(
        String.format(
            "RealDeadlinesTest, %s (operation_timeout_ms %d, slack %d ms):%n"
                + "%-12s %8s %8s %16s %16s%n",
            fault,
            OPERATION_TIMEOUT_MS,
            SLACK_MS,
            "operation",
            "jvm-1",
            "jvm-2",
            "calls/failed-1",
            "calls/failed-2"));
    List<String> over = new ArrayList<>();
    List<String> longest = new ArrayList<>();
    for (String op : MixedLoad.OPERATIONS) {
      MixedLoad.OpStats a = here.getOrDefault(op, MixedLoad.OpStats.NONE);
      MixedLoad.OpStats b = there.getOrDefault(op, MixedLoad.OpStats.NONE);
      table.append(
          String.format(
              "%-12s %8d %8d %16s %16s%n",
              op,
              a.longestMillis(),
              b.longestMillis(),
              a.calls() + "/" + a.failures(),
              b.calls() + "/" + b.failures()));
      MixedLoad.OpStats worse = a.longestMillis() >= b.longestMillis() ? a : b;
      longest.add(op + " " + worse.longestMillis() + " ms: " + worse.longestOutcome());
      if (a.longestMillis() > boundHere || b.longestMillis() > boundThere) {
        over.add(op + " " + a.longestMillis() + " / " + b.longestMillis() + " ms");
      }
    }
    probes.forEach(
        (probe, ms) -> {
          table.append(String.format("%-12s %8d  (a probe of the fault's)%n", probe, ms));
          if (ms > boundHere) {
            over.add(probe + " " + ms + " ms");
          }
        });
    System.out.print(table);
    longest.forEach(line -> System.out.println("  the longest " + line));
    assertTrue(
        over.isEmpty(),
        "longer than operation_timeout_ms + slack ("
            + boundHere
            + " ms here, "
            + boundThere
            + " ms in the load's peer, each with its own scheduling stalls): "
            + over
            + "\n"
            + table);
  }

  private static void awaitCalls(MixedLoad load, long atLeast) throws InterruptedException {
    // Polls a counter of the load's threads: 60 s guards against a cluster that never answers.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (load.calls() < atLeast) {
      assertTrue(System.nanoTime() < deadline, "the load made no progress within 60 s");
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }
}
