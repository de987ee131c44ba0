package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
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

  /**
   * The share of operations that must be checked reads: half the calls read (get 40 %, getAndPut 10
   * %) and about two thirds of them find a value, so the runs docs/reliability.md reports checked
   * about 34 % (21,547 reads in 4 runs of 16,000 on the fake); a run below a quarter checked too
   * little to count.
   */
  static final double MIN_CHECKED_SHARE = 0.25;

  @Test
  void noJvmReadsAValueOfAnotherTenantCacheOrKey() throws Exception {
    assertEveryRunClean(false);
  }

  /**
   * The same churn with byte[] values, written by zero-copy and normal puts, read by zero-copy gets
   * only: every destination is checked after every call (hit, miss, exception or time-out, {@link
   * ZeroCopyDestination}), and no call may leave in it a byte that is neither the key's value nor
   * the caller's (or zero).
   */
  @Test
  void noZeroCopyReaderSeesAByteOfAnotherTenantCacheOrKey() throws Exception {
    assertEveryRunClean(true);
  }

  private void assertEveryRunClean(boolean zeroCopy) throws Exception {
    int runs = Integer.getInteger("history.runs", 1);
    List<String> failed = new ArrayList<>();
    for (int run = 1; run <= runs; run++) {
      Map<String, Long> totals = run(run, runs, zeroCopy);
      if (totals.get("foreign") != 0
          || totals.get("torn") != 0
          || totals.get("failed") != 0
          || totals.getOrDefault("destination", 0L) != 0) {
        failed.add("run " + run + ": " + totals);
      }
      assertCheckedEnough(totals);
    }
    report(
        (zeroCopy ? "zero-copy: " : "")
            + failed.size()
            + " of "
            + runs
            + " runs read values not their own or failed calls");
    assertEquals(
        List.of(),
        failed,
        "runs that read another tenant's, cache's or key's value, or whose calls threw (no fault"
            + " runs here: none may)");
  }

  /** Fails unless the run checked {@link #MIN_CHECKED_SHARE} of its operations as reads. */
  static void assertCheckedEnough(Map<String, Long> totals) {
    assertTrue(
        totals.get("checked") >= MIN_CHECKED_SHARE * totals.get("ops"),
        "fewer than "
            + MIN_CHECKED_SHARE * 100
            + " % of the operations were checked reads: "
            + totals);
  }

  /**
   * The negative control, where the cluster supports it: with the value checks off (the test-only
   * switch) the same churn must read values not its own in every run, so a clean run above means
   * the checks, not a quiet workload.
   */
  protected void assertEveryRunReadsForeignValues(boolean zeroCopy) throws Exception {
    int runs = Integer.getInteger("history.runs", 1);
    List<String> clean = new ArrayList<>();
    for (int run = 1; run <= runs; run++) {
      Map<String, Long> totals = run(run, runs, zeroCopy);
      assertCheckedEnough(totals);
      if (totals.get("foreign") + totals.get("torn") + totals.getOrDefault("destination", 0L)
          == 0) {
        clean.add("run " + run + ": " + totals);
      }
    }
    report(
        (zeroCopy ? "zero-copy, " : "")
            + "checks off: "
            + (runs - clean.size())
            + " of "
            + runs
            + " runs read values not own");
    assertEquals(List.of(), clean, "runs with the value checks off that read only their own");
  }

  private Map<String, Long> run(int run, int runs, boolean zeroCopy) throws Exception {
    int ops = Integer.getInteger("history.ops", defaultOperations());
    int valueBytes = Integer.getInteger("history.valueBytes", 256);
    long seed = Long.getLong("history.seed", System.nanoTime()) + run;
    Path dir = Files.createTempDirectory("tenants-");
    Map<String, Long> totals = new TreeMap<>();
    List<String> examples = new ArrayList<>();
    long churned;
    try (HistoryCluster cluster = openCluster(dir)) {
      churned = churn(cluster, dir, ops, valueBytes, seed, zeroCopy, totals, examples);
    } finally {
      HistoryScenarios.delete(dir);
    }
    report(
        String.format(
            Locale.ROOT,
            "run %d/%d seed %d: 4 JVMs (alpha ×2, beta ×2), caches c0 c1, %d-char values in one"
                + " segment%s: %s, churn %.1f s%s",
            run,
            runs,
            seed,
            valueBytes,
            zeroCopy ? ", zero-copy" : "",
            totals,
            churned / 1e9,
            examples.isEmpty() ? "" : "; " + String.join(" | ", examples)));
    return totals;
  }

  /**
   * Starts the four JVMs (the shared segment's owner first), runs them, adds up their counts and
   * examples; answers the nanoseconds from {@code go} to the last DONE. The JVMs are gone after.
   */
  private static long churn(
      HistoryCluster cluster,
      Path dir,
      int ops,
      int valueBytes,
      long seed,
      boolean zeroCopy,
      Map<String, Long> totals,
      List<String> examples)
      throws Exception {
    List<PeerProcess> peers = new ArrayList<>();
    try {
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
                    "seed=" + (seed * 31 + i),
                    "zeroCopy=" + zeroCopy));
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
      long started = System.nanoTime();
      peers.forEach(p -> p.send("go"));
      for (PeerProcess peer : peers) {
        for (String part : peer.awaitDone().substring(5).split(" ")) {
          String[] kv = part.split("=");
          totals.merge(kv[0], Long.parseLong(kv[1]), Long::sum);
        }
      }
      long ended = System.nanoTime();
      for (PeerProcess peer : peers) {
        peer.otherLines().forEach(line -> examples.add(peer.id + ": " + line));
      }
      return ended - started;
    } finally {
      for (PeerProcess peer : peers) {
        peer.close();
      }
    }
  }

  private void report(String line) {
    System.out.println("[history " + getClass().getSimpleName() + "] " + line);
  }
}
