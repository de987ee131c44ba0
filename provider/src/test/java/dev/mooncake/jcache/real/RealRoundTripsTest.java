package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.ZeroCopyCache;
import dev.mooncake.jcache.internal.backend.mooncake.StoreCallTally;
import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Mooncake calls per JCache operation on a real cluster, counted at the ABI (every call the
 * client makes, any thread), for the benchmark's cache (byte[] values, store-by-value, eternal, no
 * listener): a get hit and a put over a present key, under both consistency modes, through the
 * JCache API and through the zero-copy API. The in-process {@code RoundTripsTest} counts the same
 * design on the in-process store; this one catches a call that only the real backend path adds (a
 * retry, a check, a background read), which the performance page's calls-per-op figures rest on.
 * Retries on Mooncake's transient answers (a put still in flight: -703, -706) may add a few calls;
 * more than 1 % fails.
 */
class RealRoundTripsTest {
  private static final int KEYS = 100;
  private static final int OPS = 1_000;

  @TempDir Path dir;

  @BeforeEach
  void cluster() {
    RealMooncake.assumeAvailable();
  }

  @ParameterizedTest(name = "consistency {0}")
  @CsvSource(
      delimiter = ';',
      value = {
        "local; get_size=1, put=1, remove=1",
        // lock: pinned put, [lock, entry] read in one batch, lock remove; then entry remove + put
        // (the read-back proved the lock exclusive: no drop check)
        "cluster; batch_get_into=1, put=1, put_pinned=1, remove=2"
      })
  void callsPerGetAndPut(String consistency, String putCalls) throws Exception {
    onFreshCache(
        consistency,
        (cache, tally) -> {
          byte[] value = new byte[1024];
          fill(tally, k -> cache.put(k, value));
          assertCallsPerOp(
              "get hit",
              Map.of("get_into", 1),
              tally,
              k -> assertEquals(value.length, cache.get(k).length, "every key was put"));
          assertCallsPerOp(
              "put over a present key (" + consistency + ")",
              parse(putCalls),
              tally,
              k -> cache.put(k, value));
        });
  }

  /**
   * containsKey on an eternal cache (the JCache default) is the master's {@code is_exist} alone:
   * one call per op, and none of the calls that move a value's bytes ({@code get_into}, {@code
   * batch_get_into}) or ask its size, whatever the value's size; under {@code cluster} too (a
   * present key takes no lock).
   */
  @ParameterizedTest(name = "consistency {0}, {1} bytes")
  @CsvSource({
    "local, 1024, is_exist",
    "cluster, 1024, get_into",
    "local, 1048576, is_exist",
    "cluster, 1048576, get_into"
  })
  void aContainsKeyOnAnEternalCacheIsOneIsExist(String consistency, int size, String call)
      throws Exception {
    // under cluster a present is_exist can be stale (a dead owner's segment, listed until
    // client_ttl while its reads answer absent), so containsKey stays one read of the entry
    onFreshCache(
        consistency,
        (cache, tally) -> {
          byte[] value = new byte[size];
          // one containsKey each before counting: a read buffer grows once to the value's size
          // (get_size, then the read again), as a get's does
          fill(
              tally,
              k -> {
                cache.put(k, value);
                cache.containsKey(k);
              });
          assertCallsPerOp(
              "containsKey of a present key, " + size + " bytes (" + consistency + ")",
              Map.of(call, 1),
              tally,
              k -> assertTrue(cache.containsKey(k), "every key was put"));
          // the client (and its 128 MB segment) is shared by every test of this class: 100 MiB
          // left behind made the next cluster test's puts answer -200 (pool full)
          cache.clear();
        });
  }

