package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.config.SeedConfigPeer;
import dev.mooncake.jcache.internal.backend.ForwardingObjectStore;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.connection.StoreConnection;
import dev.mooncake.jcache.internal.lock.LocalKeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.ClusterLocking;
import dev.mooncake.jcache.internal.time.Deadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.integration.CompletionListenerFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * containsKey as Mooncake's {@code is_exist} where the master's metadata can answer it (entries
 * that cannot expire), on the lookup lane; a read of the entry where its expiry time must be seen.
 */
class ContainsKeyTest {
  private final JCacheFixture fixture = new JCacheFixture();
  private RecordingStore store;

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  private MooncakeCache<String, String> cache(
      MooncakeConfig config, boolean cluster, javax.cache.configuration.Factory<ExpiryPolicy> ex) {
    return cache(config, cluster, ex, new AtomicInteger(-1));
  }

  private MooncakeCache<String, String> cache(
      MooncakeConfig config,
      boolean cluster,
      javax.cache.configuration.Factory<ExpiryPolicy> expiry,
      AtomicInteger absentAnswers) {
    return cache(config, cluster, expiry, absentAnswers, c -> {});
  }

  /** A cache on a recorded in-process store whose next {@code absentAnswers} is_exist say 0. */
  private MooncakeCache<String, String> cache(
      MooncakeConfig config,
      boolean cluster,
      javax.cache.configuration.Factory<ExpiryPolicy> expiry,
      AtomicInteger absentAnswers,
      Consumer<MutableConfiguration<String, String>> more) {
    ForwardingObjectStore lying =
        new ForwardingObjectStore(InProcessStore.open(config, fixture.ticker)) {
          @Override
          public int isExist(String key, Deadline deadline) {
            int answer = super.isExist(key, deadline);
            return absentAnswers.getAndDecrement() > 0 ? 0 : answer;
          }
        };
    store = new RecordingStore(lying, false);
    RecordingStore recorded = store;
    StoreConnection connection =
        StoreConnection.of(
            recorded,
            cluster
                ? () -> ClusterLocking.locks(recorded, Duration.ofSeconds(5), Duration.ofSeconds(5))
                : LocalKeyLocks::new);
    MutableConfiguration<String, String> c =
        new MutableConfiguration<String, String>()
            .setTypes(String.class, String.class)
            .setStatisticsEnabled(true);
    if (expiry != null) {
      c.setExpiryPolicyFactory(expiry);
    }
    more.accept(c);
    @SuppressWarnings("unchecked")
    MooncakeCache<String, String> cache =
        fixture.manager(config, connection).createCache("c", c).unwrap(MooncakeCache.class);
    return cache;
  }

  /** The operations of the calls {@code step} made on the store (a lock call marked with *). */
  private List<String> calls(Runnable step) {
    int before = store.calls.size();
    step.run();
    return callsSince(before);
  }

  /** The operations of the calls made since the store had made {@code before}. */
  private List<String> callsSince(int before) {
    List<String> made = new ArrayList<>();
    for (RecordingStore.Call call : store.calls.subList(before, store.calls.size())) {
      boolean lock = call.key() != null && call.key().startsWith("mcjlock/");
      made.add(call.operation() + (lock ? "*" : ""));
    }
    return made;
  }

  @Test
  void anEternalCacheAsksIsExistAndReadsNoValueAndCountsNoLookup() {
    MooncakeCache<String, String> cache = cache(TestConfigs.inProcess(), false, null);
    cache.put("k", "v");
    List<String> hit = calls(() -> assertTrue(cache.containsKey("k")));
    List<String> miss = calls(() -> assertFalse(cache.containsKey("none")));
    assertEquals(List.of("isExist"), hit);
    assertEquals(List.of("isExist"), miss);
    // JCache: containsKey is neither a hit nor a miss
    assertEquals(0, cache.statistics().getCacheHits());
    assertEquals(0, cache.statistics().getCacheMisses());
  }

  @Test
  void isExistRunsOnTheLookupLaneWhenSingleCallsGoOnLanes() {
    MooncakeConfig config =
        TestConfigs.withLanes(TestConfigs.inProcess(), Map.of("lookup", 2, "retrieve", 1), true);
    MooncakeCache<String, String> cache = cache(config, false, null);
    cache.put("k", "v");
    assertTrue(cache.containsKey("k"));
    assertTrue(store.threadOf("isExist").contains("-lookup-"), store.threadOf("isExist"));
  }

