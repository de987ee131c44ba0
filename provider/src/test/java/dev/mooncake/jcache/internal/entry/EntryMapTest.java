package dev.mooncake.jcache.internal.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.ScriptedStore;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.lock.ForwardingHeld;
import dev.mooncake.jcache.internal.lock.ForwardingKeyLocks;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.lock.LocalKeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.cache.CacheException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The atomic step and the read protocol of {@link EntryMap}: decisions applied under the lock, the
 * lock asked before every store mutation, events reported in order, expired entries removed once,
 * and absent reads that may have raced a writer read again under the lock.
 */
class EntryMapTest {
  private final ScriptedStorage fixture = new ScriptedStorage("map-test", Duration.ofSeconds(1));
  private final FakeTicker ticker = fixture.ticker;
  private final ScriptedStore store = fixture.store;
  private final EntryStorage storage = fixture.storage;
  private final GuardedLocks locks = new GuardedLocks();
  private final List<String> events = new ArrayList<>();
  private final EntryMap<String> map =
      new EntryMap<>(
          storage,
          locks,
          ticker,
          k -> k,
          new EntryMap.Listener<>() {
            @Override
            public void written(String key, Object value, StoredEntry previous, boolean unread) {
              events.add(
                  (previous == null && !unread ? "created " : "written ") + key + "=" + value);
            }

            @Override
            public void removed(String key, StoredEntry previous) {
              events.add("removed " + key + "=" + previous.value());
            }

            @Override
            public void expired(String key, StoredEntry entry) {
              events.add("expired " + key + "=" + entry.value());
            }
          });

  /** Local locks whose held locks count ensureHeld calls, and can be told they were lost. */
  static final class GuardedLocks extends ForwardingKeyLocks {
    int ensured;
    boolean lost;
    boolean writerMayHaveRun;
    ScriptedStore answersRidesFrom; // non-null: a lock reads its key as a cluster lock's batch does

    GuardedLocks() {
      super(new LocalKeyLocks());
    }

    @Override
    public Held lock(String key, Ride ride, Deadline deadline) {
      Held held = super.lock(key, ride, deadline);
      if (answersRidesFrom != null && ride != null) {
        ride.answered(answersRidesFrom.getInto(key, ride.destination(), deadline));
      }
      return new ForwardingHeld(held) {
        @Override
        public void ensureHeld() {
          ensured++;
          if (lost) {
            throw new CacheException("lock on '" + key + "' lost");
          }
          super.ensureHeld();
        }

        @Override
        public void ensureHeldToReplace(Deadline deadline) {
          ensureHeld(); // the same check: a decorator adds it to both
        }
      };
    }

    @Override
    public List<Held> lockAll(String[] orderedKeys, Deadline deadline) {
      return KeyLocks.lockEach(this, orderedKeys, deadline); // each one guarded
    }

    @Override
    public boolean mayHaveChanged(String key, long stamp) {
      return writerMayHaveRun || super.mayHaveChanged(key, stamp);
    }
  }

  @AfterEach
  void close() {
    fixture.close();
  }

  @Test
  void aStepWritesReplacesAndRemovesReportingEachChange() {
    Outcome created =
        map.compute(
            "k", "k", current -> Decision.write("v1", ExpiryTimes.ETERNAL), storage.deadline());
    assertTrue(created.changed());
    assertFalse(created.found());
    Outcome replaced =
        map.compute(
            "k", "k", current -> Decision.write("v2", ExpiryTimes.ETERNAL), storage.deadline());
    assertEquals("v1", replaced.previous().value());
    Outcome kept =
        map.compute(
            "k", "k", current -> Decision.KEEP.returning(current.value()), storage.deadline());
    assertFalse(kept.changed());
    assertEquals("v2", kept.result());
    assertTrue(map.compute("k", "k", current -> Decision.REMOVE, storage.deadline()).changed());
    assertFalse(
        map.compute("k", "k", current -> Decision.REMOVE, storage.deadline()).changed(),
        "nothing to remove");
    assertEquals(List.of("created k=v1", "written k=v2", "removed k=v2"), events);
    assertEquals(List.of(), map.keys());
  }

  /**
   * A step that read no entry, while a step nested in it (an entry processor writing its own key
   * through the cache) created one: its write must replace that one. Mooncake answers 0 to a put
   * over an existing key and stores nothing, so a put that trusted its own read was lost.
   */
  @Test
  void aStepThatReadNoEntryReplacesWhatAStepNestedInItWrote() {
    map.compute(
        "k",
        "k",
        writesInnerThen(Decision.write("outer", ExpiryTimes.ETERNAL)),
        storage.deadline());
    assertEquals("outer", storage.read("k", storage.deadline()).value());
  }

  /**
   * A step that read an entry and decides to touch it (a new expiry time for the value it saw),
   * while a step nested in it wrote the key: the touch is of an entry no longer there, so the
   * nested write stays (rewriting what the outer step saw put the old value back over it).
   */
  @Test
  void aTouchOfAnEntryANestedStepReplacedLeavesTheNestedWrite() {
    map.compute(
        "k", "k", current -> Decision.write("old", ExpiryTimes.ETERNAL), storage.deadline());
    long later = ticker.epochMillis() + 60_000;
    map.compute("k", "k", writesInnerThen(Decision.touch(later)), storage.deadline());
    StoredEntry stored = storage.read("k", storage.deadline());
    assertEquals("inner", stored.value());
    assertEquals(ExpiryTimes.ETERNAL, stored.expireAt());
  }