  /**
   * A replace of a present key: the step that reads the entry first. Under {@code cluster} the
   * lock's read-back reads it and proves the lock exclusive, so the put after the remove is not
   * checked (EntryMap.apply): one call more than {@code local}, not two.
   */
  @ParameterizedTest(name = "consistency {0}")
  @CsvSource(
      delimiter = ';',
      value = {
        "local; get_into=1, get_size=1, put=1, remove=1",
        "cluster; batch_get_into=1, put=1, put_pinned=1, remove=2"
      })
  void callsPerReplace(String consistency, String replaceCalls) throws Exception {
    onFreshCache(
        consistency,
        (cache, tally) -> {
          byte[] value = new byte[1024];
          fill(tally, k -> cache.put(k, value));
          assertCallsPerOp(
              "replace of a present key (" + consistency + ")",
              parse(replaceCalls),
              tally,
              k -> assertTrue(cache.replace(k, value), "every key was put"));
        });
  }

  /**
   * The zero-copy API's get and put over a present key: the get is the driver's one call, the put
   * what the benchmark's zero-copy put compares with the driver's two (performance.md).
   */
  @ParameterizedTest(name = "consistency {0}")
  @CsvSource(
      delimiter = ';',
      value = {
        "local; get_size=1, put=1, remove=1",
        // lock: pinned put, its token read back alone (no ride: the old entry is not read), lock
        // remove; then entry remove + put and the drop check
        "cluster; get_into=1, get_size=1, put=1, put_pinned=1, remove=2"
      })
  void callsPerZeroCopyGetAndPut(String consistency, String putCalls) throws Exception {
    onFreshCache(
        consistency,
        (cache, tally) -> {
          @SuppressWarnings("unchecked")
          ZeroCopyCache<String> api = cache.unwrap(ZeroCopyCache.class);
          ByteBuffer value = api.allocate(1024);
          ByteBuffer destination = api.allocate(1024);
          try {
            fill(tally, k -> api.put(k, value));
            assertCallsPerOp(
                "zero-copy get hit (" + consistency + ")",
                Map.of("get_into", 1),
                tally,
                k -> assertEquals(1024, api.get(k, destination.clear()), "every key was put"));
            assertCallsPerOp(
                "zero-copy put over a present key (" + consistency + ")",
                parse(putCalls),
                tally,
                k -> api.put(k, value));
          } finally {
            api.release(value);
            api.release(destination);
          }
        });
  }

  /**
   * A putAll under {@code cluster} takes its keys' locks in one batch put and one batch read (then,
   * on this cache of blind writes, removes the old entries and locks one call each and writes the
   * entries in batches split across the lanes): no per-key pinned put or read-back, which made a
   * 100,000-key fill take over a minute.
   */
  @Test
  void aPutAllTakesItsClusterLocksInOneBatch() throws Exception {
    onFreshCache(
        "cluster",
        (cache, tally) -> {
          byte[] value = new byte[1024];
          Map<String, byte[]> all = new TreeMap<>();
          for (int i = 0; i < KEYS; i++) {
            all.put("k" + i, value);
          }
          fill(tally, k -> cache.put(k, value));
          int rounds = 10;
          for (int r = 0; r < rounds; r++) {
            cache.putAll(all);
          }
          Map<String, Integer> calls = tally.takeCalls();
          String measured =
              rounds + " putAlls of " + KEYS + " keys: " + calls + ", errors " + tally.takeErrors();
          System.out.println(measured);
          assertEquals(rounds, calls.getOrDefault("batch_put_pinned", 0), measured);
          assertEquals(0, calls.getOrDefault("put_pinned", 0), "a lock taken alone: " + measured);
          assertEquals(0, calls.getOrDefault("get_into", 0), "a lock read alone: " + measured);
          assertEquals(rounds, calls.getOrDefault("batch_get_into", 0), measured);
          assertTrue(calls.getOrDefault("batch_put", 0) >= rounds, measured);
          assertEquals(2 * KEYS * rounds, calls.getOrDefault("remove", 0), measured);
        });
  }

