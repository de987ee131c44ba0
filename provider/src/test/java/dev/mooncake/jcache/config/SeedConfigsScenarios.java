package dev.mooncake.jcache.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.real.ChildJvm;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seeds' example configs run as written, only their addresses replaced, each in a fresh JVM
 * ({@link SeedConfigPeer}): LMCache's two {@code --l2-adapter} examples (a shared pool; pools per
 * operation, {@code lookup} among them) as provider URIs, and every field of vLLM's {@code
 * MooncakeStoreConfig} in its two modes through {@code MOONCAKE_CONFIG_PATH}. Each works, or is
 * refused with a message naming the key and what to do, for a reason in docs/configuration.md ("The
 * seeds' examples"). The files are {@code src/test/resources/seeds/}: LMCache's verbatim; vLLM's
 * page has no example file, so its fields there carry vLLM's defaults (4 GiB sizes, tenant {@code
 * default}, no offload, no device) but {@code protocol} {@code tcp} (its default {@code rdma} needs
 * a device) and LMCache's HTTP metadata server. Subclasses say which store and cluster: the fake
 * library ({@link SeedConfigsTest}) or a real Mooncake.
 */
public abstract class SeedConfigsScenarios {
  @TempDir protected Path dir;

  /** Skips, saying why, when this store is not available here. */
  protected abstract void assumeAvailable();

  /**
   * The test cluster's addresses for the ones the seeds name: {@code node01} (this host), {@code
   * localhost:8080} (the HTTP metadata server), {@code localhost:50051} (the master).
   */
  protected abstract Map<String, String> addresses();

  /** Environment variables of the peer JVM besides the config's (the library, log level). */
  protected abstract Map<String, String> environment();

  @BeforeEach
  void available() {
    assumeAvailable();
  }

  @Test
  void lmcachesSharedPoolExampleWorks() throws Exception {
    String out = run("lmcache-shared-pool.json", false);
    assertEquals("WORKS lookup-threads=0", out, "LMCache's shared-pool example");
  }

  /**
   * Its {@code per_op_workers.lookup} is accepted and used: loadAll's presence check is a batch
   * {@code is_exist} on the lookup lane, whose own pool's threads then exist.
   */
  @Test
  void lmcachesPerOperationExampleWorksAndRunsItsLookupPool() throws Exception {
    String out = run("lmcache-per-op-workers.json", false);
    assertTrue(out.startsWith("WORKS lookup-threads="), out);
    assertTrue(
        Long.parseLong(out.substring("WORKS lookup-threads=".length())) >= 1,
        "the lookup pool never ran: " + out);
  }

  @Test
  void vllmsEmbeddedFieldsWorkThroughMooncakeConfigPath() throws Exception {
    assertEquals("WORKS lookup-threads=0", run("vllm-embedded.json", true), "vLLM, embedded");
  }

  /**
   * Refused under the default {@code consistency: cluster}: the app JVM then contributes a lock
   * segment, and without the pool's segment named Mooncake would place values in it too. The
   * message names the key and the three ways out.
   */
  @Test
  void vllmsStandaloneStoreFieldsAreRefusedNamingTheKeyAndWhatToDo() throws Exception {
    String out = run("vllm-standalone-store.json", true);
    assertTrue(out.startsWith("REFUSED "), out);
    for (String named :
        List.of("preferred_segments", "master_metrics_address", "\"consistency\": \"local\"")) {
      assertTrue(out.contains(named), "the refusal does not name " + named + ": " + out);
    }
  }

  /**
   * Writes the seed file with the addresses replaced and runs the peer on it: through {@code
   * MOONCAKE_CONFIG_PATH} or as a provider URI. Answers the peer's last line.
   */
  private String run(String seed, boolean throughConfigPath) throws Exception {
    String text;
    try (InputStream in = getClass().getResourceAsStream("/seeds/" + seed)) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    for (Map.Entry<String, String> address : addresses().entrySet()) {
      text = text.replace(address.getKey(), address.getValue());
    }
    Path file = dir.resolve(seed);
    Files.writeString(file, text);
    Map<String, String> env = new HashMap<>(environment());
    List<String> args = new ArrayList<>();
    if (throughConfigPath) {
      env.put("MOONCAKE_CONFIG_PATH", file.toString());
    } else {
      args.add(file.toUri().toString());
    }
    return peer(env, args, seed);
  }

  private static String peer(Map<String, String> env, List<String> args, String seed)
      throws Exception {
    Map<String, String> environment = new HashMap<>(env);
    environment.putIfAbsent("MOONCAKE_CONFIG_PATH", null); // only the one this run names
    ChildJvm peer =
        ChildJvm.run(
            SeedConfigPeer.class, environment, List.of("-Xmx256m"), args.toArray(new String[0]));
    String out = peer.out() + peer.err();
    List<String> lines =
        out.lines().filter(l -> l.startsWith("WORKS") || l.startsWith("REFUSED")).toList();
    assertEquals(1, lines.size(), seed + ": no verdict from the peer: " + out);
    String verdict = lines.get(0);
    assertEquals(verdict.startsWith("WORKS") ? 0 : 3, peer.exitCode(), out);
    System.out.println(seed + ": " + verdict);
    return verdict;
  }
}
