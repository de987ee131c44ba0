package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.connection.StoreConnection;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.lock.LocalKeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.ClusterLocking;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.processor.MutableEntry;
import org.junit.jupiter.api.Test;

/**
 * Store round trips per JCache operation, counted (each store call is one round trip, a batch call
 * too) under consistency {@code local} and {@code cluster}: the figures of
 * docs/cluster-consistency.md and docs/performance.md, so that a change that adds a round trip
 * fails here. A cluster lock is a pinned put, a read-back folded into the entry's own read (one
 * batch of [lock, entry]) where the step reads the entry, and a remove.
 */
class RoundTripsTest {
  private static final String[] OPS = {
    "get hit",
    "get miss",
    "containsKey hit",
    "containsKey miss",
    "put new",
    "put existing",
    "put existing, no JVM holds it",
    "putIfAbsent absent",
    "putIfAbsent present",
    "replace(k, v)",
    "replace(k, old, new)",
    "remove(k)",
    "getAndPut",
    "invoke",
    "putAll of 3 new",
    "putAll of 3 existing",
    "3 puts batched, new",
    "3 puts batched, existing",
    "zero-copy get hit",
    "zero-copy put new",
    "zero-copy put existing"
  };

  /** How the locks are made: this JVM's, cluster locks, cluster locks kept after operations. */
  private enum Mode {
    LOCAL,
    CLUSTER,
    KEPT
  }

  /**
   * A lease long enough that no kept lock needs renewing or expires while the operations run (a
   * loaded machine), with an idle time below it.
   */
  private static final Duration KEPT_LEASE = Duration.ofSeconds(60);

  private static Supplier<KeyLocks> locks(Mode mode, RecordingStore store) {
    return switch (mode) {
      case LOCAL -> LocalKeyLocks::new;
      case CLUSTER ->
          () -> ClusterLocking.locks(store, Duration.ofSeconds(5), Duration.ofSeconds(5));
      case KEPT ->
          () ->
              ClusterLocking.locks(
                  store, KEPT_LEASE, Duration.ofSeconds(5), KEPT_LEASE.minusSeconds(1));
    };
  }

  /** The calls of each operation on a fresh cache, by operation name. */
  private static Map<String, List<String>> calls(Mode mode) throws Exception {
    Map<String, List<String>> calls = new LinkedHashMap<>();
    try (JCacheFixture fixture = new JCacheFixture()) {
      InProcessStore shared = InProcessStore.open(TestConfigs.inProcess(), fixture.ticker);
      RecordingStore store = new RecordingStore(shared, false);
      StoreConnection connection = StoreConnection.of(store, locks(mode, store));
      CacheManager manager = fixture.manager(TestConfigs.inProcess(), connection);
      Cache<String, String> cache =
          manager.createCache("c", new MutableConfiguration<String, String>());
      // Another JVM on the same store (its own locks, which it does not keep): it writes a key
      // whose lock no JVM holds afterwards.
      RecordingStore otherStore = new RecordingStore(shared, false);
      CacheManager other =
          fixture.manager(
              TestConfigs.inProcess(),
              StoreConnection.of(
                  otherStore, locks(mode == Mode.KEPT ? Mode.CLUSTER : mode, otherStore)));
      Cache<String, String> otherCache =
          other.createCache("c", new MutableConfiguration<String, String>());
      count(calls, store, "get hit", () -> cache.put("a", "1"), () -> cache.get("a"));
      count(calls, store, "get miss", () -> {}, () -> cache.get("none"));
      count(calls, store, "containsKey hit", () -> {}, () -> cache.containsKey("a"));
      count(calls, store, "containsKey miss", () -> {}, () -> cache.containsKey("none"));
      count(calls, store, "put new", () -> {}, () -> cache.put("b", "1"));
      count(calls, store, "put existing", () -> {}, () -> cache.put("b", "2"));
      count(
          calls,
          store,
          "put existing, no JVM holds it",
          () -> otherCache.put("x", "1"),
          () -> cache.put("x", "2"));
      count(calls, store, "putIfAbsent absent", () -> {}, () -> cache.putIfAbsent("c", "1"));
      count(calls, store, "putIfAbsent present", () -> {}, () -> cache.putIfAbsent("c", "2"));
      count(calls, store, "replace(k, v)", () -> {}, () -> cache.replace("c", "3"));
      count(calls, store, "replace(k, old, new)", () -> {}, () -> cache.replace("c", "3", "4"));
      count(calls, store, "remove(k)", () -> {}, () -> cache.remove("c"));
      count(calls, store, "getAndPut", () -> {}, () -> cache.getAndPut("a", "2"));
      count(
          calls,
          store,
          "invoke",
          () -> {},
          () ->
              cache.invoke(
                  "a",
                  (MutableEntry<String, String> e, Object... args) -> {
                    e.setValue(e.getValue() + "+");
                    return null;
                  }));
      Map<String, String> three = Map.of("p1", "1", "p2", "2", "p3", "3");
      count(calls, store, "putAll of 3 new", () -> {}, () -> cache.putAll(three));
      count(calls, store, "putAll of 3 existing", () -> {}, () -> cache.putAll(three));
      @SuppressWarnings("unchecked")
      MooncakeCache<String, String> batching = cache.unwrap(MooncakeCache.class);
      List<String> keys = List.of("q1", "q2", "q3");
      List<String> values = List.of("1", "2", "3");
      Deadline batchDeadline = Deadline.after(Duration.ofSeconds(30), fixture.ticker);
      count(
          calls,
          store,
          "3 puts batched, new",
          () -> {},
          () -> batching.putEach(keys, values, batchDeadline));
      count(
          calls,
          store,
          "3 puts batched, existing",
          () -> {},
          () -> batching.putEach(keys, values, batchDeadline));
      assertEquals("2+", cache.get("a"), "the operations did not do what they should");
      countZeroCopy(calls, store, manager);
    }
    return calls;
  }

