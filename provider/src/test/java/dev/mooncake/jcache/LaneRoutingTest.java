package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import java.util.Map;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which thread each store call of a cache operation runs on. */
class LaneRoutingTest {
  private final JCacheFixture fixture = new JCacheFixture();

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  private RecordingStore store;

  private Cache<String, String> cache(boolean singleCallsOnLanes) {
    return cache(singleCallsOnLanes, false);
  }

  /** A cache on a recorded store that calls itself in-process or remote (as Mooncake). */
  private Cache<String, String> cache(boolean singleCallsOnLanes, boolean inProcess) {
    MooncakeConfig config =
        TestConfigs.withLanes(
            TestConfigs.inProcess(), Map.of("retrieve", 2, "store", 1), singleCallsOnLanes);
    store = new RecordingStore(InProcessStore.open(config), inProcess);
    return fixture
        .manager(config, store)
        .createCache(
            "routed",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
  }

  @Test
  void singleCallsRunOnTheCallersThreadByDefault() {
    Cache<String, String> cache = cache(false);
    String caller = Thread.currentThread().getName();
    cache.put("k", "v");
    cache.get("k");
    cache.remove("k");
    assertEquals(caller, store.threadOf("put"));
    assertEquals(caller, store.threadOf("getInto"));
    assertEquals(caller, store.threadOf("remove"));
  }

  @Test
  void batchCallsOnAnInProcessStoreRunOnTheCallersThread() {
    Cache<String, String> cache = cache(false, true);
    String caller = Thread.currentThread().getName();
    cache.putAll(Map.of("a", "1", "b", "2", "c", "3"));
    assertEquals(Map.of("a", "1", "b", "2"), cache.getAll(Set.of("a", "b")));
    assertEquals(caller, store.threadOf("batchPut"));
    assertEquals(caller, store.threadOf("batchGetInto"));
  }

  @Test
  void batchCallsOnAnInProcessStoreHopWhenEveryCallIsConfiguredOntoLanes() {
    Cache<String, String> cache = cache(true, true);
    cache.putAll(Map.of("a", "1", "b", "2", "c", "3"));
    assertTrue(store.threadOf("batchPut").contains("-store-"), store.threadOf("batchPut"));
  }

  @Test
  void batchCallsRunOnTheirLanes() {
    Cache<String, String> cache = cache(false);
    cache.putAll(Map.of("a", "1", "b", "2", "c", "3"));
    assertEquals(Map.of("a", "1", "b", "2"), cache.getAll(Set.of("a", "b")));
    assertTrue(store.threadOf("batchPut").contains("-store-"), store.threadOf("batchPut"));
    assertTrue(
        store.threadOf("batchGetInto").contains("-retrieve-"), store.threadOf("batchGetInto"));
  }

  @Test
  void singleCallsHopOntoLanesWhenConfigured() {
    Cache<String, String> cache = cache(true);
    cache.put("k", "v");
    cache.get("k");
    cache.remove("k");
    assertTrue(store.threadOf("put").contains("-store-"), store.threadOf("put"));
    assertTrue(store.threadOf("getInto").contains("-retrieve-"), store.threadOf("getInto"));
    // delete has no dedicated pool: it shares num_workers with lookup
    assertTrue(store.threadOf("remove").contains("-shared-"), store.threadOf("remove"));
  }
}
