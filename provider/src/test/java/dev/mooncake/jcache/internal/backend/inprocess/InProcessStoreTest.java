package dev.mooncake.jcache.internal.backend.inprocess;

import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.KIB;
import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.MIB;
import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.segment;
import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.text;
import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The ObjectStore contract, rule by rule, as Mooncake answers it. */
class InProcessStoreTest {
  private static final int OK = 0;
  private static final int BUFFER_OVERFLOW = -10;
  private static final int NO_AVAILABLE_HANDLE = -200;
  private static final int INVALID_PARAMS = -600;
  private static final int REPLICA_IS_NOT_READY = -703;
  private static final int OBJECT_NOT_FOUND = -704;
  private static final int OBJECT_HAS_LEASE = -706;

  private final FakeTicker clock = new FakeTicker();
  private InProcessStore store;

  @BeforeEach
  void open() {
    store = new InProcessStore(segment(16 * MIB), 10_000, clock);
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void codesMatchMooncakes() {
    assertEquals(BUFFER_OVERFLOW, StoreStatus.BUFFER_OVERFLOW.code());
    assertEquals(NO_AVAILABLE_HANDLE, StoreStatus.NO_AVAILABLE_HANDLE.code());
    assertEquals(INVALID_PARAMS, StoreStatus.INVALID_PARAMS.code());
    assertEquals(REPLICA_IS_NOT_READY, StoreStatus.REPLICA_IS_NOT_READY.code());
    assertEquals(OBJECT_NOT_FOUND, StoreStatus.OBJECT_NOT_FOUND.code());
    assertEquals(OBJECT_HAS_LEASE, StoreStatus.OBJECT_HAS_LEASE.code());
  }

  @Test
  void putThenGetRoundTrips() {
    assertEquals(OK, store.put("k", utf8("hello")));
    ByteBuffer destination = ByteBuffer.allocate(64);
    assertEquals(5, store.getInto("k", destination));
    assertEquals("hello", text(destination, 0, 5));
    assertEquals(5, store.getSize("k"));
    assertEquals(1, store.isExist("k"));
    assertEquals(16, store.usedBytes()); // a footprint: the smallest size class
    assertEquals(1, store.objectCount());
  }

  @Test
  void putIsCreateOnlyAndKeepsTheOldValue() {
    assertEquals(OK, store.put("k", utf8("old")));
    assertEquals(OK, store.put("k", utf8("newer value")));
    ByteBuffer destination = ByteBuffer.allocate(64);
    assertEquals(3, store.getInto("k", destination));
    assertEquals("old", text(destination, 0, 3));
    assertEquals(3, store.getSize("k"));
    assertEquals(16, store.usedBytes());
  }

  @Test
  void replacingIsRemoveThenPut() {
    store.put("k", utf8("old"));
    assertEquals(OK, store.remove("k", true));
    assertEquals(OK, store.put("k", utf8("new!")));
    ByteBuffer destination = ByteBuffer.allocate(8);
    assertEquals(4, store.getInto("k", destination));
    assertEquals("new!", text(destination, 0, 4));
  }

  @Test
  void emptyAndNullValuesAreRejected() {
    assertEquals(INVALID_PARAMS, store.put("k", ByteBuffer.allocate(0)));
    ByteBuffer consumed = utf8("abc");
    consumed.position(3);
    assertEquals(INVALID_PARAMS, store.put("k", consumed));
    assertEquals(INVALID_PARAMS, store.put("k", null));
    assertEquals(0, store.isExist("k"));
    assertEquals(0, store.usedBytes());
  }

  @Test
  void buffersAreReadAndWrittenFromPositionWithoutMovingThem() {
    ByteBuffer value = utf8("xxxDATAyyy");
    value.position(3).limit(7);
    assertEquals(OK, store.put("k", value));
    assertEquals(3, value.position());
    assertEquals(7, value.limit());

    ByteBuffer destination = ByteBuffer.allocateDirect(12);
    for (int i = 0; i < 12; i++) {
      destination.put(i, (byte) '.');
    }
    destination.position(5).limit(9);
    assertEquals(4, store.getInto("k", destination));
    assertEquals(5, destination.position());
    assertEquals(9, destination.limit());
    assertEquals(".....DATA...", text(destination, 0, 12));
  }

  @Test
  void missingKeysAnswerMooncakesCodes() {
    ByteBuffer destination = ByteBuffer.allocate(8);
    assertEquals(OBJECT_NOT_FOUND, store.getInto("nope", destination));
    assertEquals(OBJECT_NOT_FOUND, store.getSize("nope"));
    assertEquals(0, store.isExist("nope"));
    assertEquals(OBJECT_NOT_FOUND, store.remove("nope", false));
    assertEquals(OBJECT_NOT_FOUND, store.remove("nope", true));
    assertEquals(0, store.removeByRegex("nope", true));
    assertEquals(0, store.removeByRegex("^", true));
  }

  @Test
  void aTooSmallBufferAnswersBufferOverflowAndStaysUntouched() {
    store.put("k", utf8("0123456789"));
    ByteBuffer destination = ByteBuffer.allocate(16);
    destination.position(7); // 9 bytes left for 10
    assertEquals(BUFFER_OVERFLOW, store.getInto("k", destination));
    assertArrayEquals(new byte[16], destination.array());
    assertEquals(10, store.getSize("k"));
    destination.position(6);
    assertEquals(10, store.getInto("k", destination));
  }

  @Test
  void readOnlyOrNullDestinationsAreInvalid() {
    store.put("k", utf8("v"));
    assertEquals(INVALID_PARAMS, store.getInto("k", ByteBuffer.allocate(4).asReadOnlyBuffer()));
    assertEquals(INVALID_PARAMS, store.getInto("k", null));
  }

  @Test
  void aPutDoesNotLeaseTheObject() {
    store.put("k", utf8("v"));
    assertEquals(OK, store.remove("k", false));
    assertEquals(0, store.isExist("k"));
  }

  @Test
  void getIntoGrantsALeaseThatBlocksPlainRemoveUntilItExpires() {
    store.put("k", utf8("v"));
    assertEquals(1, store.getInto("k", ByteBuffer.allocate(4)));
    assertEquals(OBJECT_HAS_LEASE, store.remove("k", false));
    clock.advanceMillis(9_999);
    assertEquals(OBJECT_HAS_LEASE, store.remove("k", false));
    clock.advanceMillis(1);
    assertEquals(OK, store.remove("k", false));
    assertEquals(OBJECT_NOT_FOUND, store.getSize("k"));
  }

  @Test
  void isExistGrantsALeaseToo() {
    store.put("k", utf8("v"));
    assertEquals(1, store.isExist("k"));
    assertEquals(OBJECT_HAS_LEASE, store.remove("k", false));
  }

  @Test
  void aNewReadExtendsTheLease() {
    store.put("k", utf8("v"));
    store.isExist("k");
    clock.advanceMillis(6_000);
    store.isExist("k");
    clock.advanceMillis(6_000);
    assertEquals(OBJECT_HAS_LEASE, store.remove("k", false));
    clock.advanceMillis(4_000);
    assertEquals(OK, store.remove("k", false));
  }

  @Test
  void getSizeGrantsNoLease() {
    store.put("k", utf8("v"));
    assertEquals(1, store.getSize("k"));
    assertEquals(OK, store.remove("k", false));
  }

  @Test
  void forceRemovesInsideTheLease() {
    store.put("k", utf8("v"));
    store.getInto("k", ByteBuffer.allocate(4));
    assertEquals(OK, store.remove("k", true));
    assertEquals(0, store.isExist("k"));
    assertEquals(0, store.usedBytes());
  }

  @Test
  void anObjectWhosePutIsInFlightAnswersAsMooncakeDoes() {
    // Hold a put in flight: a slot linked in the table whose bytes are not copied in yet.
    Slot writing = store.table().newSlot("k", 5, Pin.NONE, clock.nanos());
    assertEquals(null, store.table().insert(writing));

    assertEquals(REPLICA_IS_NOT_READY, store.getInto("k", ByteBuffer.allocate(8)));
    assertEquals(REPLICA_IS_NOT_READY, store.getSize("k"));
    assertEquals(0, store.isExist("k"));
    assertEquals(OK, store.put("k", utf8("other"))); // a put while one is in flight: 0
    assertEquals(REPLICA_IS_NOT_READY, store.remove("k", true));
    assertEquals(0, store.removeByRegex("^k$", true));
    assertEquals(0, store.removeByRegex("^", true));

    writing.copyFrom(utf8("first"));
    assertTrue(writing.markReady());
    writing.release();

    ByteBuffer destination = ByteBuffer.allocate(8);
    assertEquals(5, store.getInto("k", destination));
    assertEquals("first", text(destination, 0, 5));
    assertEquals(16, store.usedBytes()); // 5 bytes take the smallest size class
  }

  @Test
  void removeByRegexMatchesSubstringsAndHonoursAnchors() {
    for (String key : List.of("user:1", "user:2", "xuser:3", "order:1")) {
      assertEquals(OK, store.put(key, utf8(key)));
    }
    assertEquals(2, store.removeByRegex("^user:", false));
    assertEquals(0, store.isExist("user:1"));
    assertEquals(0, store.isExist("user:2"));
    assertEquals(1, store.removeByRegex("user", true)); // a substring match: xuser:3
    assertEquals(0, store.isExist("xuser:3"));
    assertEquals(1, store.isExist("order:1"));
    assertEquals(1, store.objectCount());
  }

  @Test
  void removeByRegexSkipsLeasedObjectsUnlessForced() {
    store.put("a:1", utf8("1"));
    store.put("a:2", utf8("2"));
    store.getInto("a:1", ByteBuffer.allocate(4));
    assertEquals(1, store.removeByRegex("^a:", false));
    assertEquals(1, store.getSize("a:1"));
    assertEquals(1, store.removeByRegex("^a:", true));
    assertEquals(OBJECT_NOT_FOUND, store.getSize("a:1"));
  }

  @Test
  void anInvalidRegexIsInvalidParams() {
    store.put("k", utf8("v"));
    assertEquals(INVALID_PARAMS, store.removeByRegex("(", true));
    assertEquals(INVALID_PARAMS, store.removeByRegex(null, true));
    assertEquals(1, store.objectCount());
  }

  @Test
  void removeAllCountsAndRespectsLeasesWithoutForce() {
    for (int i = 0; i < 5; i++) {
      store.put("k" + i, utf8("v" + i));
    }
    store.isExist("k0");
    store.isExist("k1");
    assertEquals(3, store.removeByRegex("^", false));
    assertEquals(2, store.objectCount());
    assertEquals(2, store.removeByRegex("^", true));
    assertEquals(0, store.objectCount());
    assertEquals(0, store.usedBytes());
  }

  @Test
  void batchFormsAnswerPerKey() {
    store.put("old", utf8("kept"));
    int[] put =
        store.batchPut(
            new String[] {"a", "old", "empty", "", "b"},
            new ByteBuffer[] {
              utf8("AAA"), utf8("replaced?"), ByteBuffer.allocate(0), utf8("x"), utf8("BB")
            });
    assertArrayEquals(new int[] {OK, OK, INVALID_PARAMS, INVALID_PARAMS, OK}, put);

    ByteBuffer[] destinations = {
      ByteBuffer.allocate(8), ByteBuffer.allocate(8), ByteBuffer.allocate(8), ByteBuffer.allocate(1)
    };
    long[] got = store.batchGetInto(new String[] {"a", "old", "missing", "b"}, destinations);
    assertArrayEquals(new long[] {3, 4, OBJECT_NOT_FOUND, BUFFER_OVERFLOW}, got);
    assertEquals("AAA", text(destinations[0], 0, 3));
    assertEquals("kept", text(destinations[1], 0, 4));

    assertArrayEquals(
        new int[] {1, 0, 1, INVALID_PARAMS},
        store.batchIsExist(new String[] {"a", "x", "b", null}));
  }

  @Test
  void batchesOfMismatchedLengthsAreRejected() {
    assertThrows(
        IllegalArgumentException.class,
        () -> store.batchPut(new String[] {"a", "b"}, new ByteBuffer[] {utf8("a")}));
    assertThrows(
        IllegalArgumentException.class,
        () -> store.batchGetInto(new String[] {"a"}, new ByteBuffer[0]));
    assertThrows(IllegalArgumentException.class, () -> store.batchIsExist(null));
  }

  @Test
  void badKeysAreInvalidParams() {
    for (String key : new String[] {null, "", "a\0b", "\0"}) {
      assertEquals(INVALID_PARAMS, store.put(key, utf8("v")), "put " + key);
      assertEquals(INVALID_PARAMS, store.getInto(key, ByteBuffer.allocate(4)), "get " + key);
      assertEquals(INVALID_PARAMS, store.isExist(key), "isExist " + key);
      assertEquals(INVALID_PARAMS, store.getSize(key), "getSize " + key);
      assertEquals(INVALID_PARAMS, store.remove(key, true), "remove " + key);
    }
    assertEquals(0, store.objectCount());
    // The same answers as the Mooncake store's (MooncakeStoreTest): a status, never a throw.
    assertEquals(INVALID_PARAMS, store.removeByRegex("", true));
    assertEquals(INVALID_PARAMS, store.getInto("k", ByteBuffer.allocate(4).asReadOnlyBuffer()));
    assertArrayEquals(
        new int[] {OK, INVALID_PARAMS, OK},
        store.batchPut(
            new String[] {"b1", "", "b2"}, new ByteBuffer[] {utf8("1"), utf8("2"), utf8("3")}));
    assertArrayEquals(
        new int[] {1, INVALID_PARAMS, 1}, store.batchIsExist(new String[] {"b1", "a\0", "b2"}));
  }

  @Test
  void anyCharacterButNulIsAKeyCharacter() {
    String key = "ключ/🔑 with spaces\t\n.*";
    assertEquals(OK, store.put(key, utf8("v")));
    assertEquals(1, store.getSize(key));
  }

  @Test
  void anObjectLargerThanTheSegmentAnswersNoAvailableHandle() {
    try (InProcessStore small = new InProcessStore(segment(64 * KIB), 10_000, clock)) {
      assertEquals(NO_AVAILABLE_HANDLE, small.put("big", ByteBuffer.allocate(64 * 1024 + 1)));
      assertEquals(OK, small.put("fits", ByteBuffer.allocate(64 * 1024)));
      assertEquals(64 * KIB, small.usedBytes());
    }
  }

  @Test
  void describeNamesTheSegment() {
    assertEquals("in-process store (segment 16 MiB)", store.describe());
    try (InProcessStore odd = InProcessStore.open(segment(1536 * KIB))) {
      assertEquals("in-process store (segment 1536 KiB)", odd.describe());
    }
    try (InProcessStore odd = InProcessStore.open(segment(1000))) {
      assertEquals("in-process store (segment 1000 bytes)", odd.describe());
    }
    assertEquals(16 * MIB, store.capacityBytes());
  }

  @Test
  void aSegmentOfZeroIsRefused() {
    StoreException e = assertThrows(StoreException.class, () -> InProcessStore.open(segment(0)));
    assertTrue(e.getMessage().contains("global_segment_size"), e.getMessage());
  }

  @Test
  void everyCallThrowsAfterCloseAndCloseIsIdempotent() {
    store.put("k", utf8("v"));
    store.close();
    store.close();
    List<Executable> calls = new ArrayList<>();
    calls.add(() -> store.put("k", utf8("v")));
    calls.add(() -> store.batchPut(new String[] {"k"}, new ByteBuffer[] {utf8("v")}));
    calls.add(() -> store.getInto("k", ByteBuffer.allocate(4)));
    calls.add(() -> store.batchGetInto(new String[] {"k"}, new ByteBuffer[] {null}));
    calls.add(() -> store.isExist("k"));
    calls.add(() -> store.batchIsExist(new String[] {"k"}));
    calls.add(() -> store.getSize("k"));
    calls.add(() -> store.remove("k", true));
    calls.add(() -> store.removeByRegex(".*", true));
    calls.add(() -> store.buffers().acquire(16));
    for (Executable call : calls) {
      StoreException e = assertThrows(StoreException.class, call);
      assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
    assertEquals("in-process store (segment 16 MiB)", store.describe());
    assertEquals(0, store.usedBytes());
    assertEquals(0, store.objectCount());
  }
}
