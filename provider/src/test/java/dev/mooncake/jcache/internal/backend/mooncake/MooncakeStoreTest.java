package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.CallerMemory;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.connection.StoreConnection;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** MooncakeStore honours the ObjectStore contract, on the fake store. */
class MooncakeStoreTest {
  private MooncakeStore store;

  @BeforeEach
  void open() {
    store = new TestConfig().open();
    store.removeByRegex("^", true);
  }

  @AfterEach
  void close() {
    Fake.control("reset=1");
    store.close();
  }

  private static ByteBuffer heap(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
  }

  private ByteBuffer pooled(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    ByteBuffer buffer = store.buffers().acquire(bytes.length);
    buffer.put(0, bytes);
    return buffer;
  }

  private String read(ObjectStore from, String key) {
    ByteBuffer out = ByteBuffer.allocate(256);
    long n = from.getInto(key, out);
    assertTrue(n >= 0, () -> key + ": " + StoreStatus.describe(n));
    return new String(out.array(), 0, (int) n, StandardCharsets.UTF_8);
  }

  @Test
  void openedThroughTheFactory() {
    try (StoreConnection connection =
        StoreConnection.open(new TestConfig().build(), Ticker.system())) {
      // the process's shared client for this cluster (SharedMooncakeStores), leased
      ObjectStore opened = connection.store();
      assertInstanceOf(CallerMemory.class, opened);
      assertEquals(0, opened.isExist("probe"));
      assertTrue(opened.describe().contains("master 127.0.0.1:50051"), opened.describe());
    }
  }

  @Test
  void putIsCreateOnlyAndKeepsTheOldValue() {
    assertEquals(0, store.put("k", heap("old")));
    assertEquals(0, store.put("k", heap("new")));
    assertEquals("old", read(store, "k"));
    assertEquals(3, store.getSize("k"));
    assertEquals(0, store.remove("k", true));
    assertEquals(0, store.put("k", pooled("new")));
    assertEquals("new", read(store, "k"));
  }

  @Test
  void buffersKeepTheirPositionAndLimit() {
    ByteBuffer value = heap("..value..");
    value.position(2).limit(7);
    assertEquals(0, store.put("p", value));
    assertEquals(2, value.position());
    assertEquals(7, value.limit());
    ByteBuffer out = ByteBuffer.allocateDirect(32);
    out.position(4).limit(20);
    assertEquals(5, store.getInto("p", out));
    assertEquals(4, out.position());
    assertEquals(20, out.limit());
    byte[] bytes = new byte[5];
    out.get(4, bytes);
    assertEquals("value", new String(bytes, StandardCharsets.UTF_8));
    ByteBuffer heapOut = ByteBuffer.allocate(10);
    heapOut.position(3);
    assertEquals(5, store.getInto("p", heapOut));
    assertEquals("value", new String(heapOut.array(), 3, 5, StandardCharsets.UTF_8));
    assertEquals(0, store.buffers() instanceof RegionBufferPool pool ? pool.outstanding() : -1);
  }

  @Test
  void mooncakeCodesComeBack() {
    assertEquals(-704, store.getInto("missing", ByteBuffer.allocate(8)));
    assertEquals(-704, store.getSize("missing"));
    assertEquals(0, store.isExist("missing"));
    assertEquals(-704, store.remove("missing", true));
    assertTrue(store.put("empty", ByteBuffer.allocate(0)) < 0, "empty values cannot be stored");
    assertEquals(0, store.put("long", heap("0123456789")));
    assertTrue(store.getInto("long", ByteBuffer.allocate(4)) < 0, "buffer too small");
    assertEquals(1, store.isExist("long"));
    assertEquals(StoreStatus.OBJECT_HAS_LEASE.code(), store.remove("long", false));
    assertEquals(0, store.remove("long", true));
  }

  @Test
  void regexAndRemoveAll() {
    for (String key : List.of("t/a/1", "t/a/2", "t/b/1", "x/t/a/3")) {
      assertEquals(0, store.put(key, heap("v")));
    }
    assertEquals(1, store.removeByRegex("^t/a/1$", true));
    assertEquals(2, store.removeByRegex("t/a/", true));
    assertEquals(1, store.removeByRegex("^", true));
    assertEquals(0, store.isExist("t/b/1"));
  }

