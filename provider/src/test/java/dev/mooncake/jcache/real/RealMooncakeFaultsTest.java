package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import dev.mooncake.jcache.testing.ChildJava;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheLoader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults on a real Mooncake (profile real-mooncake, inside test-support/netns; skipped with the
 * reason otherwise): a master killed (SIGKILL) under load and a new one started; a JVM that
 * contributed a segment killed, and one exiting normally; the pool full of hard-pinned objects.
 * Figures are printed for docs/reliability.md and docs/real-mooncake.md. Phases follow latches
 * (enough calls succeeded, every thread saw the dead master, every thread succeeded again); what is
 * polled is only another process: a master coming up, the master's client_ttl running out.
 */
class RealMooncakeFaultsTest {
  private static final long OPERATION_TIMEOUT_MS = 3_000;
  private static final long CLIENT_TTL_MS = RealMooncake.CLIENT_TTL_MS;
  private static final long SEGMENT_BYTES = 64L << 20; // config(...)'s segment

  /**
   * The kill test's own master, so the wrapper's (every other test's) lives on. A fixed port is
   * safe: the test JVM has a network namespace of its own, and the master is killed by the end.
   */
  private static final int KILL_PORT = 50061;

  private static final int THREADS = 4;

  /** Scheduling on this loaded 2-core machine, and the cache's own work around the calls. */
  private static final long MARGIN_MS = 1_000;

  @TempDir Path dir;

  @BeforeEach
  void cluster() {
    RealMooncake.assumeAvailable();
  }

  private Path config(String tenant, String extra) throws Exception {
    return RealMooncake.config(
        dir, tenant, SEGMENT_BYTES / (1 << 20) + "MB", OPERATION_TIMEOUT_MS, extra);
  }

  /** What the load saw: calls by outcome and phase, the longest call, phase timestamps. */
  private static final class Load {
    final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    final AtomicLong longestMillis = new AtomicLong();
    final AtomicReference<String> longestOutcome = new AtomicReference<>();

    /** The longest call that did not fail in the cluster lock (see the bounds below). */
    final AtomicLong longestOutsideLockMillis = new AtomicLong();

    final AtomicLong killedAt = new AtomicLong();
    final AtomicLong restartedAt = new AtomicLong();
    final AtomicLong firstSuccessAfterRestart = new AtomicLong();
    final CountDownLatch warm = new CountDownLatch(200);
    final CountDownLatch everyThreadFailed = new CountDownLatch(THREADS);
    final CountDownLatch everyThreadRecovered = new CountDownLatch(THREADS);
    final AtomicBoolean stop = new AtomicBoolean();

    void run(Cache<String, String> cache, int id) {
      boolean failed = false;
      boolean recovered = false;
      for (int i = 0; !stop.get(); i++) {
        long start = System.nanoTime();
        boolean afterKill = killedAt.get() != 0;
        boolean afterRestart = restartedAt.get() != 0;
        String phase = afterRestart ? "after restart" : afterKill ? "while down" : "before kill";
        String outcome;
        String failure = "";
        try {
          if (i % 2 == 0) {
            cache.put("k" + id + "-" + (i % 50), "v" + i);
          } else {
            cache.get("k" + id + "-" + (i % 50));
          }
          outcome = "ok " + phase;
          if (!afterKill) {
            warm.countDown();
          } else if (afterRestart && !recovered) {
            recovered = true;
            firstSuccessAfterRestart.compareAndSet(0, System.nanoTime());
            everyThreadRecovered.countDown();
          }
        } catch (CacheException e) {
          failure = e.getMessage();
          outcome =
              "CacheException "
                  + phase
                  + (e.getMessage().matches("(?s).*-\\d{3,4} [A-Z_]+.*")
                      ? " naming the status"
                      : " without a status: " + e.getMessage());
          if (afterKill && !failed) {
            failed = true;
            everyThreadFailed.countDown();
          }
        }
        long took = (System.nanoTime() - start) / 1_000_000;
        if (!failure.contains("cluster lock not acquired")) {
          longestOutsideLockMillis.accumulateAndGet(took, Math::max);
        }
        if (longestMillis.accumulateAndGet(took, Math::max) == took) {
          longestOutcome.set((i % 2 == 0 ? "put: " : "get: ") + outcome + " " + failure);
        }
        outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
      }
    }