  @Test
  void loadAllWithoutReplacingAsksPresenceInBatchesOnTheLookupLane() throws Exception {
    MooncakeConfig config =
        TestConfigs.withLanes(TestConfigs.inProcess(), Map.of("lookup", 2, "retrieve", 1), false);
    MooncakeCache<String, String> cache =
        cache(
            config,
            false,
            null,
            new AtomicInteger(-1),
            c -> c.setCacheLoaderFactory(FactoryBuilder.factoryOf(SeedConfigPeer.UpperCase.class)));
    cache.put("a", "kept");
    CompletionListenerFuture done = new CompletionListenerFuture();
    int before = store.calls.size();
    cache.loadAll(Set.of("a", "b"), false, done);
    done.get(10, java.util.concurrent.TimeUnit.SECONDS); // loadAll runs in the background
    List<String> made = callsSince(before);
    assertEquals("kept", cache.get("a"));
    assertEquals("B", cache.get("b"));
    // one batch is_exist for both keys: the present "a" is never read; the absent "b" is then
    // written by a locked step, which reads it once (as every loaded write does) and puts it
    assertEquals(List.of("batchIsExist", "getInto", "put"), made);
    assertTrue(store.threadOf("batchIsExist").contains("-lookup-"), store.threadOf("batchIsExist"));
  }

  @Test
  void underClusterContainsKeyReadsTheEntry() {
    // A present is_exist can be stale there (a dead owner's segment is listed until client_ttl
    // while reads of it answer absent): cluster keeps containsKey a read, confirmed like a get's
    MooncakeCache<String, String> cache = cache(TestConfigs.inProcess(), true, null);
    cache.put("k", "v");
    assertEquals(List.of("getInto"), calls(() -> assertTrue(cache.containsKey("k"))));
    assertEquals(
        List.of("getInto", "putPinned*", "batchGetInto*", "remove*"),
        calls(() -> assertFalse(cache.containsKey("none"))));
  }

  @Test
  void underLocalWithNoWriterAnAbsentAnswerStands() {
    AtomicInteger absent = new AtomicInteger(0);
    MooncakeCache<String, String> cache = cache(TestConfigs.inProcess(), false, null, absent);
    cache.put("k", "v");
    absent.set(1);
    assertEquals(List.of("isExist"), calls(() -> assertFalse(cache.containsKey("k"))));
  }

  @Test
  void aFixedPolicyWhoseDurationsAreEternalIsAnsweredByIsExistToo() {
    // its expiry is known without reading an entry: every entry it writes is eternal
    MooncakeCache<String, String> cache =
        cache(
            TestConfigs.inProcess(),
            false,
            CreatedExpiryPolicy.factoryOf(javax.cache.expiry.Duration.ETERNAL));
    cache.put("k", "v");
    assertEquals(List.of("isExist"), calls(() -> assertTrue(cache.containsKey("k"))));
    assertEquals(List.of("isExist"), calls(() -> assertFalse(cache.containsKey("none"))));
  }

  @Test
  void anExpiringCacheReadsTheEntryAndAnExpiredOneIsReportedAndAbsent() {
    MooncakeCache<String, String> cache =
        cache(
            TestConfigs.inProcess(),
            false,
            CreatedExpiryPolicy.factoryOf(new javax.cache.expiry.Duration(SECONDS, 10)));
    List<String> expired = new ArrayList<>();
    cache.registerCacheEntryListener(
        new MutableCacheEntryListenerConfiguration<>(
            FactoryBuilder.factoryOf(new ExpiredKeys(expired)), null, false, true));
    cache.put("k", "v");
    assertEquals(List.of("getInto"), calls(() -> assertTrue(cache.containsKey("k"))));
    fixture.ticker.advance(Duration.ofSeconds(11));
    assertFalse(cache.containsKey("k"));
    assertEquals(List.of("k"), expired);
  }

  @Test
  void containsKeyDoesNotTouchAnAccessExpiry() {
    MooncakeCache<String, String> cache =
        cache(
            TestConfigs.inProcess(),
            false,
            AccessedExpiryPolicy.factoryOf(new javax.cache.expiry.Duration(SECONDS, 10)));
    cache.put("k", "v");
    fixture.ticker.advance(Duration.ofSeconds(6));
    assertTrue(cache.containsKey("k"));
    fixture.ticker.advance(Duration.ofSeconds(6)); // 12 s after the put: an access at 6 s
    assertFalse(cache.containsKey("k"), "containsKey counted as an access");
  }

  private static final java.util.concurrent.TimeUnit SECONDS =
      java.util.concurrent.TimeUnit.SECONDS;

  /** Collects the keys of expired events. */
  static final class ExpiredKeys
      implements CacheEntryExpiredListener<String, String>, java.io.Serializable {
    private final transient List<String> keys;

    ExpiredKeys(List<String> keys) {
      this.keys = keys;
    }

    @Override
    public void onExpired(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      for (CacheEntryEvent<? extends String, ? extends String> e : events) {
        keys.add(e.getKey());
      }
    }
  }
}
