package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.reliability.CtrlC;
import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import dev.mooncake.jcache.testing.ChildJava;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Against a real Mooncake master on loopback (profile real-mooncake; skipped with the reason
 * otherwise): the provider's operations, two JVMs seeing each other's changes, and a JVM holding an
 * open store that still stops and runs its shutdown hooks on SIGINT, SIGTERM and exit.
 */
class RealMooncakeTest {
  @TempDir Path dir;
  private Path config;

  @BeforeEach
  void cluster() throws Exception {
    RealMooncake.assumeAvailable();
    config = RealMooncake.config(dir, "real-" + UUID.randomUUID());
  }

  @Test
  void cacheOperationsOnARealCluster() {
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    try (CacheManager manager =
        provider.getCacheManager(config.toUri(), getClass().getClassLoader())) {
      Cache<String, String> cache =
          manager.createCache(
              "ops",
              new MutableConfiguration<String, String>().setTypes(String.class, String.class));
      cache.put("a", "1");
      assertEquals("1", cache.get("a"));
      cache.put("a", "2");
      assertEquals("2", cache.get("a"), "an overwrite must replace the value");
      assertFalse(cache.putIfAbsent("a", "3"));
      assertTrue(cache.replace("a", "2", "4"));
      assertEquals("4", cache.invoke("a", (e, args) -> e.getValue()));
      cache.putAll(Map.of("b", "5", "c", "6"));
      assertEquals(Map.of("a", "4", "b", "5", "c", "6"), cache.getAll(Set.of("a", "b", "c")));
      assertTrue(cache.remove("b"));
      assertNull(cache.get("b"));
      cache.clear();
      assertNull(cache.get("a"));
    }
  }

  @Test
  void managersOpenAndCloseRepeatedly() {
    for (int round = 0; round < 8; round++) {
      MooncakeCachingProvider provider = new MooncakeCachingProvider();
      try (CacheManager manager =
          provider.getCacheManager(config.toUri(), getClass().getClassLoader())) {
        Cache<String, String> cache =
            manager.createCache(
                "round",
                new MutableConfiguration<String, String>().setTypes(String.class, String.class));
        cache.put("k", "v" + round);
        assertEquals("v" + round, cache.get("k"));
        manager.destroyCache("round");
      }
      provider.close();
    }
  }

  @Test
  void twoManagersInOneJvmLiveSideBySide() throws Exception {
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    ClassLoader other =
        new java.net.URLClassLoader(new java.net.URL[0], getClass().getClassLoader());
    CacheManager first = provider.getCacheManager(config.toUri(), getClass().getClassLoader());
    CacheManager second = provider.getCacheManager(config.toUri(), other);
    Cache<String, String> a =
        first.createCache(
            "side",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    Cache<String, String> b =
        second.createCache(
            "side",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    a.put("k", "from-first");
    assertEquals("from-first", b.get("k"), "same tenant and cache: one namespace");
    // Both managers lease the process's one Mooncake client (SharedMooncakeStores): closing the
    // first gives its lease back and nothing else, at once; nothing happens later to wait for.
    first.close();
    assertEquals("from-first", b.get("k"), "the first manager's close took the client away");
    b.put("k2", "still-working");
    assertEquals("still-working", b.get("k2"));
    second.close();
    provider.close();
  }

  @Test
  void twoJvmsSeeEachOthersChanges() throws Exception {
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    Process peer = startPeer("peer");
    try (CacheManager manager =
            provider.getCacheManager(config.toUri(), getClass().getClassLoader());
        PrintWriter toPeer = new PrintWriter(peer.getOutputStream(), true, StandardCharsets.UTF_8);
        BufferedReader fromPeer =
            new BufferedReader(
                new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8))) {
      awaitLine(fromPeer, "READY");
      Cache<String, String> cache =
          manager.createCache(
              "shared",
              new MutableConfiguration<String, String>().setTypes(String.class, String.class));

      cache.put("k", "one");
      assertEquals("OK one", ask(toPeer, fromPeer, "get k"), "the peer did not see the put");
      cache.put("k", "two");
      assertEquals("OK two", ask(toPeer, fromPeer, "get k"), "the peer did not see the overwrite");
      cache.remove("k");
      assertEquals("OK null", ask(toPeer, fromPeer, "get k"), "the peer did not see the remove");
      assertEquals("OK done", ask(toPeer, fromPeer, "put p from-peer"));
      assertEquals("from-peer", cache.get("p"), "this JVM did not see the peer's put");
    } finally {
      stop(peer);
    }
  }

  /**
   * SIGTERM, then SIGKILL if the peer still runs after 20 s (its exit: the provider's hook, at most
   * 2 s, and Mooncake's destroy, at most 4 s, as RealPromptExitTest bounds them; + 14 s slack), so
   * that no peer outlives the test.
   */
  private static void stop(Process peer) throws InterruptedException {
    peer.destroy();
    if (!peer.waitFor(20, TimeUnit.SECONDS)) {
      peer.destroyForcibly().waitFor();
    }
  }

  @Test
  void anUnreachableMasterFailsWithinTheTimeoutNamingIt() throws Exception {
    Path nowhere = dir.resolve("nowhere.json");
    java.nio.file.Files.writeString(
        nowhere,
        java.nio.file.Files.readString(config)
            .replace("127.0.0.1:50051", "127.0.0.1:50999")
            .replace("\"operation_timeout_ms\": 10000", "\"operation_timeout_ms\": 3000"));
    long start = System.nanoTime();
    javax.cache.CacheException error =
        org.junit.jupiter.api.Assertions.assertThrows(
            javax.cache.CacheException.class,
            () ->
                new MooncakeCachingProvider()
                    .getCacheManager(nowhere.toUri(), getClass().getClassLoader()));
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    // The provider bounds Mooncake's setup by operation_timeout_ms (measured 3,045 ms).
    assertTrue(
        millis <= 3_000 + 2_000,
        "failing took "
            + millis
            + " ms; the bound is operation_timeout_ms 3000 + 2 s slack for a loaded machine");
    assertTrue(error.getMessage().contains("127.0.0.1:50999"), error.getMessage());
  }

  @Test
  void aHungMasterMakesCallsFailInsteadOfHanging() throws Exception {
    String masterPid = System.getenv("MCJ_MASTER_PID");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        masterPid != null, "the wrapper did not say which process the master is");
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    try (CacheManager manager =
        provider.getCacheManager(config.toUri(), getClass().getClassLoader())) {
      Cache<String, String> cache =
          manager.createCache(
              "hung",
              new MutableConfiguration<String, String>().setTypes(String.class, String.class));
      cache.put("k", "v");
      java.util.concurrent.ExecutorService caller =
          java.util.concurrent.Executors.newSingleThreadExecutor();
      signal("STOP", masterPid);
      try {
        java.util.concurrent.Future<String> outcome =
            caller.submit(
                () -> {
                  try {
                    cache.put("k2", "v2");
                    return "answered: " + cache.get("k2");
                  } catch (javax.cache.CacheException e) {
                    return "failed: " + e.getMessage();
                  }
                });
        // Each call waits at most operation_timeout_ms (10 s; measured 11.6 s for the whole test);
        // 90 s tells a hang (TimeoutException) from a slow failure, with room for a loaded machine.
        String result = outcome.get(90, TimeUnit.SECONDS);
        assertTrue(result.startsWith("failed: "), "a call to a hung master " + result);
      } finally {
        signal("CONT", masterPid);
        caller.shutdownNow();
      }
    }
  }