  private static void countZeroCopy(
      Map<String, List<String>> calls, RecordingStore store, CacheManager manager) {
    Cache<String, byte[]> blobs =
        manager.createCache(
            "z", new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
    @SuppressWarnings("unchecked")
    ZeroCopyCache<String> zeroCopy = blobs.unwrap(ZeroCopyCache.class);
    ByteBuffer value = zeroCopy.allocate(3);
    ByteBuffer destination = zeroCopy.allocate(3);
    try {
      count(calls, store, "zero-copy put new", () -> {}, () -> zeroCopy.put("z", value));
      count(calls, store, "zero-copy put existing", () -> {}, () -> zeroCopy.put("z", value));
      count(
          calls,
          store,
          "zero-copy get hit",
          () -> {},
          () -> assertEquals(3, zeroCopy.get("z", destination.clear())));
    } finally {
      zeroCopy.release(value);
      zeroCopy.release(destination);
    }
  }

  private static void count(
      Map<String, List<String>> calls,
      RecordingStore store,
      String op,
      Runnable setUp,
      Runnable operation) {
    setUp.run();
    int before = store.calls.size();
    operation.run();
    calls.put(
        op,
        store.calls.subList(before, store.calls.size()).stream()
            .filter(c -> !c.thread().equals("mooncake-lock-keeper")) // off the caller's path
            .map(
                c -> c.operation() + (c.key() != null && c.key().startsWith("mcjlock/") ? "*" : ""))
            .toList());
  }

  @Test
  void roundTripsPerOperationAndMode() throws Exception {
    Map<String, List<String>> local = calls(Mode.LOCAL);
    Map<String, List<String>> cluster = calls(Mode.CLUSTER);
    Map<String, List<String>> kept = calls(Mode.KEPT);
    StringBuilder table =
        new StringBuilder(
            "| operation | local | cluster | calls under cluster | cluster, kept | calls, kept |\n");
    for (String op : OPS) {
      table.append(
          String.format(
              "| %s | %d | %d | %s | %d | %s |%n",
              op,
              local.get(op).size(),
              cluster.get(op).size(),
              cluster.get(op),
              kept.get(op).size(),
              kept.get(op)));
    }
    System.out.print(table); // the table docs/cluster-consistency.md copies
    Map<String, Integer> expectedLocal = new LinkedHashMap<>();
    Map<String, Integer> expectedCluster = new LinkedHashMap<>();
    Consumer<Object[]> expect =
        row -> {
          expectedLocal.put((String) row[0], (Integer) row[1]);
          expectedCluster.put((String) row[0], (Integer) row[2]);
        };
    expect.accept(new Object[] {"get hit", 1, 1});
    expect.accept(new Object[] {"get miss", 1, 4}); // + lock put, [lock, entry] read, lock remove
    // is_exist: the master's metadata answers, no value moves (an eternal cache); a miss under
    // cluster is confirmed under the lock, as a get miss is
    expect.accept(new Object[] {"containsKey hit", 1, 1});
    expect.accept(new Object[] {"containsKey miss", 1, 4});
    expect.accept(new Object[] {"put new", 2, 4}); // the batch says absent: no entry remove
    // + lock put and remove; the read-back proves the lock exclusive, so the put after the
    // remove needs no check (EntryStorage.replace), which pays for the read-back
    expect.accept(new Object[] {"put existing", 3, 5});
    expect.accept(new Object[] {"put existing, no JVM holds it", 3, 5});
    expect.accept(new Object[] {"putIfAbsent absent", 2, 4});
    expect.accept(new Object[] {"putIfAbsent present", 1, 3});
    // these read the entry first, in the lock's read-back, which also proves the lock exclusive:
    // no check after the remove either (EntryMap.apply)
    expect.accept(new Object[] {"replace(k, v)", 4, 5});
    expect.accept(new Object[] {"replace(k, old, new)", 4, 5});
    expect.accept(new Object[] {"remove(k)", 2, 4});
    expect.accept(new Object[] {"getAndPut", 4, 5});
    expect.accept(new Object[] {"invoke", 4, 5});
    // local: a remove per key (blind writes), one batch put, a batch check after present keys;
    // cluster: + the keys' locks in one batch put and one batch read-back, and a remove per lock
    // (one lock at a time cost a put, a read-back and a remove per key: 9 more, not 5)
    expect.accept(new Object[] {"putAll of 3 new", 4, 9});
    expect.accept(new Object[] {"putAll of 3 existing", 5, 10});
    // asynchronous puts ready together (MooncakeCache.putEach): as putAll; three puts alone would
    // cost 6 / 12 new and 9 / 15 existing
    expect.accept(new Object[] {"3 puts batched, new", 4, 9});
    expect.accept(new Object[] {"3 puts batched, existing", 5, 10});
    expect.accept(new Object[] {"zero-copy get hit", 1, 1});
    // local: a remove that finds nothing, then an unchecked put; cluster: the lock reads back its
    // token alone (a zero-copy put reads nothing of the old entry: a ride into a buffer too small
    // for it made Mooncake log an ERROR line per put, which halved the put's throughput, so it was
    // taken out again), so the remove and, after a present key, the check stay
    expect.accept(new Object[] {"zero-copy put new", 2, 5});
    expect.accept(new Object[] {"zero-copy put existing", 3, 6});
    for (String op : OPS) {
      assertEquals(
          expectedLocal.get(op), local.get(op).size(), op + " under local: " + local.get(op));
      assertEquals(
          expectedCluster.get(op),
          cluster.get(op).size(),
          op + " under cluster: " + cluster.get(op));
    }
    assertEquals(local.get("get hit").size(), cluster.get("get hit").size(), "a hit takes no lock");
    assertEquals(List.of("isExist"), local.get("containsKey hit"));
    // under cluster a present is_exist can be stale (a dead owner's segment): containsKey reads
    assertEquals(List.of("getInto"), cluster.get("containsKey hit"));
    assertEquals(
        List.of("getInto", "putPinned*", "batchGetInto*", "remove*"),
        cluster.get("containsKey miss"));
    assertKept(kept, table);
    for (String op : OPS) {
      // the zero-copy put's lock read-back reads nothing of the entry, so it pays +3 (see above)
      // a putAll pays per key for its lock removes (no batch remove in the C ABI): +2 + n
      if (!op.startsWith("get")
          && !op.startsWith("containsKey")
          && !op.startsWith("zero-copy")
          && !op.startsWith("putAll")
          && !op.startsWith("3 puts batched")) {
        assertTrue(
            cluster.get(op).size() - local.get(op).size() <= 2,
            op + " costs more than two round trips over local: " + table);
      }
    }
  }

  /**
   * Lock keeping (docs/cluster-consistency.md, "Lock keeping"): a put over a present key this JVM
   * holds is the entry's remove and put; over a key no JVM holds, the lock's put and read-back and
   * the entry's remove and put (its release is deferred, off the caller's path).
   */
  private static void assertKept(Map<String, List<String>> kept, StringBuilder table) {
    assertEquals(
        List.of("remove", "put"), kept.get("put existing"), "a put over a kept key: " + table);
    assertEquals(
        List.of("putPinned*", "batchGetInto*", "remove", "put"),
        kept.get("put existing, no JVM holds it"),
        "a put over a key no JVM holds: " + table);
    assertEquals(1, kept.get("get hit").size(), "a hit takes no lock: " + table);
    // The remembered copy: a step on a key this JVM wrote last under its kept lock reads nothing.
    for (String op : List.of("getAndPut", "invoke", "replace(k, v)")) {
      assertEquals(List.of("remove", "put"), kept.get(op), op + " over a kept key: " + table);
    }
    assertEquals(List.of("remove"), kept.get("remove(k)"), "remove(k) over a kept key: " + table);
    for (String op : OPS) {
      assertTrue(
          kept.get(op).stream().noneMatch(c -> c.startsWith("remove*")),
          op + ": a kept lock is not removed at the end of its operation: " + table);
    }
  }
}