  @Test
  void batchesMapPerKeyResultsAndMixBufferKinds() {
    String[] keys = {"b1", "b2", "b3"};
    ByteBuffer direct = ByteBuffer.allocateDirect(4).put(0, (byte) 'd');
    assertArrayEquals(
        new int[] {0, 0, 0},
        store.batchPut(keys, new ByteBuffer[] {heap("one"), pooled("two"), direct}));
    assertArrayEquals(
        new int[] {1, 1, 1, 0}, store.batchIsExist(new String[] {"b1", "b2", "b3", "b4"}));
    ByteBuffer a = ByteBuffer.allocate(8);
    ByteBuffer b = store.buffers().acquire(8);
    ByteBuffer c = ByteBuffer.allocate(2);
    long[] sizes =
        store.batchGetInto(
            new String[] {"b1", "b2", "b3", "b4"},
            new ByteBuffer[] {a, b, c, ByteBuffer.allocate(1)});
    assertEquals(3, sizes[0]);
    assertEquals(3, sizes[1]);
    assertTrue(sizes[2] < 0, "4 bytes into 2");
    assertEquals(-704, sizes[3]);
    assertEquals("one", new String(a.array(), 0, 3, StandardCharsets.UTF_8));
    byte[] two = new byte[3];
    b.get(0, two);
    assertEquals("two", new String(two, StandardCharsets.UTF_8));
    assertEquals(0, store.batchPut(new String[0], new ByteBuffer[0]).length);
    assertEquals(0, store.batchGetInto(new String[0], new ByteBuffer[0]).length);
    assertEquals(0, store.batchIsExist(new String[0]).length);
    assertThrows(IllegalArgumentException.class, () -> store.batchPut(keys, new ByteBuffer[1]));
    assertArrayEquals(
        new int[] {StoreStatus.INVALID_PARAMS.code()},
        store.batchPut(new String[] {"x"}, new ByteBuffer[] {null}),
        "a missing buffer is per key");
  }

  @Test
  void errorsAreMappedPerKeyAndForWholeBatches() {
    assertEquals(0, store.put("e", heap("v")));
    Fake.control("fail_ops=-901");
    int put = store.put("e2", heap("v"));
    assertEquals(-901, put);
    assertEquals("-901 RPC_TIMEOUT", StoreStatus.describe(put));
    // -1 is two things in Mooncake's C ABI, and the status says so rather than pick one.
    injectAfterTheProbe("fail_ops=-1");
    int ambiguous = store.put("e3", heap("v"));
    assertEquals(StoreStatus.INTERNAL_ERROR_OR_INVALID_ARGUMENT, StoreStatus.of(ambiguous));
    assertEquals(
        "-1 INTERNAL_ERROR_OR_INVALID_ARGUMENT (Mooncake's C ABI answers -1 for an"
            + " invalid argument, an exception inside the library, and an internal error alike)",
        StoreStatus.describe(ambiguous));
    injectAfterTheProbe("fail_ops=-901");
    assertEquals(-901, store.getInto("e", ByteBuffer.allocate(8)));
    assertArrayEquals(new int[] {-901, -901}, store.batchIsExist(new String[] {"e", "f"}));
    injectAfterTheProbe("fail_ops=0");
    Fake.control("fail_batch=-200");
    assertArrayEquals(
        new int[] {-200, -200},
        store.batchPut(new String[] {"x", "y"}, new ByteBuffer[] {heap("1"), heap("2")}));
    assertArrayEquals(
        new long[] {-200},
        store.batchGetInto(new String[] {"e"}, new ByteBuffer[] {ByteBuffer.allocate(4)}));
    assertArrayEquals(new int[] {-200}, store.batchIsExist(new String[] {"e"}));
  }

  /**
   * A -901 sends a master probe on a thread of its own (MasterOutage), and the calls after it wait
   * for its answer. The next fault is injected once that probe has answered, so that the probe
   * never asks under one fault while the test's next call expects another.
   */
  private void injectAfterTheProbe(String control) {
    store.awaitMasterProbe();
    Fake.control(control);
  }

  @Test
  void badKeysAndReadOnlyDestinationsAnswerInvalidParams() {
    // The ObjectStore contract: per-key failures are statuses, as on the in-process store.
    int invalid = StoreStatus.INVALID_PARAMS.code();
    for (String key : new String[] {null, "", "a\0b", "\0"}) {
      assertEquals(invalid, store.put(key, heap("v")), "put " + key);
      assertEquals(invalid, store.getInto(key, ByteBuffer.allocate(4)), "get " + key);
      assertEquals(invalid, store.isExist(key), "exists " + key);
      assertEquals(invalid, store.getSize(key), "size " + key);
      assertEquals(invalid, store.remove(key, true), "remove " + key);
    }
    assertEquals(invalid, store.removeByRegex("", true));
    assertEquals(invalid, store.getInto("k", ByteBuffer.allocate(4).asReadOnlyBuffer()));
    assertEquals(invalid, store.getInto("k", ByteBuffer.allocateDirect(4).asReadOnlyBuffer()));
    assertEquals(invalid, store.put("k", ByteBuffer.allocate(0)));
    assertEquals(0, store.put("ro-source", heap("v").asReadOnlyBuffer()));
    // In a batch the bad entry answers alone; the others are done.
    assertArrayEquals(
        new int[] {0, invalid, 0},
        store.batchPut(
            new String[] {"b1", "", "b2"}, new ByteBuffer[] {heap("1"), heap("2"), heap("3")}));
    assertArrayEquals(
        new int[] {1, invalid, 1}, store.batchIsExist(new String[] {"b1", "a\0", "b2"}));
    long[] read =
        store.batchGetInto(
            new String[] {"b1", null, "b2"},
            new ByteBuffer[] {
              ByteBuffer.allocate(4), ByteBuffer.allocate(4), ByteBuffer.allocate(4)
            });
    assertArrayEquals(new long[] {1, invalid, 1}, read);
  }

