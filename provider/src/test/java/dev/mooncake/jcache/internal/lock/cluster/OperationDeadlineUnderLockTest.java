package dev.mooncake.jcache.internal.lock.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.internal.backend.ScriptedStore;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.codec.DeserializationFilter;
import dev.mooncake.jcache.internal.codec.SerializationCodec;
import dev.mooncake.jcache.internal.codec.TypedCodec;
import dev.mooncake.jcache.internal.entry.Decision;
import dev.mooncake.jcache.internal.entry.EntryMap;
import dev.mooncake.jcache.internal.entry.EntryStorage;
import dev.mooncake.jcache.internal.entry.StoredEntry;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.lane.Lanes;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One deadline per operation under {@code consistency: cluster}: a put whose cluster lock took most
 * of the operation's time gets only the rest for its store calls (before, each store call got a
 * fresh {@code operation_timeout_ms}, so one put could take about twice the timeout).
 */
class OperationDeadlineUnderLockTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final String KEY = "mcj/b3JkZXJz/aw";
  private static final String LOCK = LockNames.lockKey(KEY);
  private static final long OTHER_HOLDS_MS = 1_500;

  private final FakeTicker ticker = new FakeTicker();
  private final ScriptedCluster cluster = new ScriptedCluster();
  private final ScriptedCluster.Client storeA = cluster.new Client("a:1");
  private final ScriptedCluster.Client storeB = cluster.new Client("b:1");
  private final ScriptedStore store =
      new ScriptedStore(InProcessStore.open(ConfigLoader.defaults(), ticker));
  private final Lanes lanes = new Lanes(1, Map.of(), false, false, "deadline-test");
  private final EntryStorage storage =
      new EntryStorage(
          "orders",
          store,
          lanes,
          new TypedCodec(
              new SerializationCodec(
                  new DeserializationFilter(List.of()), getClass().getClassLoader())),
          ticker,
          TIMEOUT,
          Object.class);
  private long started;

  @AfterEach
  void close() {
    lanes.close();
    store.close();
  }

  /** Another JVM holds the key's lock until {@link #OTHER_HOLDS_MS} after the operation began. */
  private ClusterKeyLocks locksReleasedByTheOtherHolderLater() {
    long other = 7;
    cluster.putForeign(LOCK, new LockRecord(other, 1, "jvm-b").encode(LOCK).array(), "b:1");
    return TestLocks.on(
        storeA,
        "jvm-a",
        Duration.ofSeconds(5),
        TIMEOUT,
        ticker::nanos,
        nanos -> {
          ticker.advance(Duration.ofNanos(nanos)); // waiting moves the fake clock, no sleep
          if (ticker.nanos() - started >= TimeUnit.MILLISECONDS.toNanos(OTHER_HOLDS_MS)) {
            storeB.remove(LOCK, Deadline.none()); // the other JVM releases
          }
        });
  }

  private EntryMap<String> map(ClusterKeyLocks locks) {
    return new EntryMap<>(
        storage,
        locks,
        ticker,
        k -> k,
        new EntryMap.Listener<>() {
          @Override
          public void written(
              String key, Object value, StoredEntry previous, boolean replacedUnread) {}

          @Override
          public void removed(String key, StoredEntry previous) {}

          @Override
          public void expired(String key, StoredEntry entry) {}
        });
  }

  @Test
  void aPutWhoseLockTookMostOfTheBudgetGetsOnlyTheRestForItsStoreCalls() {
    EntryMap<String> map = map(locksReleasedByTheOtherHolderLater());
    started = ticker.nanos();
    Deadline deadline = storage.deadline();
    map.compute(KEY, KEY, current -> Decision.write("v", ExpiryTimes.ETERNAL), deadline);

    assertTrue(
        deadline.spentMillis() >= OTHER_HOLDS_MS,
        "the lock was waited for: " + deadline.describe());
    List<Long> puts = store.remainingMillis("put");
    assertFalse(puts.isEmpty(), "no put reached the store: " + store.calls());
    long rest = TIMEOUT.toMillis() - OTHER_HOLDS_MS;
    for (long remaining : puts) {
      assertTrue(
          remaining <= rest,
          "a store call of the put had " + remaining + " ms, more than the " + rest + " ms left");
    }
    assertEquals("v", map.get(KEY, KEY, storage.deadline()).value());
  }

  @Test
  void aLockThatCannotBeHadByTheDeadlineNamesTheOperationsBoundAndWhatWasSpent() {
    EntryMap<String> map = map(locksReleasedByTheOtherHolderLater());
    started = ticker.nanos();
    // An operation of 1 s (operation_timeout_ms 1000) against a holder that keeps the lock 1.5 s.
    Deadline deadline = Deadline.after(Duration.ofSeconds(1), ticker);
    javax.cache.CacheException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            javax.cache.CacheException.class,
            () ->
                map.compute(
                    KEY, KEY, current -> Decision.write("v", ExpiryTimes.ETERNAL), deadline));
    assertTrue(e.getMessage().contains("by the operation's deadline"), e.getMessage());
    assertTrue(e.getMessage().contains("operation_timeout_ms 1000, "), e.getMessage());
    assertTrue(
        ticker.nanos() - started <= TimeUnit.MILLISECONDS.toNanos(1_000),
        "the acquisition waited past the operation's deadline: " + deadline.describe());
    assertTrue(store.remainingMillis("put").isEmpty(), "nothing was written without the lock");
  }
}
