package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.async.AsyncCalls;
import dev.mooncake.jcache.internal.backend.ForwardingObjectStore;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.testing.Latches;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.configuration.Factory;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link MooncakeCache#putEach}, what asynchronous puts ready at once run as: each key answers what
 * its own {@code put} would (writer call, statistics, events, expiry, exception), with one batch
 * put of the store, on every backend; one key's failure, or the batch put's answer for one key, is
 * that key's alone.
 */
class PutEachTest {
  private static final AtomicInteger NAMES = new AtomicInteger();

  private final JCacheFixture fixture = new JCacheFixture();

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  /** Records each write; refuses keys starting with "bad". */
  static final class Writer implements CacheWriter<String, String> {
    final List<String> written = new CopyOnWriteArrayList<>();

    @Override
    public void write(Cache.Entry<? extends String, ? extends String> entry) {
      if (entry.getKey().startsWith("bad")) {
        throw new CacheWriterException(entry.getKey() + " is refused by the writer");
      }
      written.add(entry.getKey() + "=" + entry.getValue());
    }

    @Override
    public void writeAll(java.util.Collection<Cache.Entry<? extends String, ? extends String>> e) {
      throw new AssertionError("a put never writes in bulk");
    }

    @Override
    public void delete(Object key) {}

    @Override
    public void deleteAll(java.util.Collection<?> keys) {}
  }