  /**
   * A blind put (no read of the old entry) under a lock that read the key absent with its own
   * read-back, whose remapping wrote the key through the cache (a CacheWriter doing so): the lock's
   * answer predates that write, so the put removes first; trusting it put into an occupied key,
   * which Mooncake answers 0 to and stores nothing.
   */
  @Test
  void aBlindPutWhoseRemappingWroteTheKeyReplacesThatWrite() {
    locks.answersRidesFrom = store;
    map.computeUnread(
        "k",
        "k",
        writesInnerThen(Decision.write("outer", ExpiryTimes.ETERNAL)),
        storage.deadline());
    assertEquals("outer", storage.read("k", storage.deadline()).value());
    assertEquals(List.of("created k=inner", "written k=outer"), events);
  }

  /**
   * A remapping that first writes "inner" to k through the map (a step nested in it), then decides.
   */
  private EntryMap.Remapping writesInnerThen(Decision then) {
    return current -> {
      map.compute(
          "k", "k", inner -> Decision.write("inner", ExpiryTimes.ETERNAL), storage.deadline());
      return then;
    };
  }

  @Test
  void theLockIsAskedBeforeEveryMutationAndALostLockWritesNothing() {
    map.compute("k", "k", current -> Decision.write("v1", ExpiryTimes.ETERNAL), storage.deadline());
    assertEquals(1, locks.ensured);
    locks.lost = true;
    long puts = store.count("put");
    assertThrows(
        CacheException.class,
        () ->
            map.compute(
                "k",
                "k",
                current -> Decision.write("v2", ExpiryTimes.ETERNAL),
                storage.deadline()));
    assertThrows(
        CacheException.class,
        () -> map.compute("k", "k", current -> Decision.REMOVE, storage.deadline()));
    assertEquals(puts, store.count("put"), "a write went out after the lock was lost");
    assertEquals(0, store.count("remove"));
    locks.lost = false;
    assertEquals("v1", map.get("k", "k", storage.deadline()).value());
  }

  @Test
  void anExpiredEntryIsRemovedOnceAndReadAsAbsent() {
    long now = ticker.epochMillis();
    map.compute("k", "k", current -> Decision.write("v", now + 100), storage.deadline());
    assertEquals("v", map.get("k", "k", storage.deadline()).value());
    ticker.advanceMillis(100);
    assertNull(map.get("k", "k", storage.deadline()));
    assertNull(map.get("k", "k", storage.deadline()));
    assertEquals(List.of("created k=v", "expired k=v"), events);
  }

  @Test
  void theSweeperRemovesDueEntriesAndRequeuesExtendedOnes() {
    long now = ticker.epochMillis();
    map.compute("a", "a", current -> Decision.write("1", now + 100), storage.deadline());
    map.compute("b", "b", current -> Decision.write("2", now + 100), storage.deadline());
    map.compute("b", "b", current -> Decision.touch(now + 1000), storage.deadline()); // extended
    ticker.advanceMillis(99);
    assertEquals(0, map.sweep(ticker.epochMillis(), 100));
    ticker.advanceMillis(1);
    assertEquals(2, map.sweep(ticker.epochMillis(), 100), "both deadlines of 100 ms are due");
    assertEquals(List.of("created a=1", "created b=2", "expired a=1"), events);
    assertEquals(List.of("b"), map.keys());
    ticker.advanceMillis(900);
    assertEquals(1, map.sweep(ticker.epochMillis(), 100), "b is queued once at its new deadline");
    assertEquals("expired b=2", events.get(3));
  }

  @Test
  void anAbsentReadThatMayHaveRacedAWriterReadsAgainUnderTheLock() {
    map.compute("k", "k", current -> Decision.write("v", ExpiryTimes.ETERNAL), storage.deadline());
    store.script("getInto", StoreStatusCodes.NOT_FOUND); // the gap of a remove-then-put
    locks.writerMayHaveRun = true;
    long reads = store.count("getInto");
    assertEquals("v", map.get("k", "k", storage.deadline()).value());
    assertEquals(reads + 2, store.count("getInto"), "the unlocked read, then the locked one");

    store.script("getInto", StoreStatusCodes.NOT_FOUND);
    locks.writerMayHaveRun = false;
    assertNull(
        map.get("k", "k", storage.deadline()),
        "no writer could have run: absent it is, without the lock");
  }

  @Test
  void anUnreadStepTellsTheListenerWhetherItReplacedSomething() {
    map.computeUnread(
        "k", "k", absent -> Decision.write("v1", ExpiryTimes.ETERNAL), storage.deadline());
    map.computeUnread(
        "k", "k", absent -> Decision.write("v2", ExpiryTimes.ETERNAL), storage.deadline());
    assertEquals(List.of("created k=v1", "written k=v2"), events);
    assertEquals(0, store.count("getInto"), "an unread step read the entry");
  }

  @Test
  void aBatchSkipsWritesThatExpireAtOnceAndExpiresWhatHasExpired() {
    long now = ticker.epochMillis();
    map.compute("a", "a", current -> Decision.write("old", now + 10), storage.deadline());
    ticker.advanceMillis(10);
    int stored =
        map.putAll(
            List.of(new EntryMap.Put<>("a", "a", "new"), new EntryMap.Put<>("b", "b", "skipped")),
            false,
            current -> ExpiryTimes.ETERNAL,
            storage.deadline());
    assertEquals(2, stored);
    assertEquals(
        List.of("created a=old", "expired a=old", "created a=new", "created b=skipped"), events);
    events.clear();
    int none =
        map.putAll(
            List.of(new EntryMap.Put<>("c", "c", "x")),
            false,
            current -> ExpiryTimes.NOT_STORED,
            storage.deadline());
    assertEquals(0, none);
    assertEquals(List.of(), events);
  }

  /** The store codes these tests script. */
  static final class StoreStatusCodes {
    static final long NOT_FOUND =
        dev.mooncake.jcache.internal.backend.StoreStatus.OBJECT_NOT_FOUND.code();
  }
}
