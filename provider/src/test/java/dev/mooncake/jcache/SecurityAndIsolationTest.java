package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import java.io.Serializable;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Values from a shared store are untrusted; tenants and caches never see each other's keys. */
class SecurityAndIsolationTest {
  private final JCacheFixture fixture = new JCacheFixture();

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  /** Counts instantiations: a refused class must never be constructed by deserialization. */
  static final class Gadget implements Serializable {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger READS = new AtomicInteger();
    final String payload;

    Gadget(String payload) {
      this.payload = payload;
    }

    private void readObject(java.io.ObjectInputStream in) throws Exception {
      READS.incrementAndGet();
      in.defaultReadObject();
    }
  }

  @Test
  void classOutsideTheAllowListIsRefusedByNameAndNeverInstantiated() {
    MooncakeConfig config =
        TestConfigs.withTenantAndAllowList(TestConfigs.inProcess(), "t", List.of());
    Cache<String, Object> cache =
        fixture.manager(config).createCache("objects", new MutableConfiguration<>());
    cache.put("gadget", new Gadget("boom"));
    int before = Gadget.READS.get();

    CacheException refused = assertThrows(CacheException.class, () -> cache.get("gadget"));

    assertTrue(refused.getMessage().contains(Gadget.class.getName()), refused.getMessage());
    assertTrue(refused.getMessage().contains("deserialization_allow_list"), refused.getMessage());
    assertEquals(before, Gadget.READS.get(), "the refused class was instantiated");
  }

  @Test
  void allowListedClassRoundTrips() {
    MooncakeConfig config =
        TestConfigs.withTenantAndAllowList(
            TestConfigs.inProcess(),
            "t",
            List.of("dev.mooncake.jcache.SecurityAndIsolationTest$*"));
    Cache<String, Object> cache =
        fixture.manager(config).createCache("objects", new MutableConfiguration<>());
    cache.put("gadget", new Gadget("fine"));
    assertEquals("fine", ((Gadget) cache.get("gadget")).payload);
  }

  @Test
  void jdkValueTypesNeedNoAllowList() {
    Cache<String, Object> cache =
        fixture.manager(TestConfigs.inProcess()).createCache("jdk", new MutableConfiguration<>());
    cache.put("list", new java.util.ArrayList<>(List.of(1, "two", 3.0)));
    cache.put("time", java.time.Instant.ofEpochSecond(42));
    cache.put("state", new Serializable[] {1, "a"}); // how Hibernate caches an entity's state
    assertEquals(List.of(1, "a"), List.of((Object[]) cache.get("state")));
    assertEquals(List.of(1, "two", 3.0), cache.get("list"));
    assertEquals(java.time.Instant.ofEpochSecond(42), cache.get("time"));
  }

  @Test
  void tenantsOnOneStoreNeverSeeEachOther() {
    MooncakeConfig base = TestConfigs.inProcess();
    ObjectStore shared = InProcessStore.open(base);
    Cache<String, String> red =
        fixture
            .manager(TestConfigs.withTenantAndAllowList(base, "red", List.of()), shared)
            .createCache(
                "users",
                new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    Cache<String, String> blue =
        fixture
            .manager(TestConfigs.withTenantAndAllowList(base, "blue", List.of()), shared)
            .createCache(
                "users",
                new MutableConfiguration<String, String>().setTypes(String.class, String.class));

    red.put("alice", "red-alice");
    blue.put("alice", "blue-alice");
    blue.put("bob", "blue-bob");

    assertEquals("red-alice", red.get("alice"));
    assertEquals("blue-alice", blue.get("alice"));
    assertNull(red.get("bob"));
    assertEquals(1, countEntries(red), "red sees only its own entry");

    red.clear();
    assertNull(red.get("alice"));
    assertEquals("blue-alice", blue.get("alice"), "clear() of one tenant removed another's entry");
    assertEquals("blue-bob", blue.get("bob"));
  }

  @Test
  void cachesWithPrefixNamesDoNotOverlap() {
    MooncakeCacheManager manager = fixture.manager(TestConfigs.inProcess());
    Cache<String, String> a = manager.createCache("a", new MutableConfiguration<>());
    Cache<String, String> ab = manager.createCache("ab", new MutableConfiguration<>());
    Cache<String, String> slash = manager.createCache("a/b", new MutableConfiguration<>());
    a.put("k", "a");
    ab.put("k", "ab");
    slash.put("k", "a/b");
    a.clear();
    assertNull(a.get("k"));
    assertEquals("ab", ab.get("k"));
    assertEquals("a/b", slash.get("k"));
  }

  @Test
  void keysOfDifferentTypesDoNotCollide() {
    Cache<Object, String> cache =
        fixture.manager(TestConfigs.inProcess()).createCache("mixed", new MutableConfiguration<>());
    cache.put("1", "string");
    cache.put(1, "int");
    cache.put(1L, "long");
    cache.put(new byte[] {'1'}, "bytes");
    assertEquals("string", cache.get("1"));
    assertEquals("int", cache.get(1));
    assertEquals("long", cache.get(1L));
    assertEquals(4, countEntries(cache));
  }

  private static int countEntries(Cache<?, ?> cache) {
    int n = 0;
    for (Cache.Entry<?, ?> ignored : cache) {
      n++;
    }
    return n;
  }
}
