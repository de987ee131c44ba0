package dev.mooncake.jcache.internal.entry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.ReadPolicy;
import dev.mooncake.jcache.internal.backend.ScriptedStore;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every entry read path follows {@link ReadPolicy}'s table: the plain get, the zero-copy get and
 * the batch get (which reads a key again singly on any answer but a value or -704) answer -703 and
 * -800 alike: the same number of store reads, the same end. Codes are injected by a {@link
 * ScriptedStore} over the in-process store.
 */
class ReadPolicyPathsTest {
  private static final byte[] VALUE = {1, 2, 3};
  private static final long NOT_READY = StoreStatus.REPLICA_IS_NOT_READY.code();
  private static final long TRANSFER_FAIL = StoreStatus.TRANSFER_FAIL.code();
  private static final long LEASE_EXPIRED = StoreStatus.LEASE_EXPIRED.code();

  private final ScriptedStorage fixture =
      new ScriptedStorage("read-policy-test", Duration.ofMillis(500));
  private final ScriptedStore store = fixture.store;
  private final EntryStorage storage = fixture.storage;

  /** One read path: answers the key's payload, or null when it reads the key as absent. */
  enum Path {
    PLAIN {
      @Override
      byte[] read(EntryStorage storage, String key) {
        StoredEntry entry = storage.read(key, storage.deadline());
        return entry == null ? null : (byte[]) entry.value();
      }
    },
    ZERO_COPY {
      @Override
      byte[] read(EntryStorage storage, String key) {
        ByteBuffer destination = ByteBuffer.allocateDirect(64);
        if (storage.readInPlace(key, destination, storage.deadline()) == ExpiryTimes.ABSENT) {
          return null;
        }
        byte[] payload = new byte[destination.remaining()];
        destination.get(payload);
        return payload;
      }
    },
    BATCH {
      @Override
      byte[] read(EntryStorage storage, String key) {
        StoredEntry entry = storage.readAll(new String[] {key, "other"}, storage.deadline())[0];
        return entry == null ? null : (byte[]) entry.value();
      }
    };

    abstract byte[] read(EntryStorage storage, String key);

    /** Scripts {@code answers} for this path's store reads of its first key, in order. */
    void script(ScriptedStore store, long... answers) {
      if (this == BATCH) { // the batch's answer first, then the single reads it falls back to
        store.script("batchGetInto", answers[0]);
        store.script("getInto", Arrays.copyOfRange(answers, 1, answers.length));
      } else {
        store.script("getInto", answers);
      }
    }

    /** The store reads of the key this path made. */
    long reads(ScriptedStore store) {
      return store.count("getInto") + (this == BATCH ? 1 : 0);
    }
  }

  @AfterEach
  void close() {
    fixture.close();
  }

  private void writeK() {
    ByteBuffer value = ByteBuffer.allocateDirect(ValueHeader.OVERHEAD + VALUE.length);
    value.position(ValueHeader.SIZE).limit(ValueHeader.SIZE + VALUE.length);
    value.put(ValueHeader.SIZE, VALUE);
    storage.writeInPlace(
        TestLocks.unproved(storage, "k"), value, ExpiryTimes.ETERNAL, true, storage.deadline());
    store.clearCalls();
  }

  private static long[] repeated(long code, int times) {
    long[] answers = new long[times];
    Arrays.fill(answers, code);
    return answers;
  }

  /**
   * Scripts {@code code} for longer than {@code rule} repeats, reads, and answers how often the
   * path read: one read and the rule's repeats (the batch one more: its single read starts anew).
   */
  private void readsUntilTheRuleEnds(Path path, long code, ReadPolicy rule) {
    writeK();
    int expected = rule.retries() + 1 + (path == Path.BATCH ? 1 : 0);
    path.script(store, repeated(code, expected + 5));
    assertNull(path.read(storage, "k"));
    assertEquals(expected, path.reads(store), "one read and " + rule.retries() + " repeats");
  }

  @ParameterizedTest
  @EnumSource(Path.class)
  void aPutInFlightIsReadAgainUpToTheTablesBoundThenAbsent(Path path) {
    readsUntilTheRuleEnds(path, NOT_READY, ReadPolicy.PUT_IN_FLIGHT);
    assertEquals(0, storage.unreachableReads());
  }

  @ParameterizedTest
  @EnumSource(Path.class)
  void anUnreachableSegmentIsReadAgainUpToTheTablesBoundThenAbsentAndCounted(Path path) {
    readsUntilTheRuleEnds(path, TRANSFER_FAIL, ReadPolicy.UNREACHABLE);
    assertEquals(1, storage.unreachableReads());
    assertEquals(0, store.count("getSize"), "not mistaken for a too-small buffer");
  }

  @ParameterizedTest
  @EnumSource(Path.class)
  void aPutThatLandsOrATransferThatSucceedsWhenRepeatedIsRead(Path path) {
    writeK();
    for (long code : new long[] {NOT_READY, TRANSFER_FAIL}) {
      path.script(store, code, code);
      assertArrayEquals(VALUE, path.read(storage, "k"), StoreStatus.describe(code));
    }
    assertEquals(0, storage.unreachableReads());
  }

  @ParameterizedTest
  @EnumSource(Path.class)
  void aLeaseThatRanOutIsReadAgainUntilTheDeadlineThenFailsWithItsStatus(Path path) {
    writeK();
    path.script(store, repeated(LEASE_EXPIRED, 10_000));
    store.advancing(fixture.ticker, 50); // 500 ms at 50 ms a call
    StoreException e = assertThrows(StoreException.class, () -> path.read(storage, "k"));
    assertEquals(StoreStatus.LEASE_EXPIRED, e.status(), e.getMessage());
    long reads = path.reads(store);
    assertTrue(reads >= 9 && reads <= 12, "read again until the deadline: " + reads);
  }
}