  /**
   * Lock keeping ({@code lock_keep_idle_ms}): a put over a present key that no JVM holds pays the
   * lock's put and read-back and the entry's remove and put (its release is deferred, off the
   * caller's path); over a key this JVM keeps, the entry's remove and put only. The keeper's own
   * calls (its poll, deferred releases) are counted apart; a kept lock reused past half its lease
   * is read back once (a renewal), allowed per key and elapsed half lease.
   */
  @Test
  void withLockKeepingAPutOverAKeptKeyIsTheEntrysRemoveAndPut() throws Exception {
    long leaseMs = 8000;
    String keeping =
        ", \"consistency\": \"cluster\", \"lock_lease_ms\": "
            + leaseMs
            + ", \"lock_keep_idle_ms\": "
            + (leaseMs - 1000);
    Path config = RealMooncake.config(dir, "kept-" + UUID.randomUUID(), "128MB", 10_000, keeping);
    byte[] value = new byte[1024];
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    ClassLoader loader = getClass().getClassLoader();
    try (CacheManager manager = provider.getCacheManager(config.toUri(), loader);
        StoreCallTally tally = StoreCallTally.attach(config.toUri(), loader)) {
      Cache<String, byte[]> cache = benchmarkCache(manager);
      for (int i = 0; i < KEYS; i++) {
        cache.put("k" + i, value);
      }
      // Their kept locks go by 3/4 of the lease (the keeper's removes): then no JVM holds them.
      // The entries stay (the same client, so the same segment).
      int released = 0;
      long waitUntil = System.nanoTime() + leaseMs * 3_000_000L;
      while (released < KEYS && System.nanoTime() < waitUntil) {
        Thread.sleep(100); // real time: the lease runs on the JVM's monotonic clock
        released += tally.takeCalls().getOrDefault("remove (keeper)", 0);
      }
      assertEquals(KEYS, released, "the keeper did not release the idle locks");
      tally.takeCalls();
      tally.takeErrors();
      for (int i = 0; i < KEYS; i++) {
        cache.put("k" + i, value);
      }
      Map<String, Integer> first = callerCalls(tally.takeCalls());
      String measured = "first put of " + KEYS + " present keys no JVM holds: " + first;
      System.out.println(measured + ", errors " + tally.takeErrors());
      assertEquals(
          Map.of("batch_get_into", KEYS, "put", KEYS, "put_pinned", KEYS, "remove", KEYS),
          first,
          measured);
      long started = System.nanoTime();
      for (int i = 0; i < OPS; i++) {
        cache.put("k" + i % KEYS, value);
      }
      long halfLeases = (System.nanoTime() - started) / (leaseMs * 1_000_000 / 2);
      Map<String, Integer> all = tally.takeCalls();
      Map<String, Integer> kept = callerCalls(all);
      String keptMeasured =
          OPS
              + " puts over kept keys: "
              + kept
              + " (all: "
              + all
              + "), errors "
              + tally.takeErrors();
      System.out.println(keptMeasured);
      assertEquals(OPS, kept.getOrDefault("remove", 0), keptMeasured);
      assertTrue(Math.abs(kept.getOrDefault("put", 0) - OPS) <= OPS / 100, keptMeasured);
      int renewals = kept.getOrDefault("batch_get_into", 0) + kept.getOrDefault("get_into", 0);
      assertTrue(renewals <= KEYS * halfLeases + OPS / 100, "renewals: " + keptMeasured);
      assertEquals(
          0, kept.getOrDefault("put_pinned", 0), "a kept lock taken again: " + keptMeasured);

      // A read-modify-write (invoke) over a kept key uses the entry this JVM wrote last (the
      // remembered copy): its remove, then its put; no read of the entry.
      started = System.nanoTime();
      for (int i = 0; i < OPS; i++) {
        cache.invoke(
            "k" + i % KEYS,
            (entry, args) -> {
              byte[] bytes = entry.getValue();
              bytes[0]++;
              entry.setValue(bytes);
              return null;
            });
      }
      halfLeases = (System.nanoTime() - started) / (leaseMs * 1_000_000 / 2);
      all = tally.takeCalls();
      Map<String, Integer> invoked = callerCalls(all);
      String invokeMeasured = OPS + " invokes over kept keys: " + invoked + " (all: " + all + ")";
      System.out.println(invokeMeasured + ", errors " + tally.takeErrors());
      assertEquals(OPS, invoked.getOrDefault("remove", 0), invokeMeasured);
      assertTrue(Math.abs(invoked.getOrDefault("put", 0) - OPS) <= OPS / 100, invokeMeasured);
      int reads = invoked.getOrDefault("batch_get_into", 0) + invoked.getOrDefault("get_into", 0);
      assertTrue(reads <= KEYS * halfLeases + OPS / 100, "reads: " + invokeMeasured);
      assertEquals((byte) (OPS / KEYS), cache.get("k0")[0], "an increment was lost");
    }
  }

