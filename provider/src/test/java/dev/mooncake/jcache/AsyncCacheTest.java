package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.async.AsyncOverloadException;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.calls.CallTimeoutException;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.testing.Latches;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import javax.cache.Cache;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryListener;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The asynchronous view ({@link MooncakeCacheAsync}): each operation answers as its synchronous
 * twin, on a provider thread, in issue order per key, within the in-flight bound, and closing ends
 * what is in flight. Blocked operations are held by a writer or loader on a latch, never by sleeps.
 */
class AsyncCacheTest {
  private static final AtomicInteger NAMES = new AtomicInteger();

  private final JCacheFixture fixture = new JCacheFixture();
  private final HeldWriter writer = new HeldWriter();
  private final ExecutorService userExecutor =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "user-executor"));

  @AfterEach
  void close() throws Exception {
    writer.release.countDown();
    fixture.close();
    userExecutor.shutdownNow();
  }

  private MooncakeCacheManager manager(String backend, UnaryOperator<MooncakeConfig.Builder> c) {
    MooncakeConfig base =
        backend.equals("mooncake") ? TestConfigs.mooncakeFixture() : TestConfigs.inProcess();
    return fixture.manager(c.apply(base.toBuilder()).build());
  }

  private MooncakeCacheManager manager(UnaryOperator<MooncakeConfig.Builder> c) {
    return manager("in-process", c);
  }

  private static String name(String what) {
    return what + "-" + NAMES.incrementAndGet();
  }

  /** A cache whose writer is {@link #writer} and whose loader loads {@code "l*"} keys. */
  private Cache<String, String> cache(MooncakeCacheManager manager, String name) {
    return cache(manager, name, writer);
  }

  private Cache<String, String> cache(MooncakeCacheManager manager, String name, HeldWriter w) {
    Factory<CacheWriter<String, String>> writers = () -> w;
    Factory<CacheLoader<String, String>> loaders = () -> new PrefixLoader();
    return manager.createCache(
        name,
        new MutableConfiguration<String, String>()
            .setTypes(String.class, String.class)
            .setWriteThrough(true)
            .setCacheWriterFactory(writers)
            .setReadThrough(true)
            .setCacheLoaderFactory(loaders)
            .setStatisticsEnabled(true));
  }

  @SuppressWarnings("unchecked")
  private static MooncakeCacheAsync<String, String> async(Cache<String, String> cache) {
    return cache.unwrap(MooncakeCacheAsync.class);
  }

  private static <T> T done(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(Latches.BOUND_SECONDS, TimeUnit.SECONDS);
  }

  // ---------------------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "mooncake"})
  void everyOperationAnswersAsItsSynchronousTwin(String backend) throws Exception {
    MooncakeCacheManager manager = manager(backend, b -> b);
    HeldWriter syncWriter = new HeldWriter();
    Cache<String, String> sync = cache(manager, name("sync"), syncWriter);
    Cache<String, String> cache = cache(manager, name("async"));
    MooncakeCacheAsync<String, String> async = async(cache);
    EntryProcessor<String, String, String> append =
        (entry, args) -> {
          String old = entry.getValue();
          entry.setValue(old == null ? (String) args[0] : old + args[0]);
          return old;
        };
    Steps steps = new Steps();
    steps.add("get miss", () -> sync.get("a"), () -> async.getAsync("a"));
    steps.add("get loads", () -> sync.get("l1"), () -> async.getAsync("l1"));
    steps.add("put", () -> put(sync, "a", "1"), () -> async.putAsync("a", "1"));
    steps.add("get hit", () -> sync.get("a"), () -> async.getAsync("a"));
    steps.add("containsKey", () -> sync.containsKey("a"), () -> async.containsKeyAsync("a"));
    steps.add("containsKey no", () -> sync.containsKey("z"), () -> async.containsKeyAsync("z"));
    steps.add(
        "putAll",
        () -> putAll(sync, Map.of("b", "2", "c", "3", "d", "4")),
        () -> async.putAllAsync(Map.of("b", "2", "c", "3", "d", "4")));
    steps.add(
        "getAll",
        () -> sync.getAll(Set.of("a", "b", "x", "l2")),
        () -> async.getAllAsync(Set.of("a", "b", "x", "l2")));
    steps.add(
        "putIfAbsent no", () -> sync.putIfAbsent("a", "9"), () -> async.putIfAbsentAsync("a", "9"));
    steps.add(
        "putIfAbsent", () -> sync.putIfAbsent("e", "5"), () -> async.putIfAbsentAsync("e", "5"));
    steps.add("getAndPut", () -> sync.getAndPut("a", "10"), () -> async.getAndPutAsync("a", "10"));
    steps.add(
        "getAndPut new", () -> sync.getAndPut("f", "6"), () -> async.getAndPutAsync("f", "6"));
    steps.add("remove", () -> sync.remove("f"), () -> async.removeAsync("f"));
    steps.add("remove absent", () -> sync.remove("f"), () -> async.removeAsync("f"));
    steps.add("remove(k,v) no", () -> sync.remove("e", "x"), () -> async.removeAsync("e", "x"));
    steps.add("remove(k,v)", () -> sync.remove("e", "5"), () -> async.removeAsync("e", "5"));
    steps.add("getAndRemove", () -> sync.getAndRemove("d"), () -> async.getAndRemoveAsync("d"));
    steps.add("getAndRemove no", () -> sync.getAndRemove("d"), () -> async.getAndRemoveAsync("d"));
    steps.add(
        "replace(k,o,n) no",
        () -> sync.replace("a", "x", "y"),
        () -> async.replaceAsync("a", "x", "y"));
    steps.add(
        "replace(k,o,n)",
        () -> sync.replace("a", "10", "11"),
        () -> async.replaceAsync("a", "10", "11"));
    steps.add("replace(k,v)", () -> sync.replace("b", "20"), () -> async.replaceAsync("b", "20"));
    steps.add("replace(k,v) no", () -> sync.replace("q", "1"), () -> async.replaceAsync("q", "1"));
    steps.add(
        "getAndReplace",
        () -> sync.getAndReplace("b", "21"),
        () -> async.getAndReplaceAsync("b", "21"));
    steps.add(
        "getAndReplace no",
        () -> sync.getAndReplace("q", "1"),
        () -> async.getAndReplaceAsync("q", "1"));
    steps.add(
        "invoke", () -> sync.invoke("c", append, "+"), () -> async.invokeAsync("c", append, "+"));
    steps.add(
        "invoke new",
        () -> sync.invoke("g", append, "7"),
        () -> async.invokeAsync("g", append, "7"));
    steps.add(
        "invokeAll",
        () -> values(sync.invokeAll(Set.of("a", "c", "h"), append, "!")),
        () ->
            async
                .invokeAllAsync(Set.of("a", "c", "h"), append, "!")
                .thenApply(AsyncCacheTest::values));
    steps.add(
        "removeAll",
        () -> removeAll(sync, Set.of("a", "b", "zz")),
        () -> async.removeAllAsync(Set.of("a", "b", "zz")));
    Set<String> all = Set.of("a", "b", "c", "d", "e", "f", "g", "h", "l1", "l2", "q", "x", "z");
    steps.add("what is left", () -> sync.getAll(all), () -> async.getAllAsync(all));

    for (Step step : steps.list) {
      Object expected = step.sync.get();
      assertEquals(expected, done(step.async.get()), step.name);
    }
    assertEquals(syncWriter.calls(), writer.calls(), "the writer saw the same calls");
    assertFalse(writer.calls().isEmpty());
    CacheStatisticsView expected = CacheStatisticsView.of((MooncakeCache<?, ?>) sync);
    assertEquals(expected, CacheStatisticsView.of((MooncakeCache<?, ?>) cache), "statistics");
    for (String thread : writer.threads()) {
      assertTrue(thread.contains("-async-"), "the writer ran on " + thread);
    }
  }

  @Test
  void stagesCompleteOnAProviderThreadOrTheGivenExecutor() throws Exception {
    MooncakeCacheManager manager = manager(b -> b);
    Cache<String, String> cache = cache(manager, name("threads"));
    writer.holdKeys.add("held");
    writer.holdKeys.add("held2");
    CompletableFuture<String> onProvider =
        async(cache)
            .putAsync("held", "v")
            .thenApply(v -> Thread.currentThread().getName())
            .toCompletableFuture();
    CompletableFuture<String> onUsers =
        async(cache)
            .withExecutor(userExecutor)
            .putAsync("held2", "v")
            .thenApply(v -> Thread.currentThread().getName())
            .toCompletableFuture();
    Latches.await(writer.entered, "the writer held");
    assertFalse(onProvider.isDone());
    writer.release.countDown();
    String provider = done(onProvider);
    assertTrue(provider.startsWith("mooncake-") && provider.contains("-async-"), provider);
    assertNotEquals(Thread.currentThread().getName(), provider);
    assertEquals("user-executor", done(onUsers));
  }

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "mooncake"})
  void operationsOnOneKeyRunAndCompleteInIssueOrder(String backend) throws Exception {
    MooncakeCacheManager manager = manager(backend, b -> b);
    Cache<String, String> cache = cache(manager, name("order"));
    MooncakeCacheAsync<String, String> async = async(cache);
    writer.holdKeys.add("k");
    List<Integer> completed = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> stages = new ArrayList<>();
    int count = 100;
    for (int i = 0; i < count; i++) {
      int n = i;
      stages.add(
          async
              .putAsync("k", Integer.toString(n))
              .thenRun(() -> completed.add(n))
              .toCompletableFuture());
    }
    Latches.await(writer.entered, "the first put reached the writer");
    // Other keys are not held up behind the held one.
    assertEquals("other", done(async.putAsync("o", "other").thenCompose(v -> async.getAsync("o"))));
    assertTrue(completed.isEmpty(), "nothing on k completed before the first put: " + completed);
    writer.release.countDown();
    done(CompletableFuture.allOf(stages.toArray(new CompletableFuture<?>[0])));
    List<Integer> issued = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      issued.add(i);
    }
    assertEquals(issued, completed, "completion order");
    assertEquals(Integer.toString(count - 1), cache.get("k"));
    assertEquals(
        Integer.toString(count - 1),
        writer.lastValue("k"),
        "the writer saw the puts in issue order");
  }

  @Test
  void aBatchWaitsForEarlierOperationsOnItsKeysAndLaterOnesForIt() throws Exception {
    MooncakeCacheManager manager = manager(b -> b);
    Cache<String, String> cache = cache(manager, name("batch"));
    MooncakeCacheAsync<String, String> async = async(cache);
    writer.holdKeys.add("a");
    CompletableFuture<Void> first = async.putAsync("a", "first").toCompletableFuture();
    Latches.await(writer.entered, "the put of a reached the writer");
    CompletableFuture<Void> batch =
        async.putAllAsync(Map.of("a", "batch", "b", "batch")).toCompletableFuture();
    CompletableFuture<String> readB = async.getAsync("b").toCompletableFuture();
    assertFalse(batch.isDone());
    assertFalse(readB.isDone(), "a read of b issued after the batch waits for it");
    writer.holdKeys.clear();
    writer.release.countDown();
    done(first);
    done(batch);
    assertEquals("batch", done(readB));
    assertEquals("batch", cache.get("a"));
  }

  @Test
  void writerFailuresFailTheStage() throws Exception {
    MooncakeCacheManager manager = manager(b -> b);
    Cache<String, String> cache = cache(manager, name("failing"));
    writer.failKeys.add("bad");
    CompletableFuture<Void> put = async(cache).putAsync("bad", "v").toCompletableFuture();
    CompletionException failure = assertThrows(CompletionException.class, put::join);
    assertInstanceOf(CacheWriterException.class, failure.getCause());
    assertThrows(CacheWriterException.class, () -> cache.put("bad", "v"), "as the sync call");
    assertNull(cache.get("bad"));
    assertEquals(0, manager.asyncCalls().inFlight());
  }

  @Test
  void listenersAndStatisticsHearAsynchronousOperations() throws Exception {
    MooncakeCacheManager manager = manager(b -> b);
    Cache<String, String> cache = cache(manager, name("heard"));
    List<String> created = new CopyOnWriteArrayList<>();
    CacheEntryCreatedListener<String, String> listener =
        events -> {
          for (CacheEntryEvent<? extends String, ? extends String> e : events) {
            created.add(e.getKey() + "=" + e.getValue());
          }
        };
    Factory<CacheEntryListener<String, String>> listeners = () -> listener;
    cache.registerCacheEntryListener(
        new MutableCacheEntryListenerConfiguration<>(listeners, null, false, true));
    done(async(cache).putAsync("k", "v"));
    assertEquals(List.of("k=v"), created, "a synchronous listener has heard by completion");
    assertEquals("v", done(async(cache).getAsync("k")));
    done(async(cache).getAsync("nope"));
    MooncakeCache<?, ?> mc = (MooncakeCache<?, ?>) cache;
    assertEquals(1, mc.statistics().getCachePuts());
    assertEquals(1, mc.statistics().getCacheHits());
    assertEquals(1, mc.statistics().getCacheMisses());
  }

  @Test
  void callersBeyondTheBoundWaitForRoom() throws Exception {
    MooncakeCacheManager manager = manager(b -> b.asyncMaxInFlight(2));
    Cache<String, String> cache = cache(manager, name("bounded"));
    MooncakeCacheAsync<String, String> async = async(cache);
    writer.holdKeys.addAll(List.of("a", "b"));
    writer.enteredCount = new CountDownLatch(2);
    CompletableFuture<Void> a = async.putAsync("a", "1").toCompletableFuture();
    CompletableFuture<Void> b = async.putAsync("b", "1").toCompletableFuture();
    Latches.await(writer.enteredCount, "both puts held in the writer");
    assertEquals(2, manager.asyncCalls().inFlight());

    CompletableFuture<CompletionStage<Void>> third = new CompletableFuture<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                third.complete(async.putAsync("c", "1"));
              } catch (RuntimeException e) {
                third.completeExceptionally(e);
              }
            },
            "third-caller");
    caller.start();
    awaitState(caller, Thread.State.TIMED_WAITING);
    assertFalse(third.isDone(), "the third caller waits for room");
    writer.release.countDown();
    done(done(third));
    done(a);
    done(b);
    assertEquals("1", cache.get("c"));
    assertEquals(0, manager.asyncCalls().inFlight());
  }

  @Test
  void callersAreRefusedWhenNoRoomComesInTime() throws Exception {
    MooncakeCacheManager manager =
        manager(b -> b.asyncMaxInFlight(1).operationTimeout(Duration.ofMillis(50)));
    Cache<String, String> cache = cache(manager, name("refused"));
    MooncakeCacheAsync<String, String> async = async(cache);
    writer.holdKeys.add("a");
    CompletableFuture<Void> a = async.putAsync("a", "1").toCompletableFuture();
    Latches.await(writer.entered, "the put held in the writer");
    AsyncOverloadException refused =
        assertThrows(AsyncOverloadException.class, () -> async.getAsync("b"));
    assertTrue(refused.getMessage().contains("async_max_in_flight"), refused.getMessage());
    assertTrue(refused.getMessage().contains("50 ms"), refused.getMessage());
    writer.release.countDown();
    done(a);
    assertEquals("1", done(async.getAsync("a")), "room again once the put completed");
  }

  @Test
  void closingFailsQueuedOperationsAwaitsRunningOnesAndRefusesNewOnes() throws Exception {
    MooncakeCacheManager manager = manager(b -> b);
    Cache<String, String> cache = cache(manager, name("closing"));
    MooncakeCacheAsync<String, String> async = async(cache);
    writer.holdKeys.add("k");
    CompletableFuture<Void> running = async.putAsync("k", "1").toCompletableFuture();
    Latches.await(writer.entered, "the put held in the writer");
    CompletableFuture<Void> queued = async.putAsync("k", "2").toCompletableFuture();
    CompletableFuture<Void> closer = CompletableFuture.runAsync(cache::close, userExecutor);

    CompletionException failure = assertThrows(CompletionException.class, queued::join);
    assertInstanceOf(IllegalStateException.class, failure.getCause());
    assertTrue(failure.getCause().getMessage().contains("closed before this putAsync started"));
    assertFalse(closer.isDone(), "close waits for the running put");
    assertFalse(running.isDone());
    writer.release.countDown();
    done(running);
    done(closer);
    assertEquals(List.of("1"), writer.values("k"), "the queued put never ran");
    assertThrows(IllegalStateException.class, () -> async.putAsync("k", "3"));
    assertThrows(IllegalStateException.class, () -> cache.unwrap(MooncakeCacheAsync.class));
    assertEquals(0, manager.asyncCalls().inFlight());
  }

  @Test
  void closingTheManagerEndsEveryCachesOperations() throws Exception {
    MooncakeCacheManager manager = manager(b -> b);
    Cache<String, String> cache = cache(manager, name("manager"));
    MooncakeCacheAsync<String, String> async = async(cache);
    writer.holdKeys.add("k");
    CompletableFuture<Void> running = async.putAsync("k", "1").toCompletableFuture();
    Latches.await(writer.entered, "the put held in the writer");
    CompletableFuture<Boolean> queued = async.removeAsync("k").toCompletableFuture();
    CompletableFuture<Void> closer = CompletableFuture.runAsync(manager::close, userExecutor);
    assertInstanceOf(
        IllegalStateException.class,
        assertThrows(CompletionException.class, queued::join).getCause());
    writer.release.countDown();
    done(running);
    done(closer);
    assertThrows(IllegalStateException.class, () -> async.getAsync("k"));
  }

  @Test
  void aQueuedOperationFailsAtItsDeadlineWithoutRunning() throws Exception {
    MooncakeCacheManager manager = manager(b -> b.operationTimeout(Duration.ofMillis(300)));
    Cache<String, String> cache = cache(manager, name("expired"));
    MooncakeCacheAsync<String, String> async = async(cache);
    writer.holdKeys.add("k");
    CompletableFuture<Void> running = async.putAsync("k", "1").toCompletableFuture();
    Latches.await(writer.entered, "the put held in the writer");
    CompletableFuture<Void> queued = async.putAsync("k", "2").toCompletableFuture();
    fixture.ticker.advanceMillis(300);

    // Failed by the timer while the put ahead of it still runs, as the synchronous call times out.
    Throwable failure = assertThrows(ExecutionException.class, () -> done(queued)).getCause();
    assertInstanceOf(CallTimeoutException.class, failure);
    String message = failure.getMessage();
    assertTrue(message.startsWith("putAsync on cache '" + cache.getName() + "'"), message);
    assertTrue(message.contains("not started"), message);
    assertTrue(message.contains("operation_timeout_ms 300, 300 ms spent"), message);
    assertFalse(running.isDone());
    assertEquals(1, manager.asyncCalls().inFlight(), "its room is back");

    writer.release.countDown();
    running.handle((v, f) -> null).get(Latches.BOUND_SECONDS, TimeUnit.SECONDS);
    assertEquals(List.of("1"), writer.values("k"), "the expired put never ran");
    assertEquals(0, manager.asyncCalls().inFlight());
  }

  @Test
  void aRunningOperationsStoreCallsGetWhatIsLeftOfTheDeadlineFromItsIssue() throws Exception {
    RecordingStore store =
        new RecordingStore(InProcessStore.open(TestConfigs.inProcess(), fixture.ticker));
    MooncakeCacheManager manager = fixture.manager(TestConfigs.inProcess(), store);
    Cache<String, String> cache = cache(manager, name("remaining"));
    MooncakeCacheAsync<String, String> async = async(cache);
    writer.holdKeys.add("k");
    CompletableFuture<Void> first = async.putAsync("k", "1").toCompletableFuture();
    Latches.await(writer.entered, "the first put held in the writer");
    CompletableFuture<String> second = async.getAndPutAsync("k", "2").toCompletableFuture();
    // Dependents of the first stage run before the second starts: this marks where its calls begin.
    CompletableFuture<Integer> firstsCalls = first.thenApply(v -> store.calls.size());
    fixture.ticker.advanceMillis(700); // the second waits behind the first meanwhile
    writer.release.countDown();
    assertEquals("1", done(second));

    List<RecordingStore.Call> calls =
        store.calls.subList(done(firstsCalls), store.calls.size()).stream()
            .filter(c -> c.thread().contains("-async-"))
            .toList();
    assertFalse(calls.isEmpty(), "no store call of the second operation");
    Deadline deadline = calls.get(0).deadline();
    for (RecordingStore.Call call : calls) {
      assertSame(deadline, call.deadline(), call + ": one deadline for the whole operation");
    }
    long timeout = TestConfigs.inProcess().operationTimeout().toMillis();
    assertEquals(700, deadline.spentMillis(), "counted from the issue, not from the start");
    assertEquals(TimeUnit.MILLISECONDS.toNanos(timeout - 700), deadline.remainingNanos());

    // A synchronous call now starts a fresh one: what tells the two apart.
    int before = store.calls.size();
    cache.put("k", "3");
    String caller = Thread.currentThread().getName();
    RecordingStore.Call syncCall =
        store.calls.subList(before, store.calls.size()).stream()
            .filter(c -> c.thread().equals(caller))
            .findFirst()
            .orElseThrow();
    assertEquals(TimeUnit.MILLISECONDS.toNanos(timeout), syncCall.deadline().remainingNanos());
  }

  @Test
  void cancellingQueuedOperationsWithdrawsThemAndLaterOnesKeepTheirOrder() throws Exception {
    MooncakeCacheManager manager = manager(b -> b);
    Cache<String, String> cache = cache(manager, name("cancel"));
    MooncakeCacheAsync<String, String> async = async(cache);
    writer.holdKeys.add("k");
    CompletableFuture<Void> running = async.putAsync("k", "1").toCompletableFuture();
    Latches.await(writer.entered, "the put held in the writer");
    CompletableFuture<Void> cancelled = async.putAsync("k", "2").toCompletableFuture();
    CompletableFuture<Void> cancelledOnExecutor =
        async.withExecutor(userExecutor).putAsync("k", "3").toCompletableFuture();
    CompletableFuture<String> last = async.getAndPutAsync("k", "4").toCompletableFuture();
    assertEquals(4, manager.asyncCalls().inFlight());

    assertTrue(cancelled.cancel(false));
    assertTrue(cancelledOnExecutor.cancel(false));
    assertTrue(cancelled.isCancelled());
    assertEquals(2, manager.asyncCalls().inFlight(), "both gave their room back");
    assertFalse(last.isDone());

    writer.release.countDown();
    assertEquals("1", done(last), "the last one ran after the first, and saw its value");
    done(running);
    assertEquals(List.of("1", "4"), writer.values("k"), "the cancelled puts never ran");
    assertEquals("4", cache.get("k"));
    assertEquals(0, manager.asyncCalls().inFlight());
  }

  @Test
  void cancellingARunningOperationCancelsItsStageWhileItsStoreWorkFinishes() throws Exception {
    MooncakeCacheManager manager = manager(b -> b);
    Cache<String, String> cache = cache(manager, name("cancel-running"));
    MooncakeCacheAsync<String, String> async = async(cache);
    writer.holdKeys.add("k");
    CompletableFuture<Void> running = async.putAsync("k", "1").toCompletableFuture();
    Latches.await(writer.entered, "the put held in the writer");
    CompletableFuture<String> read = async.getAsync("k").toCompletableFuture();

    assertTrue(running.cancel(true));
    assertTrue(running.isCancelled());
    assertFalse(read.isDone(), "the read still waits for the put's work");
    writer.release.countDown();
    assertEquals("1", done(read), "the put finished its store work before the read ran");
    assertEquals(List.of("1"), writer.values("k"));
    assertEquals(0, manager.asyncCalls().inFlight());
  }

  @Test
  void nullsAreRefusedOnTheCallersThread() {
    MooncakeCacheAsync<String, String> async = async(cache(manager(b -> b), name("nulls")));
    assertThrows(NullPointerException.class, () -> async.getAsync(null));
    assertThrows(NullPointerException.class, () -> async.putAsync("k", null));
    Set<String> withNull = new LinkedHashSet<>();
    withNull.add(null);
    assertThrows(NullPointerException.class, () -> async.getAllAsync(withNull));
    Map<String, String> nullValue = new LinkedHashMap<>();
    nullValue.put("k", null);
    assertThrows(NullPointerException.class, () -> async.putAllAsync(nullValue));
    assertThrows(NullPointerException.class, () -> async.invokeAsync("k", null));
  }

  @Test
  void theViewIsOfThisProvidersType() {
    Cache<String, String> cache = cache(manager(b -> b), name("type"));
    assertInstanceOf(MooncakeCacheAsync.class, cache.unwrap(MooncakeCacheAsync.class));
    MooncakeCacheAsync<String, String> view = async(cache);
    assertNotSame(view, view.withExecutor(userExecutor));
    assertThrows(NullPointerException.class, () -> view.withExecutor(null));
  }

  // ---------------------------------------------------------------------------------------------

  private static void awaitState(Thread thread, Thread.State state) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Latches.BOUND_SECONDS);
    while (thread.getState() != state) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(thread.getName() + " never reached " + state);
      }
      Thread.onSpinWait();
    }
  }

  private static Object put(Cache<String, String> cache, String key, String value) {
    cache.put(key, value);
    return null;
  }

  private static Object putAll(Cache<String, String> cache, Map<String, String> map) {
    cache.putAll(map);
    return null;
  }

  private static Object removeAll(Cache<String, String> cache, Set<String> keys) {
    cache.removeAll(keys);
    return null;
  }

  private static Map<String, Object> values(Map<String, EntryProcessorResult<String>> results) {
    Map<String, Object> values = new java.util.TreeMap<>();
    results.forEach((k, r) -> values.put(k, r.get()));
    return values;
  }

  /** The counts of a cache's statistics, comparable. */
  private record CacheStatisticsView(long hits, long misses, long puts, long removals) {
    static CacheStatisticsView of(MooncakeCache<?, ?> cache) {
      var s = cache.statistics();
      return new CacheStatisticsView(
          s.getCacheHits(), s.getCacheMisses(), s.getCachePuts(), s.getCacheRemovals());
    }
  }

  private record Step(String name, Supplier<Object> sync, Supplier<CompletionStage<?>> async) {}

  private static final class Steps {
    final List<Step> list = new ArrayList<>();

    void add(String name, Supplier<Object> sync, Supplier<CompletionStage<?>> async) {
      list.add(new Step(name, sync, async));
    }
  }

  /** Loads {@code "l*"} keys as {@code "loaded:" + key}. */
  private static final class PrefixLoader implements CacheLoader<String, String> {
    @Override
    public String load(String key) {
      return key.startsWith("l") ? "loaded:" + key : null;
    }

    @Override
    public Map<String, String> loadAll(Iterable<? extends String> keys) {
      Map<String, String> loaded = new LinkedHashMap<>();
      for (String key : keys) {
        String value = load(key);
        if (value != null) {
          loaded.put(key, value);
        }
      }
      return loaded;
    }
  }

  /**
   * Records its calls (thread, call, key, value), holds writes of {@link #holdKeys} until {@link
   * #release}, fails writes of {@link #failKeys}.
   */
  private static final class HeldWriter implements CacheWriter<String, String> {
    final Set<String> holdKeys = ConcurrentHashMap.newKeySet();
    final Set<String> failKeys = ConcurrentHashMap.newKeySet();
    final CountDownLatch entered = new CountDownLatch(1);
    volatile CountDownLatch enteredCount = new CountDownLatch(0);
    final CountDownLatch release = new CountDownLatch(1);
    final List<String[]> log = new CopyOnWriteArrayList<>(); // thread, call, key, value

    @Override
    public void write(Cache.Entry<? extends String, ? extends String> entry) {
      record("write", entry.getKey(), entry.getValue());
    }

    @Override
    public void writeAll(Collection<Cache.Entry<? extends String, ? extends String>> entries) {
      for (Cache.Entry<? extends String, ? extends String> e : new ArrayList<>(entries)) {
        record("write", e.getKey(), e.getValue());
      }
    }

    @Override
    public void delete(Object key) {
      record("delete", (String) key, null);
    }

    @Override
    public void deleteAll(Collection<?> keys) {
      for (Object key : new ArrayList<>(keys)) {
        record("delete", (String) key, null);
      }
    }

    private void record(String call, String key, String value) {
      if (failKeys.contains(key)) {
        throw new CacheWriterException("refused " + key);
      }
      if (holdKeys.contains(key)) {
        entered.countDown();
        enteredCount.countDown();
        Latches.await(release, "the test released the writer");
      }
      log.add(new String[] {Thread.currentThread().getName(), call, key, value});
    }

    List<String> calls() {
      List<String> calls = new ArrayList<>();
      for (String[] e : log) {
        calls.add(e[1] + " " + e[2] + "=" + e[3]);
      }
      return calls;
    }

    List<String> threads() {
      List<String> threads = new ArrayList<>();
      for (String[] e : log) {
        threads.add(e[0]);
      }
      return threads;
    }

    List<String> values(String key) {
      List<String> values = new ArrayList<>();
      for (String[] e : log) {
        if (e[2].equals(key) && e[1].equals("write")) {
          values.add(e[3]);
        }
      }
      return values;
    }

    String lastValue(String key) {
      List<String> values = values(key);
      return values.isEmpty() ? null : values.get(values.size() - 1);
    }
  }
}
