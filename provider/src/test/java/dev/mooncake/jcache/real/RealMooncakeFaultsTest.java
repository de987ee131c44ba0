package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
 * reason otherwise): the master killed (SIGKILL) under load and a new one started; a JVM that
 * contributed a segment killed, and one exiting normally; the pool full of hard-pinned objects.
 * Figures are printed for docs/reliability.md and docs/real-mooncake.md.
 */
class RealMooncakeFaultsTest {
  private static final long OPERATION_TIMEOUT_MS = 3_000;
  private static final long CLIENT_TTL_MS = 10_000; // mooncake_master --client_ttl default

  @TempDir Path dir;

  @BeforeEach
  void cluster() {
    RealMooncake.assumeAvailable();
  }

  private Path config(String tenant, String extra) throws Exception {
    Path file = dir.resolve("faults-" + tenant + ".json");
    Files.writeString(
        file,
        """
        {
          "backend": "mooncake", "mode": "embedded",
          "master_server_address": "127.0.0.1:50051", "metadata_server": "P2PHANDSHAKE",
          "protocol": "tcp", "local_hostname": "127.0.0.1",
          "global_segment_size": "64MB", "local_buffer_size": "32MB",
          "operation_timeout_ms": %d, "tenant_id": "%s"%s
        }
        """
            .formatted(OPERATION_TIMEOUT_MS, tenant, extra));
    return file;
  }

  private static Process startMaster() throws Exception {
    return new ProcessBuilder(
            System.getenv("MOONCAKE_MASTER"),
            "--rpc_address=127.0.0.1",
            "--rpc_port=50051",
            "--metrics_host=127.0.0.1",
            "--metrics_port=9003",
            "--default_kv_lease_ttl=500")
        .redirectErrorStream(true)
        .redirectOutput(dir().resolve("master-restarted.log").toFile())
        .start();
  }

  private static Path dir() {
    return Path.of(System.getProperty("java.io.tmpdir"));
  }

  @Test
  void masterKilledUnderLoadThenANewMaster() throws Exception {
    String pid = System.getenv("MCJ_MASTER_PID");
    assumeTrue(
        pid != null, "skipped: MCJ_MASTER_PID (set by test-support/netns/bin/java) is not set");
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    CacheManager manager =
        provider.getCacheManager(
            config("kill-" + UUID.randomUUID(), "").toUri(), getClass().getClassLoader());
    Process newMaster = null;
    try {
      Cache<String, String> cache =
          manager.createCache(
              "load",
              new MutableConfiguration<String, String>().setTypes(String.class, String.class));
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong longestMillis = new AtomicLong();
      AtomicLong killedAt = new AtomicLong();
      AtomicLong restartedAt = new AtomicLong();
      AtomicLong firstSuccessAfterRestart = new AtomicLong();
      Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int id = t;
        Thread thread =
            new Thread(
                () -> {
                  for (int i = 0; !stop.get(); i++) {
                    long start = System.nanoTime();
                    String outcome;
                    try {
                      if (i % 2 == 0) {
                        cache.put("k" + id + "-" + (i % 50), "v" + i);
                      } else {
                        cache.get("k" + id + "-" + (i % 50));
                      }
                      outcome =
                          killedAt.get() == 0
                              ? "ok before kill"
                              : restartedAt.get() == 0 ? "ok while down" : "ok after restart";
                      if (restartedAt.get() != 0) {
                        firstSuccessAfterRestart.compareAndSet(0, System.nanoTime());
                      }
                    } catch (CacheException e) {
                      outcome =
                          "CacheException "
                              + (e.getMessage().matches("(?s).*-\\d{3,4} [A-Z_]+.*")
                                  ? "naming the status"
                                  : "without a status: " + e.getMessage());
                    }
                    longestMillis.accumulateAndGet(
                        (System.nanoTime() - start) / 1_000_000, Math::max);
                    outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
                  }
                },
                "fault-load-" + t);
        thread.start();
        threads.add(thread);
      }
      Thread.sleep(2_000); // load before the kill
      new ProcessBuilder("kill", "-9", pid).start().waitFor();
      killedAt.set(System.nanoTime());
      Thread.sleep(2 * OPERATION_TIMEOUT_MS); // calls in flight and new ones meet a dead master
      newMaster = startMaster();
      restartedAt.set(System.nanoTime());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (firstSuccessAfterRestart.get() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      Thread.sleep(1_000);
      stop.set(true);
      for (Thread thread : threads) {
        thread.join(2 * OPERATION_TIMEOUT_MS + 5_000);
        assertTrue(!thread.isAlive(), "a call hung: " + thread.getName());
      }
      Map<String, Long> counts = new TreeMap<>();
      outcomes.forEach((k, v) -> counts.put(k, v.sum()));
      long toFirst =
          firstSuccessAfterRestart.get() == 0
              ? -1
              : (firstSuccessAfterRestart.get() - restartedAt.get()) / 1_000_000;
      System.out.printf(
          "master kill -9 under load: %s; longest call %d ms (operation timeout %d"
              + " ms); first success %d ms after the new master started%n",
          counts, longestMillis.get(), OPERATION_TIMEOUT_MS, toFirst);
      assertTrue(
          longestMillis.get() <= OPERATION_TIMEOUT_MS + 2_000,
          "a call took " + longestMillis.get() + " ms");
      assertTrue(toFirst >= 0, "no call succeeded within 60 s of the new master");
      assertTrue(
          counts.keySet().stream().noneMatch(k -> k.contains("without a status")),
          counts.toString());
    } finally {
      manager.close();
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
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
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
    String line;
    while ((line = out.readLine()) != null && !line.equals("READY")) {
      // the peer's log
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
      long left = System.nanoTime();
      if (kill) {
        peer.destroyForcibly(); // SIGKILL
      } else {
        in.close(); // the peer's serve loop ends; main returns; the JVM exits normally
      }
      assertTrue(peer.waitFor(30, TimeUnit.SECONDS));
      long deadline = left + TimeUnit.MILLISECONDS.toNanos(CLIENT_TTL_MS + 10_000);
      int errors = 0;
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
            errors++;
            if (errorMessages.size() < 3) {
              errorMessages.add(e.getMessage());
            }
          }
        }
        Thread.sleep(100);
      }
      long millis = (System.nanoTime() - left) / 1_000_000;
      System.out.printf(
          "peer %s: %d of %d objects read as absent and loaded again within %d ms;"
              + " %d reads failed meanwhile %s%n",
          kill ? "killed (SIGKILL)" : "exited normally",
          keys - remaining,
          keys,
          millis,
          errors,
          errorMessages);
      assertEquals(0, remaining, "objects of the departed peer still answered");
      assertEquals(0, errors, "reads failed instead of missing: " + errorMessages);
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
            config("pinned-" + UUID.randomUUID(), ", \"with_hard_pin\": true").toUri(),
            getClass().getClassLoader());
    try {
      Cache<String, byte[]> cache =
          manager.createCache(
              "pinned",
              new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
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
}
