package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.ConfigException;
import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.entry.StoredEntry;
import dev.mooncake.jcache.internal.event.remote.TestPublisher;
import dev.mooncake.jcache.internal.near.NearCache;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Managers on one store stand for JVMs on one cluster: the store announces every object that
 * appears or goes on a {@link TestPublisher} (the master's frames, over JeroMQ on loopback), and
 * each manager subscribes to it through {@code events_endpoint}.
 */
class ClusterEventsTest {
  @TempDir Path dir;
  private final JCacheFixture fixture = new JCacheFixture();
  private TestPublisher publisher;
  private PublishingStore store;

  @BeforeEach
  void cluster() {
    publisher = new TestPublisher();
    store = new PublishingStore(InProcessStore.open(TestConfigs.inProcess()), publisher);
  }

  @AfterEach
  void close() throws Exception {
    fixture.close();
    store.publisher().close();
    store.shutdown();
  }

  private MooncakeConfig config(String tenant) throws IOException {
    Path file = dir.resolve(tenant + ".json");
    Files.writeString(
        file,
        ("{'tenant_id':'"
                + tenant
                + "','events_endpoint':'"
                + publisher.endpoint()
                + "','caches':{'near':{'key_type':'java.lang.String',"
                + "'value_type':'java.lang.String','near_cache':{'max_entries':100}}}}")
            .replace('\'', '"'));
    return ConfigLoader.load(file.toUri(), getClass().getClassLoader());
  }

  /** A "JVM": a manager of the cluster, with its cache "near" (near cache on). */
  private MooncakeCache<String, String> jvm(String tenant) throws IOException {
    MooncakeCacheManager manager = fixture.manager(config(tenant), store);
    MooncakeCache<String, String> cache =
        manager.getCache("near", String.class, String.class).unwrap(MooncakeCache.class);
    var subscription = manager.cluster().subscription();
    await(
        () -> cache.nearCache().isLive(),
        () ->
            "the subscription went live (subscription live: "
                + subscription.isLive()
                + ", messages "
                + subscription.messages()
                + ", flushes "
                + subscription.flushes()
                + ")");
    return cache;
  }

  private static void await(BooleanSupplier condition, String what) {
    await(condition, () -> what);
  }

  private static void await(BooleanSupplier condition, java.util.function.Supplier<String> what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, () -> "not within 10 s: " + what.get());
      LockSupport.parkNanos(200_000);
    }
  }

  @Test
  void listenersHearOtherJvmsChangesOnceAndTheirOwnOnce() throws Exception {
    MooncakeCache<String, String> a = jvm("t");
    MooncakeCache<String, String> b = jvm("t");
    Recorder inA = Recorder.on(a);
    Recorder inB = Recorder.on(b);

    // Paced as changes by people are: each is seen by B before the next (remote events read the
    // value on delivery, so a change overtaken by the next one is folded into it).
    a.put("k", "v1");
    assertEquals(List.of("CREATED k=v1 old=-"), inB.take(1));
    a.put("k", "v2");
    assertEquals(List.of("UPDATED k=v2 old=-"), inB.take(1));
    a.remove("k");
    assertEquals(List.of("REMOVED k=null old=-"), inB.take(1));
    a.put("barrier", "x");
    assertEquals(List.of("CREATED barrier=x old=-"), inB.take(1));
    await(() -> a.remoteEvents().idle(), "A's echo deliveries done");
    List<String> own = inA.take(4); // ordered per key, not across keys
    assertEquals(
        List.of("CREATED k=v1 old=-", "UPDATED k=v2 old=v1", "REMOVED k=v2 old=v2"),
        own.stream().filter(e -> e.contains(" k=")).toList());
    assertTrue(own.contains("CREATED barrier=x old=-"), own.toString());
    assertNull(inA.events.poll(), "A's own changes came back from the stream");

    b.put("k", "fromB");
    assertEquals(List.of("CREATED k=fromB old=-"), inA.take(1));
    assertEquals(List.of("CREATED k=fromB old=-"), inB.take(1));
    await(() -> b.remoteEvents().idle(), "B's echo deliveries done");
    assertNull(inB.events.poll());
  }

  @Test
  void otherCachesAndTenantsAreFilteredOut() throws Exception {
    MooncakeCache<String, String> a = jvm("t");
    MooncakeCache<String, String> otherTenant = jvm("u");
    Recorder inA = Recorder.on(a);
    Cache<String, String> otherCache =
        a.getCacheManager()
            .createCache(
                "other",
                new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    otherTenant.put("k", "u's");
    otherCache.put("k", "other's");
    store.put("mcjlock/x", java.nio.ByteBuffer.wrap(new byte[] {1})); // a lock object
    MooncakeCache<String, String> b = jvm("t");
    b.put("barrier", "x");
    assertEquals(List.of("CREATED barrier=x old=-"), inA.take(1));
    assertEquals("u's", otherTenant.get("k"));
    assertNull(a.get("k"));
  }

  @Test
  void theNearCacheServesUntilTheClusterChangesTheEntry() throws Exception {
    MooncakeCache<String, String> a = jvm("t");
    MooncakeCache<String, String> b = jvm("t");
    NearCache<StoredEntry> near = b.nearCache();
    long invalidations = near.invalidations();
    a.put("k", "v1");
    await(() -> near.invalidations() >= invalidations + 1, "stored arrived");
    assertEquals("v1", b.get("k"));
    long hits = near.hits();
    assertEquals("v1", b.get("k"));
    assertEquals(hits + 1, near.hits(), "the second read was served by the near cache");

    a.put("k", "v2");
    await(() -> near.invalidations() >= invalidations + 3, "removed + stored arrived");
    assertEquals("v2", b.get("k"));
    assertEquals("v2", b.get("k"));
    assertEquals(hits + 2, near.hits());
    a.remove("k");
    await(() -> near.invalidations() >= invalidations + 4, "removed arrived");
    assertNull(b.get("k"));
  }

  @Test
  void ownWritesReplaceTheNearCopyAtOnce() throws Exception {
    MooncakeCache<String, String> b = jvm("t");
    b.put("k", "v1");
    assertEquals("v1", b.get("k"));
    b.put("k", "v2");
    assertEquals("v2", b.get("k"));
    b.remove("k");
    assertNull(b.get("k"));
    b.put("k", "v3");
    b.clear();
    assertNull(b.get("k"));
  }

  @Test
  void aDroppedEventFlushesTheNearCacheAtTheNextMessage() throws Exception {
    MooncakeCache<String, String> a = jvm("t");
    MooncakeCache<String, String> b = jvm("t");
    NearCache<StoredEntry> near = b.nearCache();
    a.put("k", "v1");
    assertEquals("v1", b.get("k"));
    long flushes = near.flushes();
    store.dropNext(); // the removed of the replace is lost …
    a.put("k", "v2"); // … its stored arrives after a gap in the sequence
    await(() -> near.flushes() > flushes, "the gap was noticed");
    assertEquals("v2", b.get("k"));

    store.dropNext();
    a.remove("k"); // lost entirely: no message carries anything after it
    // Until the next message reveals the gap the near cache cannot know (documented); the next
    // message of any cache flushes it.
    a.put("other", "x");
    await(() -> near.flushes() > flushes + 1, "the second gap was noticed");
    assertNull(b.get("k"));
  }

  @Test
  void aRestartedMasterFlushesAndServesAgainOnceLive() throws Exception {
    MooncakeCache<String, String> a = jvm("t");
    MooncakeCache<String, String> b = jvm("t");
    NearCache<StoredEntry> near = b.nearCache();
    a.put("k", "v1");
    assertEquals("v1", b.get("k"));
    int port = publisher.port();
    publisher.close();
    await(() -> !near.isLive(), "the drop was noticed");
    await(() -> near.size() == 0, "emptied");
    long hits = near.hits();
    a.put("k", "v2"); // no one hears of it: the near cache must not serve
    assertEquals("v2", b.get("k"));
    assertEquals("v2", b.get("k"));
    assertEquals(hits, near.hits(), "served while not live");

    store.publisher(new TestPublisher(port));
    await(near::isLive, "live again (probe)");
    assertEquals("v2", b.get("k"));
    assertEquals("v2", b.get("k"));
    assertEquals(hits + 1, near.hits());
  }

  @Test
  void removeAllReachesEveryJvmsEntries() throws Exception {
    MooncakeCache<String, String> a = jvm("t");
    MooncakeCache<String, String> b = jvm("t");
    a.put("a1", "x");
    a.put("a2", "x");
    b.put("b1", "x");
    assertEquals("x", a.get("b1")); // in A's near cache now
    b.removeAll();
    for (String key : List.of("a1", "a2", "b1")) {
      assertNull(b.get(key), key);
      await(() -> a.get(key) == null, "A sees " + key + " gone");
    }
  }

  /**
   * How stale B's near cache can be: from A's put returning to B's get no longer answering the old
   * value, over many writes (a B read before each write makes sure the old value is held). The
   * figures go to target/near-cache-staleness.txt (quoted in docs/performance.md).
   */
  @Test
  void stalenessAfterAnotherJvmsPut() throws Exception {
    MooncakeCache<String, String> a = jvm("t");
    MooncakeCache<String, String> b = jvm("t");
    int writes = 2000;
    long[] nanos = new long[writes];
    a.put("k", "v0");
    await(() -> "v0".equals(b.get("k")), "B sees v0");
    long flushes = b.nearCache().flushes();
    int servedOld = 0;
    for (int i = 1; i <= writes; i++) {
      String old = "v" + (i - 1);
      String next = "v" + i;
      assertEquals(old, b.get("k")); // held by B's near cache (or read and installed now)
      a.put("k", next);
      long returned = System.nanoTime();
      long deadline = returned + TimeUnit.SECONDS.toNanos(10);
      String seen;
      while (!next.equals(seen = b.get("k"))) {
        assertTrue(
            seen == null || seen.equals(old), "B saw " + seen + " between " + old + "/" + next);
        servedOld++;
        // Not a busy spin: on a small machine it would starve the subscription's thread.
        LockSupport.parkNanos(10_000);
        assertTrue(System.nanoTime() < deadline, "B still serves " + seen + " after 10 s");
      }
      nanos[i - 1] = System.nanoTime() - returned;
    }
    java.util.Arrays.sort(nanos);
    String figures =
        String.format(
            java.util.Locale.ROOT,
            "near-cache staleness after another JVM's put (%d writes, in-process store, JeroMQ on"
                + " loopback): p50 %.1f us, p99 %.1f us, max %.1f us; reads that still saw the old"
                + " value: %d%n",
            writes,
            nanos[writes / 2] / 1e3,
            nanos[writes * 99 / 100] / 1e3,
            nanos[writes - 1] / 1e3,
            servedOld);
    Path out = Path.of("target", "near-cache-staleness.txt");
    Files.createDirectories(out.getParent());
    Files.writeString(out, figures);
    System.out.print(figures);
    // A flush (an event gap) would make the figures measure it, not the invalidation.
    assertEquals(flushes, b.nearCache().flushes(), "B's near cache was flushed during the writes");
  }

  @Test
  void aNearCacheNeedsTheEventStream() throws IOException {
    Path file = dir.resolve("bad.json");
    Files.writeString(file, "{\"caches\":{\"c\":{\"near_cache\":{\"max_entries\":5}}}}");
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigLoader.load(file.toUri(), getClass().getClassLoader()));
    assertTrue(e.getMessage().contains("needs events_endpoint"), e.getMessage());
  }

  /** Records events as "TYPE key=value old=oldValue|-". */
  static final class Recorder
      implements CacheEntryCreatedListener<String, String>,
          CacheEntryUpdatedListener<String, String>,
          CacheEntryRemovedListener<String, String>,
          Serializable {
    private static final long serialVersionUID = 1L;
    final transient BlockingQueue<String> events = new LinkedBlockingQueue<>();

    static Recorder on(Cache<String, String> cache) {
      Recorder recorder = new Recorder();
      cache.registerCacheEntryListener(
          new MutableCacheEntryListenerConfiguration<>(
              FactoryBuilder.factoryOf(recorder), null, true, false));
      return recorder;
    }

    List<String> take(int n) throws InterruptedException {
      List<String> taken = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String event = events.poll(10, TimeUnit.SECONDS);
        assertNotNull(event, "event " + i + " of " + n + " after " + taken);
        taken.add(event);
      }
      return taken;
    }

    private void record(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
      for (CacheEntryEvent<? extends String, ? extends String> e : batch) {
        events.add(
            e.getEventType()
                + " "
                + e.getKey()
                + "="
                + e.getValue()
                + " old="
                + (e.isOldValueAvailable() ? e.getOldValue() : "-"));
      }
    }

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
      record(batch);
    }

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
      record(batch);
    }

    @Override
    public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
      record(batch);
    }
  }
}
