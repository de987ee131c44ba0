package dev.mooncake.jcache.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/**
 * The cross-JVM guarantees of {@code consistency: cluster}, tried as users would: three JVMs of two
 * threads each race on the same keys ({@code invoke} increments, {@code putIfAbsent}, {@code
 * replace} CAS increments, reads during another JVM's overwrites), a lock holder is killed with
 * {@code kill -9}, another is paused with SIGSTOP past its lease. A subclass says which cluster:
 * the fake library's cross-process mode, or a real Mooncake.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class MultiJvmScenarios {
  private static final int JVMS = 3;

  private Path config;
  private final List<Peer> peers = new ArrayList<>();

  /** Skips (with the reason) when this cluster is not available here. */
  protected abstract void assumeAvailable();

  /** The provider config every peer opens: consistency cluster and its lease. */
  protected abstract String configJson();

  /** Environment of the peer JVMs. */
  protected abstract Map<String, String> environment();

  /** How long a killed holder's locks may stay, as documented for this cluster. */
  protected abstract Duration deathBound();

  @BeforeAll
  void startPeers(@TempDir Path dir) throws Exception {
    try {
      assumeAvailable();
    } catch (TestAbortedException unavailable) {
      return; // each test reports the reason (below)
    }
    config = dir.resolve("cluster.json");
    Files.writeString(config, configJson());
    for (int i = 0; i < JVMS; i++) {
      peers.add(start("p" + i));
    }
    for (Peer peer : peers) {
      peer.ready();
    }
  }

  @BeforeEach
  void skipUnlessAvailable() {
    assumeAvailable();
  }

  private Peer start(String id) throws IOException {
    return Peer.start(id, config, environment());
  }

  @AfterAll
  void stopPeers() throws Exception {
    for (Peer peer : peers) {
      peer.close();
    }
  }

  /** Sends the same command to every peer at once; their replies, in peer order. */
  private List<Map<String, Long>> everyPeer(String command) throws Exception {
    for (Peer peer : peers) {
      peer.send(command);
    }
    List<Map<String, Long>> counts = new ArrayList<>();
    for (Peer peer : peers) {
      counts.add(counts(peer, peer.reply()));
    }
    return counts;
  }

  private static Map<String, Long> counts(Peer peer, String reply) {
    assertTrue(reply.startsWith("OK "), "peer " + peer.id + ": " + reply);
    Map<String, Long> counts = new HashMap<>();
    for (String part : reply.substring(3).split(" ")) {
      String[] kv = part.split("=");
      counts.put(kv[0], Long.parseLong(kv[1]));
    }
    return counts;
  }

  /** One line per scenario with its counts, printed before the checks (docs copy these). */
  private void report(String scenario, Object counts) {
    System.out.println(
        "[multi-jvm " + getClass().getSimpleName() + "] " + scenario + ": " + counts);
  }

  private static long sum(List<Map<String, Long>> counts, String name) {
    return counts.stream().mapToLong(c -> c.get(name)).sum();
  }

  private Peer first() {
    return peers.get(0);
  }

  @Test
  void invokeIncrementsFromEveryJvmAddUpExactly() throws Exception {
    int keys = 4;
    int perThread = 100;
    for (int k = 0; k < keys; k++) {
      assertEquals("OK done", first().ask("putLong inc" + k + " 0"));
    }
    List<Map<String, Long>> counts = everyPeer("invoke inc " + keys + " " + perThread);
    long applied = 0;
    for (int k = 0; k < keys; k++) {
      applied += Long.parseLong(first().ask("getLong inc" + k).substring(3));
    }
    report("invoke increments " + JVMS * 2L * perThread + ", stored " + applied, counts);
    assertEquals(0, sum(counts, "errors"), counts::toString);
    assertEquals(0, sum(counts, "absent"), "processors saw a key that always exists as absent");
    assertEquals(JVMS * 2L * perThread, sum(counts, "done"), counts::toString);
    long stored = 0;
    for (int k = 0; k < keys; k++) {
      stored += Long.parseLong(first().ask("getLong inc" + k).substring(3));
    }
    assertEquals(JVMS * 2L * perThread, stored, "increments were lost");
  }

  @Test
  void putIfAbsentHasExactlyOneWinnerPerKey() throws Exception {
    int n = 100;
    List<Map<String, Long>> counts = everyPeer("pia fresh " + n);
    report("putIfAbsent on " + n + " fresh keys", counts);
    assertEquals(0, sum(counts, "errors"), counts::toString);
    assertEquals("OK " + n, first().ask("present fresh " + n), "keys missing after the race");
    assertEquals(n, sum(counts, "done"), "winners reported: " + counts);
  }

  @Test
  void replaceCasIncrementsAddUpExactly() throws Exception {
    int perThread = 40;
    assertEquals("OK done", first().ask("putLong cas 0"));
    List<Map<String, Long>> counts = everyPeer("cas cas " + perThread);
    report(
        "replace CAS increments " + JVMS * 2L * perThread + ", " + first().ask("getLong cas"),
        counts);
    assertEquals(0, sum(counts, "errors"), counts::toString);
    assertEquals(0, sum(counts, "absent"), "a CAS loop read its key as absent");
    assertEquals(JVMS * 2L * perThread, sum(counts, "done"), counts::toString);
    assertEquals("OK " + JVMS * 2L * perThread, first().ask("getLong cas"));
  }

  @Test
  void readersInOtherJvmsNeverSeeAnOverwrittenKeyAbsent() throws Exception {
    assertEquals("OK done", first().ask("put overwritten w-first"));
    Peer writer = peers.get(0);
    List<Peer> readers = peers.subList(1, JVMS);
    for (Peer reader : readers) {
      reader.send("read overwritten");
    }
    Map<String, Long> writes = counts(writer, writer.ask("write overwritten 300"));
    report("overwrites", writes);
    assertEquals(0, writes.get("errors"), writes::toString);
    for (Peer reader : readers) {
      Map<String, Long> reads = counts(reader, reader.reply());
      report("reads in peer " + reader.id + " during the overwrites", reads);
      assertEquals(0, reads.get("errors"), "peer " + reader.id + ": " + reads);
      assertEquals(0, reads.get("absent"), "peer " + reader.id + " read null: " + reads);
      assertTrue(reads.get("done") > 0);
    }
  }

  @Test
  void puttingOneKeyFromEveryJvmLeavesTheLastWritersValue() throws Exception {
    int perThread = 100;
    List<Map<String, Long>> counts = everyPeer("putRace raced " + perThread);
    report("puts of one key, ends with " + first().ask("get raced"), counts);
    assertEquals(0, sum(counts, "errors"), counts::toString);
    assertEquals(JVMS * 2L * perThread, sum(counts, "done"), counts::toString);
    String value = first().ask("get raced");
    // Each writer's last value ends in -(perThread - 1); the key holds one of them, never null.
    assertTrue(value.matches("OK p\\d-\\d-" + (perThread - 1)), "after the race: " + value);
  }

  @Test
  void putAllsOfTheSameKeysFromEveryJvmNeverDeadlockAndLeaveOnePutAllsValues() throws Exception {
    int keys = 8;
    int perThread = 30;
    List<Map<String, Long>> counts = everyPeer("putAllRace all " + keys + " " + perThread);
    List<String> values = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      values.add(first().ask("get all" + k));
    }
    report("putAlls of " + keys + " keys, end with " + values, counts);
    assertEquals(0, sum(counts, "errors"), counts::toString);
    assertEquals(JVMS * 2L * perThread, sum(counts, "done"), counts::toString);
    // Each writer's last putAll ends in -(perThread - 1); one of them is every key's value.
    assertTrue(values.get(0).matches("OK p\\d-\\d-" + (perThread - 1)), "after: " + values);
    assertEquals(Collections.nCopies(keys, values.get(0)), values, "keys of different putAlls");
  }

  @Test
  void aKilledHoldersLockIsReleasedWithinTheBound() throws Exception {
    try (Peer holder = start("killed")) {
      holder.ready();
      holder.send("hold killed");
      holder.await("HOLDING"::equals);
      holder.signal("KILL");
      holder.awaitExit();
      String reply = first().ask("take killed after");
      long ms = counts(first(), reply).get("ms");
      report("kill -9 of a holder: the key taken by another JVM after (ms)", ms);
      assertTrue(ms <= deathBound().toMillis(), "took " + ms + " ms, bound " + deathBound());
      assertEquals("OK after", first().ask("get killed"));
    }
  }

  @Test
  void aPausedHolderRefusesItsWriteOnceItsLeaseIsGone() throws Exception {
    try (Peer holder = start("paused")) {
      holder.ready();
      assertEquals("OK done", first().ask("put paused before"));
      holder.send("hold paused");
      holder.await("HOLDING"::equals);
      holder.signal("STOP");
      // Another JVM gets the key once the paused holder's segment (and its lock) is dropped.
      String taken = first().ask("take paused other");
      assertTrue(taken.startsWith("OK "), taken);
      holder.signal("CONT");
      holder.send("resumed");
      String refused = holder.reply();
      report(
          "SIGSTOP past the lease: another JVM took the key (" + taken + "); the resumed holder",
          refused);
      assertTrue(
          refused.startsWith("ERR ") && refused.contains("lock_lease_ms"),
          "the paused holder wrote after its lease: " + refused);
      assertEquals("OK other", first().ask("get paused"), "two holders wrote the key");
      // The late release left the key's lock usable: every JVM can take it again.
      assertTrue(peers.get(1).ask("take paused again").startsWith("OK "));
      assertTrue(holder.ask("take paused last").startsWith("OK "));
      assertEquals("OK last", first().ask("get paused"));
    }
  }
}