  /** The calls made on callers' threads (not the lock keeper's). */
  private static Map<String, Integer> callerCalls(Map<String, Integer> calls) {
    Map<String, Integer> callers = new TreeMap<>(calls);
    callers.keySet().removeIf(op -> op.endsWith(" (keeper)"));
    return callers;
  }

  private static Cache<String, byte[]> benchmarkCache(CacheManager manager) {
    return manager.createCache(
        "calls",
        new MutableConfiguration<String, byte[]>()
            .setTypes(String.class, byte[].class)
            .setStoreByValue(true));
  }

  /** What a test does with its cache and the tally of the cluster client's calls. */
  private interface Counted {
    void run(Cache<String, byte[]> cache, StoreCallTally tally) throws Exception;
  }

  /**
   * Runs {@code body} on the benchmark's kind of cache (byte[] values, store-by-value, eternal, no
   * listener) in a fresh manager of the given consistency, its store calls tallied.
   */
  private void onFreshCache(String consistency, Counted body) throws Exception {
    Path config =
        RealMooncake.config(
            dir,
            "calls-" + UUID.randomUUID(),
            "128MB",
            10_000,
            ", \"consistency\": \"" + consistency + "\"");
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    ClassLoader loader = getClass().getClassLoader();
    try (CacheManager manager = provider.getCacheManager(config.toUri(), loader);
        StoreCallTally tally = StoreCallTally.attach(config.toUri(), loader)) {
      body.run(
          manager.createCache(
              "calls",
              new MutableConfiguration<String, byte[]>()
                  .setTypes(String.class, byte[].class)
                  .setStoreByValue(true)),
          tally);
    }
  }

  /** Puts the {@link #KEYS} keys, then forgets the calls that took. */
  private static void fill(StoreCallTally tally, Consumer<String> put) {
    for (int i = 0; i < KEYS; i++) {
      put.accept("k" + i);
    }
    tally.takeCalls();
    tally.takeErrors();
  }

  /** Runs {@code step} {@link #OPS} times over the keys, then checks the calls it made per op. */
  private static void assertCallsPerOp(
      String op, Map<String, Integer> perOp, StoreCallTally tally, Consumer<String> step) {
    for (int i = 0; i < OPS; i++) {
      step.accept("k" + i % KEYS);
    }
    assertPerOp(op, perOp, tally.takeCalls(), tally.takeErrors());
  }

  /** Each operation's calls at least as expected per op, and no more than 1 % extra in all. */
  private static void assertPerOp(
      String op,
      Map<String, Integer> perOp,
      Map<String, Integer> calls,
      Map<String, Integer> errors) {
    String measured = op + ": " + calls + " in " + OPS + " ops, errors " + errors;
    System.out.println(measured);
    int expectedTotal = 0;
    for (Map.Entry<String, Integer> expected : perOp.entrySet()) {
      int made = calls.getOrDefault(expected.getKey(), 0);
      assertTrue(
          made >= expected.getValue() * OPS, "too few " + expected.getKey() + ": " + measured);
      expectedTotal += expected.getValue() * OPS;
    }
    assertEquals(perOp.keySet(), calls.keySet(), "calls of other operations: " + measured);
    int total = calls.values().stream().mapToInt(Integer::intValue).sum();
    assertTrue(
        total - expectedTotal <= OPS / 100,
        "more than 1 % calls beyond the design's " + expectedTotal + ": " + measured);
  }

  private static Map<String, Integer> parse(String calls) {
    Map<String, Integer> parsed = new TreeMap<>();
    for (String pair : calls.split(",\\s*")) {
      String[] kv = pair.split("=");
      parsed.put(kv[0], Integer.parseInt(kv[1]));
    }
    return parsed;
  }
}