    Map<String, Long> counts() {
      Map<String, Long> counts = new TreeMap<>();
      outcomes.forEach((k, v) -> counts.put(k, v.sum()));
      return counts;
    }
  }

  @Test
  void masterKilledUnderLoadThenANewMaster() throws Exception {
    Process master = RealMooncake.startMaster(KILL_PORT, dir, "master-killed.log");
    Process newMaster = null;
    CacheManager manager = null;
    try {
      manager =
          new MooncakeCachingProvider()
              .getCacheManager(
                  RealMooncake.onMaster(config("kill-" + UUID.randomUUID(), ""), KILL_PORT).toUri(),
                  getClass().getClassLoader());
      Cache<String, String> cache =
          manager.createCache(
              "load",
              new MutableConfiguration<String, String>().setTypes(String.class, String.class));
      Load load = new Load();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int id = t;
        Thread thread = new Thread(() -> load.run(cache, id), "fault-load-" + t);
        thread.start();
        threads.add(thread);
      }
      // 200 calls on a healthy master take well under a second; 60 s only guards against a hang.
      assertTrue(load.warm.await(60, TimeUnit.SECONDS), "no load before the kill");
      master.destroyForcibly(); // SIGKILL
      master.waitFor();
      load.killedAt.set(System.nanoTime());
      // Each thread's next call fails: a call inside Mooncake at the kill within one operation
      // timeout, the one after it within another; + 10 s slack for a loaded machine.
      boolean allFailed =
          load.everyThreadFailed.await(2 * OPERATION_TIMEOUT_MS + 10_000, TimeUnit.MILLISECONDS);
      long downMillis = (System.nanoTime() - load.killedAt.get()) / 1_000_000;
      newMaster = RealMooncake.startMaster(KILL_PORT, dir, "master-restarted.log");
      load.restartedAt.set(System.nanoTime());
      // Measured 0.2-1.1 s to the first success; 60 s only guards against a client that never
      // reconnects (then the assertion below fails, saying so).
      boolean allRecovered = load.everyThreadRecovered.await(60, TimeUnit.SECONDS);
      load.stop.set(true);
      for (Thread thread : threads) {
        // the call in flight: at most two operation timeouts (as above) + 5 s slack
        thread.join(2 * OPERATION_TIMEOUT_MS + 5_000);
        assertFalse(thread.isAlive(), "a call hung: " + thread.getName());
      }
      Map<String, Long> counts = load.counts();
      long toFirst =
          load.firstSuccessAfterRestart.get() == 0
              ? -1
              : (load.firstSuccessAfterRestart.get() - load.restartedAt.get()) / 1_000_000;
      System.out.printf(
          "master kill -9 under load: %s; master down %d ms; longest call %d ms (operation"
              + " timeout %d ms); first success %d ms after the new master listened%n",
          counts, downMillis, load.longestMillis.get(), OPERATION_TIMEOUT_MS, toFirst);
      System.out.println(
          "the longest call not failing in the cluster lock: "
              + load.longestOutsideLockMillis.get()
              + " ms");
      System.out.println("the longest call: " + load.longestOutcome.get());
      assertTrue(allFailed, "a thread never failed against the dead master: " + counts);
      // Before MasterOutage: 9,036 / 9,298 ms (each of a put's C calls paid Mooncake's reconnect
      // loop, 4.3-4.8 s); with it alone 4,349 / 3,437 ms (a call inside Mooncake at the kill paid
      // the loop once). Now a caller waits for a C call at most the operation timeout (a call
      // given up on goes on in the background), the breaker fails the rest fast, and the calls of
      // one cluster lock acquisition share its deadline (docs/reliability.md, "Faults"): every
      // call ends within the timeout + the margin. Before the shared deadline a lock acquisition
      // that ran out was seen at 4.27-4.29 s (3 of 5 runs on branch floor).
      long bound = OPERATION_TIMEOUT_MS + MARGIN_MS;
      assertTrue(
          load.longestOutsideLockMillis.get() <= bound,
          "a call took " + load.longestOutsideLockMillis.get() + " ms, more than " + bound);
      assertTrue(
          load.longestMillis.get() <= bound,
          "a call took "
              + load.longestMillis.get()
              + " ms, more than "
              + bound
              + ": "
              + load.longestOutcome.get());
      assertTrue(allRecovered, "not every thread succeeded within 60 s of the new master");
      assertTrue(
          counts.keySet().stream().noneMatch(k -> k.contains("without a status")),
          counts.toString());
    } finally {
      if (manager != null) {
        manager.close();
      }
      master.destroyForcibly();
      if (newMaster != null) {
        newMaster.destroyForcibly().waitFor();
      }
    }
  }

  /** Read-through: what this JVM loads when the object is gone. */
  public static final class Loader implements CacheLoader<String, String> {
    @Override
    public String load(String key) {
      return "loaded-" + key;
    }

    @Override
    public Map<String, String> loadAll(Iterable<? extends String> keys) {
      Map<String, String> all = new java.util.HashMap<>();
      keys.forEach(k -> all.put(k, load(k)));
      return all;
    }
  }

  @Test
  void objectsOfAKilledJvmReadAsAbsentThenLoadAgain() throws Exception {
    objectsOfAPeerThatLeaves(true);
  }

  @Test
  void objectsOfAJvmThatExitsNormallyReadAsAbsentThenLoadAgain() throws Exception {
    objectsOfAPeerThatLeaves(false);
  }

  private void objectsOfAPeerThatLeaves(boolean kill) throws Exception {
    Path config = config("peer-" + UUID.randomUUID(), "");
    Process peer =
        new ProcessBuilder(
                ChildJava.java(),
                ChildJava.NATIVE_ACCESS,
                "-cp",
                System.getProperty("java.class.path"),
                RealMooncakePeer.class.getName(),
                "peer",
                config.toString())
            .redirectErrorStream(true)
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
    PrintWriter in = new PrintWriter(peer.getOutputStream(), true, StandardCharsets.UTF_8);
    // The peer's output until READY (its log before it); a peer that neither prints it nor ends
    // is killed after 120 s (a JVM start and a store open take a few s, the rest is slack).
    java.util.concurrent.CompletableFuture<String> ready =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                String line;
                while ((line = out.readLine()) != null && !line.equals("READY")) {
                  // the peer's log
                }
                return line;
              } catch (IOException e) {
                return "reading the peer: " + e;
              }
            },
            runnable -> daemon(runnable, "peer-ready"));
    String line;
    try {
      line = ready.get(120, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      peer.destroyForcibly();
      line = "nothing within 120 s";
    }
    assertEquals("READY", line, "the peer did not start");
    int keys = 20;
    for (int i = 0; i < keys; i++) {
      in.println("put p" + i + " from-peer-" + i);
      assertEquals("OK done", out.readLine());
    }
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    CacheManager manager = provider.getCacheManager(config.toUri(), getClass().getClassLoader());
    try {
      Cache<String, String> shared =
          manager.createCache(
              "shared",
              new MutableConfiguration<String, String>()
                  .setTypes(String.class, String.class)
                  .setReadThrough(true)
                  .setCacheLoaderFactory(FactoryBuilder.factoryOf(Loader.class)));
      for (int i = 0; i < keys; i++) {
        assertEquals("from-peer-" + i, shared.get("p" + i), "the peer's object before it left");
      }
      long mountedBefore = RealMooncake.mountedBytes(); // the peer's segment and ours
      long left = System.nanoTime();
      if (kill) {
        peer.destroyForcibly(); // SIGKILL
      } else {
        in.close(); // the peer's serve loop ends; main returns; the JVM exits normally
      }
      // An exit takes at most 2 s + Mooncake's destroy, 4 s (RealPromptExitTest's bounds); 30 s
      // leaves the rest as slack for a loaded machine.
      assertTrue(peer.waitFor(30, TimeUnit.SECONDS), "the peer did not end within 30 s");
      // Reads answer absent at once since the -800 fix (1.3-1.5 s measured); the bound is what
      // it was before the fix, the master's client_ttl, + 10 s slack for a loaded machine.
      long deadline = left + TimeUnit.MILLISECONDS.toNanos(CLIENT_TTL_MS + 10_000);
      int errors = 0;
      int transferFailures = 0;
      List<String> errorMessages = new ArrayList<>();
      boolean[] reloaded = new boolean[keys];
      int remaining = keys;
      while (remaining > 0 && System.nanoTime() < deadline) {
        for (int i = 0; i < keys; i++) {
          if (reloaded[i]) {
            continue;
          }
          try {
            String value = shared.get("p" + i);
            if (("loaded-p" + i).equals(value)) {
              reloaded[i] = true;
              remaining--;
            }
          } catch (CacheException e) {
            // Until the master drops the dead peer (client_ttl), Mooncake answers a read of its
            // object -800 TRANSFER_FAIL (it still names the segment); the cache must read that as
            // absent (before the fix 980 / 820 reads failed so). No failure is accepted.
            if (e.getMessage().contains("-800 TRANSFER_FAIL")) {
              transferFailures++;
            } else {
              errors++;
            }
            if (errorMessages.size() < 3) {
              errorMessages.add(e.getMessage());
            }
          }
        }
        Thread.sleep(100); // polling the master's client_ttl expiry (another process's clock)
      }
      long millis = (System.nanoTime() - left) / 1_000_000;
      System.out.printf(
          "peer %s: %d of %d objects read as absent and loaded again within %d ms;"
              + " %d reads failed with -800 TRANSFER_FAIL meanwhile, %d otherwise %s%n",
          kill ? "killed (SIGKILL)" : "exited normally",
          keys - remaining,
          keys,
          millis,
          transferFailures,
          errors,
          errorMessages);
      assertEquals(0, remaining, "objects of the departed peer still answered");
      assertEquals(
          0, transferFailures, "reads failed with -800 instead of missing: " + errorMessages);
      assertEquals(0, errors, "reads failed instead of missing: " + errorMessages);
      // The departed peer's segment leaves the master: at once on a normal exit (its hook
      // unmounts it), at client_ttl after a kill. Waiting for it here also leaves the master as
      // the next test expects it: a dead segment still mounted takes puts that then fail -800.
      long dropBound = CLIENT_TTL_MS + RealMooncake.DROP_SLACK_MS;
      boolean dropped =
          RealMooncake.awaitMountedAtMost(
              mountedBefore - SEGMENT_BYTES,
              Math.max(0, dropBound - (System.nanoTime() - left) / 1_000_000));
      assertTrue(
          dropped,
          "the departed peer's segment was still mounted "
              + dropBound
              + " ms after it left (client_ttl "
              + CLIENT_TTL_MS
              + " ms + "
              + RealMooncake.DROP_SLACK_MS
              + " ms for the master's sweep and a loaded machine)");
    } finally {
      manager.close();
      peer.destroyForcibly();
    }
  }

  @Test
  void poolFullOfHardPinnedObjectsThenSpaceReturns() throws Exception {
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    CacheManager manager =
        provider.getCacheManager(
            config(
                    "pinned-" + UUID.randomUUID(),
                    ", \"with_hard_pin\": true, \"abi\": \"" + RealMooncake.abi() + "\"")
                .toUri(),
            getClass().getClassLoader());
    try {
      Cache<String, byte[]> cache =
          manager.createCache(
              "pinned",
              new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
      // "Full" means every segment full: a segment of a JVM an earlier test killed can still be
      // mounted (until client_ttl, 10 s), and a hard-pinned put that no longer fits ours may be
      // placed there and fail -800. Wait, bounded, until the master counts our 64 MB alone.
      RealMooncake.awaitNoDepartedSegments(SEGMENT_BYTES);
      byte[] value = new byte[1 << 20];
      int stored = 0;
      CacheException full = null;
      for (int i = 0; i < 1_000 && full == null; i++) {
        Arrays.fill(value, (byte) i);
        try {
          cache.put("k" + i, value.clone());
          stored++;
        } catch (CacheException e) {
          full = e;
        }
      }
      assertNotNull(full, "64 MB never filled with 1 MiB hard-pinned objects");
      System.out.printf(
          "real pool full after %d hard-pinned 1 MiB puts: %s%n", stored, full.getMessage());
      assertTrue(full.getMessage().contains("-200"), full.getMessage());
      for (int i = 0; i < stored; i++) {
        byte[] expected = new byte[1 << 20];
        Arrays.fill(expected, (byte) i);
        assertArrayEquals(expected, cache.get("k" + i), "k" + i);
      }
      for (int i = 0; i < 4; i++) {
        assertTrue(cache.remove("k" + i));
      }
      cache.put("after", value.clone());
      assertNotNull(cache.get("after"));
      cache.clear();
    } finally {
      manager.close();
    }
  }

  /** Runs {@code task} on a daemon thread of its own: a blocking read, not for a shared pool. */
  private static void daemon(Runnable task, String name) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
  }
}