  @Test
  void aClosedStoreThrowsStoreException() {
    ByteBuffer held = store.buffers().acquire(16);
    store.close();
    store.close(); // idempotent
    StoreException e = assertThrows(StoreException.class, () -> store.put("k", heap("v")));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertThrows(StoreException.class, () -> store.getInto("k", ByteBuffer.allocate(4)));
    assertThrows(StoreException.class, () -> store.batchIsExist(new String[] {"k"}));
    assertThrows(StoreException.class, () -> store.removeByRegex("^", true));
    assertThrows(StoreException.class, () -> store.isExist(""));
    assertThrows(StoreException.class, () -> store.buffers().acquire(1));
    held.put(0, (byte) 1); // still valid memory: no crash
  }

  @Test
  void theRegionIsRegisteredOnceAndUnregisteredOnClose() {
    long registered = Fake.stat("registered");
    MooncakeStore other = new TestConfig().open();
    assertEquals(registered + 1, Fake.stat("registered"));
    other.close();
    assertEquals(registered, Fake.stat("registered"));
  }

  @Test
  void embeddedModePlacesObjectsInItsOwnSegmentAndLosesThemWhenItLeaves() {
    MooncakeStore first = new TestConfig().open();
    MooncakeStore second = new TestConfig().open();
    try {
      assertTrue(first.segment().matches("127\\.0\\.0\\.1:\\d+"), first.segment());
      assertTrue(first.describe().contains("preferred=" + first.segment()), first.describe());
      for (int i = 0; i < 10; i++) {
        assertEquals(0, first.put("mine/" + i, heap("v")));
      }
      second.close(); // another JVM leaves: nothing of ours was there
      for (int i = 0; i < 10; i++) {
        assertEquals(1, store.isExist("mine/" + i));
      }
      first.close(); // we leave: our objects are gone for everyone
      for (int i = 0; i < 10; i++) {
        assertEquals(0, store.isExist("mine/" + i));
      }
    } finally {
      first.close();
      second.close();
    }
  }

  @Test
  void standaloneStoreContributesNothing() {
    TestConfig config = new TestConfig();
    config.mode = MooncakeConfig.Mode.STANDALONE_STORE;
    try (MooncakeStore standalone = config.open()) {
      assertTrue(standalone.describe().contains("contributing nothing"), standalone.describe());
      assertFalse(standalone.describe().contains("preferred="), standalone.describe());
      assertEquals(0, standalone.put("s", heap("v"))); // lands in `store`'s segment
      store.close();
      assertEquals(-200, standalone.put("s2", heap("v")), "no segment left in the cluster");
    }
  }

  @Test
  void configuredReplicaSettingsAreUsed() {
    TestConfig config = new TestConfig();
    config.replica = new MooncakeConfig.ReplicaSettings(2, true, false, List.of(store.segment()));
    config.nativeSettings = new MooncakeConfig.NativeSettings("v2", null); // the fake's default
    try (MooncakeStore replicated = config.open()) {
      assertTrue(
          replicated.describe().contains("replicas=2 soft-pin preferred=" + store.segment()),
          replicated.describe());
      assertEquals(0, replicated.put("r", heap("v")));
    }
  }

  @Test
  void rpcTimeoutsComeFromTheOperationTimeoutAndAreNotLeftForChildren() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        System.getenv("MC_RPC_TIMEOUT_MS") == null
            && System.getenv("MC_RPC_CONNECT_TIMEOUT_MS") == null);
    for (long timeoutMs : new long[] {9_000, 12_345}) {
      TestConfig config = new TestConfig();
      config.operationTimeout = java.time.Duration.ofMillis(timeoutMs);
      config.open().close();
      // Its setup saw a third of its own operation timeout (a put makes up to three master RPCs)
      long rpcTimeout = MooncakeSetup.rpcTimeoutMillis(timeoutMs);
      assertEquals(timeoutMs / 3, rpcTimeout);
      assertEquals(rpcTimeout, Fake.stat("rpc_timeout_at_setup"), "store of " + timeoutMs);
      assertEquals(rpcTimeout, Fake.stat("rpc_connect_timeout_at_setup"), "store of " + timeoutMs);
      assertEquals(rpcTimeout, MooncakeSetup.rpcTimeoutSetByUsMillis());
      // and neither stays in the environment for the processes this JVM starts
      assertEquals(-704, Fake.environment("MC_RPC_TIMEOUT_MS"));
      assertEquals(-704, Fake.environment("MC_RPC_CONNECT_TIMEOUT_MS"));
    }
  }
}