  private static void signal(String signal, String pid) throws Exception {
    assertEquals(0, new ProcessBuilder("kill", "-" + signal, pid).inheritIO().start().waitFor());
  }

  @Test
  void ctrlCStopsAJvmHoldingAStoreAndRunsItsHooks() throws Exception {
    CtrlC.assumeDeliverable();
    assertSignalStops("INT", 130);
  }

  @Test
  void sigtermStopsAJvmHoldingAStoreAndRunsItsHooks() throws Exception {
    assertSignalStops("TERM", 143);
  }

  @Test
  void systemExitRunsTheHooksWithAStoreOpen() throws Exception {
    Process peer = startPeer("exit");
    CompletableFuture<List<String>> lines =
        CompletableFuture.supplyAsync(() -> drain(peer), runnable -> daemon(runnable, "drain"));
    // The exit takes at most 2 s + Mooncake's destroy, 4 s (RealPromptExitTest's bounds); 60 s
    // tells a JVM that does not exit from a slow one on a loaded machine.
    boolean exited = peer.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      peer.destroyForcibly().waitFor();
    }
    List<String> output = lines.get(10, TimeUnit.SECONDS); // the pipe ends with the process
    assertTrue(exited, "the JVM did not exit within 60 s: " + output);
    assertEquals(3, peer.exitValue(), output.toString());
    assertTrue(output.contains("HOOK-RAN"), "no shutdown hook ran: " + output);
  }

  private void assertSignalStops(String signal, int exitCode) throws Exception {
    Process peer = startPeer("hold");
    BufferedReader out =
        new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
    awaitLine(out, "READY");
    Process kill =
        new ProcessBuilder("kill", "-" + signal, Long.toString(peer.pid())).inheritIO().start();
    assertEquals(0, kill.waitFor());
    // The exit takes at most 2 s + Mooncake's destroy, 4 s (RealPromptExitTest's bounds); 60 s
    // tells a swallowed signal from a slow exit on a loaded machine.
    boolean stopped = peer.waitFor(60, TimeUnit.SECONDS);
    List<String> rest = new ArrayList<>();
    for (String line; stopped && (line = out.readLine()) != null; ) {
      rest.add(line);
    }
    peer.destroyForcibly();
    assertTrue(stopped, "SIG" + signal + " was swallowed: the JVM kept running");
    assertEquals(exitCode, peer.exitValue());
    assertTrue(rest.contains("HOOK-RAN"), "no shutdown hook ran: " + rest);
  }

  private Process startPeer(String mode) throws Exception {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return new ProcessBuilder(
            ChildJava.java(),
            ChildJava.NATIVE_ACCESS,
            "-cp",
            classPath,
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            RealMooncakePeer.class.getName(),
            mode,
            config.toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
  }

  private static String ask(PrintWriter to, BufferedReader from, String command) throws Exception {
    to.println(command);
    return from.readLine();
  }

  /**
   * Reads lines until {@code expected}; fails when the peer ends first, or after 120 s (a JVM start
   * and a store open take a few seconds; the rest is slack for a loaded machine).
   */
  private static void awaitLine(BufferedReader in, String expected) throws Exception {
    CompletableFuture<Boolean> seen =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                for (String line; (line = in.readLine()) != null; ) {
                  if (line.equals(expected)) {
                    return true;
                  }
                }
                return false;
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            runnable -> daemon(runnable, "await-" + expected));
    try {
      assertTrue(seen.get(120, TimeUnit.SECONDS), "the peer ended before printing " + expected);
    } catch (TimeoutException e) {
      throw new AssertionError("the peer printed no " + expected + " within 120 s", e);
    }
  }

  private static List<String> drain(Process process) {
    List<String> lines = new ArrayList<>();
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        lines.add(line);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lines;
  }

  /** Runs {@code task} on a daemon thread of its own: a blocking read, not for a shared pool. */
  private static void daemon(Runnable task, String name) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
  }
}
