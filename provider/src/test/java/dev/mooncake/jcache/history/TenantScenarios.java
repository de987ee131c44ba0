package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tenants and caches kept apart under churn: four JVMs, two of tenant {@code alpha} and two of
 * {@code beta}, use the same cache names ({@code c0}, {@code c1}) and key names; every value is
 * placed in one segment (the first alpha JVM's; the others name it in {@code preferred_segments}),
 * all of one size, put, replaced and removed over and over so that freed memory is reused by the
 * next put of any tenant. Every value read must name the reader's tenant, cache and key. {@code
 * -Dhistory.ops} (total of the four JVMs, default {@link #defaultOperations()}), {@code
 * -Dhistory.runs}, {@code -Dhistory.valueBytes} (256).
 */
public abstract class TenantScenarios {
  private static final List<String> TENANTS = List.of("alpha", "alpha", "beta", "beta");

  protected abstract void assumeAvailable();

  protected abstract HistoryCluster openCluster(Path dir) throws Exception;

  protected abstract int defaultOperations();

  @BeforeEach
  void skipUnlessAvailable() {
    assumeAvailable();
  }

  @Test
  void noJvmReadsAValueOfAnotherTenantCacheOrKey() throws Exception {
    int runs = Integer.getInteger("history.runs", 1);
    List<String> failed = new ArrayList<>();
    for (int run = 1; run <= runs; run++) {
      Map<String, Long> totals = run(run, runs);
      if (totals.get("foreign") != 0 || totals.get("torn") != 0) {
        failed.add("run " + run + ": " + totals);
      }
      assertTrue(totals.get("checked") > 0, "no value was read: " + totals);
    }
    report(failed.size() + " of " + runs + " runs read values not their own");
    assertEquals(List.of(), failed, "runs that read another tenant's, cache's or key's value");
  }

  private Map<String, Long> run(int run, int runs) throws Exception {
    int ops = Integer.getInteger("history.ops", defaultOperations());
    int valueBytes = Integer.getInteger("history.valueBytes", 256);
    long seed = Long.getLong("history.seed", System.nanoTime()) + run;
    Path dir = Files.createTempDirectory("tenants-");
    Map<String, Long> totals = new HashMap<>();
    List<String> examples = new ArrayList<>();
    List<PeerProcess> peers = new ArrayList<>();
    long started = System.nanoTime();
    try (HistoryCluster cluster = openCluster(dir)) {
      String shared = null;
      for (int i = 0; i < TENANTS.size(); i++) {
        String tenant = TENANTS.get(i);
        String id = tenant.charAt(0) + Integer.toString(i % 2);
        Path config = dir.resolve("config-" + id + ".json");
        String tenantMember = ", \"tenant_id\": \"" + tenant + "\"";
        Files.writeString(
            config,
            shared == null
                ? cluster.config("cluster", cluster.sharedSegmentHostname(), tenantMember)
                : cluster.config(
                    "cluster",
                    cluster.defaultHostname(),
                    tenantMember + ", \"preferred_segments\": [\"" + shared + "\"]"));
        List<String> args =
            new ArrayList<>(
                List.of(
                    "config=" + config,
                    "process=" + id,
                    "tenant=" + tenant,
                    "ops=" + ops / TENANTS.size(),
                    "valueBytes=" + valueBytes,
                    "seed=" + (seed * 31 + i)));
        args.addAll(cluster.peerArguments());
        PeerProcess peer = PeerProcess.start(id, TenantPeer.class, args, cluster.environment());
        peers.add(peer);
        if (shared == null) {
          peer.awaitReady(); // its segment must exist before others prefer it
          shared = cluster.sharedSegmentName(peer);
        }
      }
      for (PeerProcess peer : peers) {
        peer.awaitReady();
      }
      peers.forEach(p -> p.send("go"));
      for (PeerProcess peer : peers) {
        for (String part : peer.awaitDone().substring(5).split(" ")) {
          String[] kv = part.split("=");
          totals.merge(kv[0], Long.parseLong(kv[1]), Long::sum);
        }
        peer.otherLines().forEach(line -> examples.add(peer.id + ": " + line));
      }
    } finally {
      for (PeerProcess peer : peers) {
        peer.close();
      }
      HistoryScenarios.delete(dir);
    }
    report(
        String.format(
            "run %d/%d seed %d: 4 JVMs (alpha ×2, beta ×2), caches c0 c1, %d-char values in one"
                + " segment: %s in %.1f s%s",
            run,
            runs,
            seed,
            valueBytes,
            totals,
            (System.nanoTime() - started) / 1e9,
            examples.isEmpty() ? "" : "; " + String.join(" | ", examples)));
    return totals;
  }

  private void report(String line) {
    System.out.println("[history " + getClass().getSimpleName() + "] " + line);
  }
}