  /** Counts created and updated events (an asynchronous listener: batches allow it). */
  static final class Events
      implements java.io.Serializable,
          CacheEntryCreatedListener<String, String>,
          CacheEntryUpdatedListener<String, String> {
    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static volatile java.util.concurrent.CountDownLatch three =
        new java.util.concurrent.CountDownLatch(3);

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      events.forEach(
          e -> {
            SEEN.add("created " + e.getKey());
            three.countDown();
          });
    }

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      events.forEach(
          e -> {
            SEEN.add("updated " + e.getKey() + " " + e.getOldValue());
            three.countDown();
          });
    }
  }

  @SuppressWarnings("unchecked")
  private MooncakeCache<String, String> cache(
      MooncakeCacheManager manager, Writer writer, boolean expiring) {
    Factory<CacheWriter<String, String>> writers = () -> writer;
    MutableConfiguration<String, String> configuration =
        new MutableConfiguration<String, String>()
            .setTypes(String.class, String.class)
            .setWriteThrough(true)
            .setCacheWriterFactory(writers)
            .setStatisticsEnabled(true);
    if (expiring) { // not eternal: the puts read the old entry first
      configuration.setExpiryPolicyFactory(
          CreatedExpiryPolicy.factoryOf(new javax.cache.expiry.Duration(TimeUnit.HOURS, 1)));
    }
    Cache<String, String> cache =
        manager.createCache("each-" + NAMES.incrementAndGet(), configuration);
    return cache.unwrap(MooncakeCache.class);
  }

  private MooncakeCacheManager manager(String backend) {
    return fixture.manager(
        backend.equals("mooncake") ? TestConfigs.mooncakeFixture() : TestConfigs.inProcess());
  }

  private Deadline deadline() {
    return Deadline.after(Duration.ofSeconds(30), fixture.ticker);
  }

  private static long puts(MooncakeCache<String, String> cache) {
    return cache.statistics().getCachePuts();
  }

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "mooncake"})
  void eachPutAnswersAsItsOwnPutAndOneWritersFailureIsOnlyItsKeys(String backend) {
    for (boolean expiring : new boolean[] {false, true}) {
      Writer writer = new Writer();
      MooncakeCache<String, String> cache = cache(manager(backend), writer, expiring);
      cache.put("b", "old");
      long before = puts(cache);
      List<AsyncCalls.Answer<Void>> answers =
          cache.putEach(List.of("c", "bad1", "b", "a"), List.of("3", "x", "2", "1"), deadline());
      assertEquals(4, answers.size());
      assertNull(answers.get(0).failure());
      assertInstanceOf(CacheWriterException.class, answers.get(1).failure());
      assertNull(answers.get(2).failure());
      assertNull(answers.get(3).failure());
      assertEquals(
          Map.of("a", "1", "b", "2", "c", "3"),
          cache.getAll(java.util.Set.of("a", "b", "c", "bad1")));
      assertEquals(3, puts(cache) - before, "one put counted per stored key, none for bad1");
      assertTrue(
          writer.written.containsAll(List.of("a=1", "b=2", "c=3")), writer.written.toString());
      assertEquals(4, writer.written.size(), "b=old, then one write per stored key");
    }
  }

  @Test
  void eventsAreEachPutsOwn() throws Exception {
    Events.SEEN.clear();
    Events.three = new java.util.concurrent.CountDownLatch(3);
    MooncakeCache<String, String> cache = cache(manager("in-process"), new Writer(), true);
    cache.registerCacheEntryListener(
        new MutableCacheEntryListenerConfiguration<>(
            FactoryBuilder.factoryOf(new Events()), null, true, false));
    cache.put("u", "0");
    cache.putEach(List.of("u", "n"), List.of("1", "1"), deadline());
    assertTrue(Events.three.await(10, TimeUnit.SECONDS), "events: " + Events.SEEN);
    assertEquals(
        java.util.Set.of("created u", "updated u 0", "created n"),
        java.util.Set.copyOf(Events.SEEN));
  }

  @Test
  void withASynchronousListenerTheBatchRefusesBeforeAnyEffect() {
    Writer writer = new Writer();
    MooncakeCache<String, String> cache = cache(manager("in-process"), writer, false);
    cache.registerCacheEntryListener(
        new MutableCacheEntryListenerConfiguration<>(
            FactoryBuilder.factoryOf(new Events()), null, true, true));
    assertThrows(
        IllegalStateException.class,
        () -> cache.putEach(List.of("a", "b"), List.of("1", "2"), deadline()));
    assertEquals(List.of(), writer.written, "nothing happened: each put can run alone");
    assertNull(cache.get("a"));
  }

  /** A store whose batch put answers a hard error for values holding the text "DOOMED". */
  private static final class DoomingStore extends ForwardingObjectStore {
    DoomingStore(InProcessStore delegate) {
      super(delegate);
    }

    /** As a remote store: one batch put for all the keys (in-process, a batch is split). */
    @Override
    public boolean inProcess() {
      return false;
    }

    @Override
    public int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline) {
      int[] results = super.batchPut(keys, values, deadline);
      for (int i = 0; i < keys.length; i++) {
        if (holdsDoomed(values[i])) {
          super.remove(keys[i], true, deadline);
          results[i] = -600; // INVALID_PARAMS: not transient
        }
      }
      return results;
    }

    private static boolean holdsDoomed(ByteBuffer value) {
      String text =
          java.nio.charset.StandardCharsets.ISO_8859_1.decode(value.duplicate()).toString();
      return text.contains("DOOMED");
    }
  }

  @Test
  void aBatchPutsAnswerForOneKeyFailsOnlyThatPut() {
    InProcessStore store = InProcessStore.open(TestConfigs.inProcess(), fixture.ticker);
    MooncakeCache<String, String> cache =
        cache(
            fixture.manager(TestConfigs.inProcess(), new DoomingStore(store)), new Writer(), false);
    long before = puts(cache);
    List<AsyncCalls.Answer<Void>> answers =
        cache.putEach(List.of("a", "doomed", "z"), List.of("1", "DOOMED", "3"), deadline());
    assertNull(answers.get(0).failure());
    assertInstanceOf(CacheException.class, answers.get(1).failure());
    assertTrue(
        answers.get(1).failure().getMessage().contains("-600"),
        answers.get(1).failure().getMessage());
    assertNull(answers.get(2).failure());
    assertEquals("1", cache.get("a"));
    assertNull(cache.get("doomed"));
    assertEquals("3", cache.get("z"));
    assertEquals(2, puts(cache) - before);
  }

  /** Holds the first single put until released; records each batch put's size. */
  private static final class HoldingStore extends ForwardingObjectStore {
    final CountDownLatch firstPutHeld = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<Integer> batchPuts = new CopyOnWriteArrayList<>();
    final AtomicInteger singlePuts = new AtomicInteger();

    HoldingStore(InProcessStore delegate) {
      super(delegate);
    }

    @Override
    public int put(String key, ByteBuffer value, Deadline deadline) {
      if (singlePuts.getAndIncrement() == 0) {
        firstPutHeld.countDown();
        Latches.await(release, "the test released the first put");
      }
      return super.put(key, value, deadline);
    }

    @Override
    public int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline) {
      batchPuts.add(keys.length);
      return super.batchPut(keys, values, deadline);
    }
  }

  @Test
  void asyncPutsReadyTogetherGoAsOneBatchPutAndKeepTheirOrderPerKey() throws Exception {
    HoldingStore store =
        new HoldingStore(InProcessStore.open(TestConfigs.inProcess(), fixture.ticker));
    MooncakeCacheManager manager = fixture.manager(TestConfigs.inProcess(), store);
    Cache<String, String> cache =
        manager.createCache(
            "async-each-" + NAMES.incrementAndGet(),
            new MutableConfiguration<String, String>().setStatisticsEnabled(true));
    @SuppressWarnings("unchecked")
    MooncakeCacheAsync<String, String> async = cache.unwrap(MooncakeCacheAsync.class);
    CompletableFuture<Void> first = async.putAsync("first", "0").toCompletableFuture();
    Latches.await(store.firstPutHeld, "the write runner is in the first put");
    List<CompletableFuture<Void>> later = new ArrayList<>();
    for (String value : List.of("1", "2", "3")) {
      later.add(async.putAsync("k", value).toCompletableFuture());
      later.add(async.putAsync("k" + value, value).toCompletableFuture());
    }
    store.release.countDown();
    first.get(30, TimeUnit.SECONDS);
    for (CompletableFuture<Void> stage : later) {
      stage.get(30, TimeUnit.SECONDS);
    }
    assertEquals("3", cache.get("k"), "the last put of k was the last applied");
    for (String value : List.of("1", "2", "3")) {
      assertEquals(value, cache.get("k" + value));
    }
    // k1, k2, k3 and the first k ready together: one batch; then k's later puts, one at a time
    assertEquals(4, store.batchPuts.get(0), "batch puts: " + store.batchPuts);
    assertEquals(1 + 2, store.singlePuts.get(), "the first put and k's two later ones alone");
    assertEquals(7, ((MooncakeCache<?, ?>) cache).statistics().getCachePuts());
  }
}
