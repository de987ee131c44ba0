package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.time.Deadline;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bulk rule of docs/lanes.md (Deadlines): getAll and putAll, a fixed number of batch calls, run
 * under one deadline for the whole call; removeAll(keys) and invokeAll, one atomic step per key,
 * under one deadline per key; a single-key operation under one deadline for all its calls.
 */
class BulkDeadlineTest {
  private final JCacheFixture fixture = new JCacheFixture();
  private final RecordingStore store =
      new RecordingStore(InProcessStore.open(TestConfigs.inProcess(), fixture.ticker), false);
  private final Cache<String, String> cache =
      fixture
          .manager(TestConfigs.inProcess(), store)
          .createCache("c", new MutableConfiguration<String, String>());

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  /** The distinct deadlines (by identity) the store calls of {@code operation} carried. */
  private Set<Deadline> deadlinesOf(Runnable operation) {
    int before = store.calls.size();
    operation.run();
    List<RecordingStore.Call> calls = store.calls.subList(before, store.calls.size());
    assertFalse(calls.isEmpty(), "no store call");
    Set<Deadline> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
    for (RecordingStore.Call call : calls) {
      assertFalse(call.deadline().isNone(), call + " carried no operation deadline");
      distinct.add(call.deadline());
    }
    return distinct;
  }

  private static Map<String, String> values(String prefix, int n) {
    return java.util.stream.IntStream.range(0, n)
        .boxed()
        .collect(Collectors.toMap(i -> prefix + i, i -> "v" + i, (a, b) -> a, LinkedHashMap::new));
  }

  @Test
  void aSingleKeyOperationRunsEveryCallUnderOneDeadline() {
    cache.put("a", "1");
    assertEquals(1, deadlinesOf(() -> cache.put("a", "2")).size(), "put of an existing key");
    assertEquals(1, deadlinesOf(() -> cache.getAndReplace("a", "3")).size());
  }

  @Test
  void putAllAndGetAllRunUnderOneDeadlineForTheWholeCall() {
    Map<String, String> five = values("p", 5);
    cache.putAll(five);
    assertEquals(1, deadlinesOf(() -> cache.putAll(five)).size(), "putAll over existing keys");
    assertEquals(1, deadlinesOf(() -> cache.getAll(five.keySet())).size(), "getAll");
  }

  @Test
  void removeAllOfKeysAndInvokeAllRunUnderOneDeadlinePerKey() {
    Map<String, String> five = values("r", 5);
    cache.putAll(five);
    assertEquals(5, deadlinesOf(() -> cache.removeAll(five.keySet())).size(), "removeAll(keys)");
    cache.putAll(five);
    Function<String, Object> none = k -> null;
    assertEquals(
        5,
        deadlinesOf(
                () -> cache.invokeAll(five.keySet(), (entry, args) -> none.apply(entry.getKey())))
            .size(),
        "invokeAll");
  }
}
