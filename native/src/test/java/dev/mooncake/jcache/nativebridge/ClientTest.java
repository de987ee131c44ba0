package dev.mooncake.jcache.nativebridge;

import static dev.mooncake.jcache.nativebridge.MooncakeClient.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Mooncake's semantics, through the bridge, against the fake store. */
class ClientTest {
  private MooncakeClient client;

  @BeforeEach
  void open() {
    client = FakeStore.client(1 << 20);
    client.removeByRegex(key("."), true); // everything: any key has a character
  }

  @AfterEach
  void close() {
    FakeStore.control("reset=1");
    client.close();
  }

  private static ByteBuffer direct(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length);
    buffer.put(bytes).flip();
    return buffer;
  }

  private String read(String key) {
    ByteBuffer out = ByteBuffer.allocateDirect(256);
    long n = client.getInto(key(key), out, 0, 256);
    assertTrue(n >= 0, "get_into answered " + n);
    byte[] bytes = new byte[(int) n];
    out.get(0, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void putIsCreateOnlyAndKeepsTheOldValue() {
    assertEquals(0, client.putFrom(key("k"), direct("first"), 0, 5, null));
    assertEquals(0, client.putFrom(key("k"), direct("second"), 0, 6, null));
    assertEquals("first", read("k"));
    assertEquals(5, client.getSize(key("k")));
    // Replacing is remove, then put.
    assertEquals(0, client.remove(key("k"), true));
    assertEquals(0, client.putFrom(key("k"), direct("second"), 0, 6, null));
    assertEquals("second", read("k"));
  }

  @Test
  void offsetsSelectTheBytes() {
    ByteBuffer source = direct("xxhelloyy");
    assertEquals(0, client.putFrom(key("slice"), source, 2, 5, null));
    ByteBuffer out = ByteBuffer.allocateDirect(16);
    assertEquals(5, client.getInto(key("slice"), out, 3, 10));
    byte[] bytes = new byte[5];
    out.get(3, bytes);
    assertEquals("hello", new String(bytes, StandardCharsets.UTF_8));
  }

  @Test
  void codesForMissingEmptyTooSmallAndBadReplicas() {
    assertEquals(-704, client.getInto(key("missing"), ByteBuffer.allocateDirect(8), 0, 8));
    assertEquals(-704, client.getSize(key("missing")));
    assertEquals(-704, client.remove(key("missing"), true));
    assertEquals(0, client.isExist(key("missing")));
    assertEquals(-600, client.putFrom(key("empty"), ByteBuffer.allocateDirect(0), 0, 0, null));
    assertEquals(0, client.putFrom(key("big"), direct("0123456789"), 0, 10, null));
    assertTrue(client.getInto(key("big"), ByteBuffer.allocateDirect(4), 0, 4) < 0);
    try (ReplicaConfig zero = ReplicaConfig.create(client, 0, false, false, null, List.of())) {
      assertEquals(-600, client.putFrom(key("zero"), direct("v"), 0, 1, zero));
    }
  }

  @Test
  void readsTakeALeaseThatOnlyForceIgnores() {
    assertEquals(0, client.putFrom(key("leased"), direct("v"), 0, 1, null));
    assertEquals(0, client.remove(key("leased"), false)); // never read: no lease
    assertEquals(0, client.putFrom(key("leased"), direct("v"), 0, 1, null));
    assertEquals(1, client.isExist(key("leased")));
    assertEquals(-706, client.remove(key("leased"), false));
    assertEquals(0, client.remove(key("leased"), true));
    assertEquals(0, client.isExist(key("leased")));
  }

  @Test
  void removeByRegexMatchesSubstringsAndCounts() {
    for (String k : List.of("tenant/a/1", "tenant/a/2", "tenant/b/1", "other/tenant/a/3")) {
      assertEquals(0, client.putFrom(key(k), direct("v"), 0, 1, null));
    }
    assertEquals(3, client.removeByRegex(key("tenant/a/"), true)); // substring: other/… too
    assertEquals(1, client.removeByRegex(key("^tenant/"), true));
    assertEquals(0, client.removeByRegex(key("^nothing$"), true));
    assertEquals(-600, client.removeByRegex(key("(unclosed"), true));
    assertEquals(0, client.putFrom(key("x1"), direct("v"), 0, 1, null));
    assertEquals(0, client.putFrom(key("x2"), direct("v"), 0, 1, null));
    assertEquals(2, client.removeByRegex(key("."), true));
    assertEquals(0, client.removeByRegex(key("."), true));
  }

  @Test
  void batchesAnswerPerKey() {
    byte[][] keys = {key("b1"), key("b2"), key("b3")};
    ByteBuffer data = direct("aaabbbbcc");
    int[] putResults = new int[3];
    assertEquals(
        0,
        client.batchPutFrom(
            keys,
            new ByteBuffer[] {data, data, data},
            new int[] {0, 3, 7},
            new int[] {3, 4, 0},
            null,
            putResults));
    assertArrayEquals(new int[] {0, 0, -600}, putResults);

    int[] exist = new int[3];
    assertEquals(0, client.batchIsExist(keys, exist));
    assertArrayEquals(new int[] {1, 1, 0}, exist);

    ByteBuffer out = ByteBuffer.allocateDirect(32);
    long[] sizes = new long[3];
    assertEquals(
        0,
        client.batchGetInto(
            keys,
            new ByteBuffer[] {out, out, out},
            new int[] {0, 8, 16},
            new int[] {8, 2, 8},
            sizes));
    assertEquals(3, sizes[0]);
    assertTrue(sizes[1] < 0, "too small: " + sizes[1]);
    assertEquals(-704, sizes[2]);
    byte[] first = new byte[3];
    out.get(0, first);
    assertEquals("aaa", new String(first, StandardCharsets.UTF_8));
  }

  @Test
  void injectedErrorsComeBackAsCodes() {
    assertEquals(0, client.putFrom(key("e"), direct("v"), 0, 1, null));
    FakeStore.control("fail_ops=-901");
    assertEquals(-901, client.putFrom(key("e2"), direct("v"), 0, 1, null));
    assertEquals(-901, client.getInto(key("e"), ByteBuffer.allocateDirect(8), 0, 8));
    assertEquals(-901, client.isExist(key("e")));
    assertEquals(-901, client.remove(key("e"), true));
    int[] exist = new int[2];
    assertEquals(0, client.batchIsExist(new byte[][] {key("e"), key("f")}, exist));
    assertArrayEquals(new int[] {-901, -901}, exist);
    FakeStore.control("fail_ops=0");
    FakeStore.control("fail_batch=-200");
    assertEquals(-200, client.batchIsExist(new byte[][] {key("e")}, new int[1]));
    FakeStore.control("fail_health=-900");
    assertEquals(-900, client.healthCheck());
    FakeStore.control("reset=1");
    assertEquals(0, client.healthCheck());
    assertEquals(1, client.isExist(key("e")));
  }

  @Test
  void aFullPoolAnswers200() {
    try (MooncakeClient small = FakeStore.client(0)) {
      // Only `client`'s 1 MiB segment takes objects.
      ByteBuffer big = ByteBuffer.allocateDirect(600 << 10);
      assertEquals(0, small.putFrom(key("big1"), big, 0, big.capacity(), null));
      assertEquals(-200, small.putFrom(key("big2"), big, 0, big.capacity(), null));
    }
  }

  @Test
  void hostnameIsTheSegmentName() {
    String hostname = client.hostname();
    assertTrue(hostname.matches("127\\.0\\.0\\.1:\\d+"), hostname);
  }

  @Test
  void preferredSegmentsPlaceObjectsAndASegmentLeavesWithItsObjects() {
    MooncakeClient other = FakeStore.client(1 << 20);
    try (ReplicaConfig here =
        ReplicaConfig.create(client, 1, false, false, null, List.of(other.hostname()))) {
      assertEquals(0, client.putFrom(key("placed"), direct("v"), 0, 1, here));
    }
    try (ReplicaConfig mine =
        ReplicaConfig.create(client, 1, false, false, null, List.of(client.hostname()))) {
      assertEquals(0, client.putFrom(key("kept"), direct("v"), 0, 1, mine));
    }
    other.close();
    assertEquals(0, client.isExist(key("placed")), "gone with the segment it was placed in");
    assertEquals(1, client.isExist(key("kept")));
  }

  @Test
  void rdmaTransfersNeedRegisteredMemory() {
    try (MooncakeClient rdma = FakeStore.client(1 << 20, "rdma")) {
      ByteBuffer buffer = direct("payload!");
      assertEquals(-800, rdma.putFrom(key("r"), buffer, 0, 8, null));
      assertEquals(0, rdma.registerBuffer(buffer, 0, 8));
      assertEquals(-600, rdma.registerBuffer(buffer, 0, 8), "double registration");
      assertEquals(0, rdma.putFrom(key("r"), buffer, 0, 8, null));
      assertEquals(8, rdma.getInto(key("r"), buffer, 0, 8));
      assertEquals(0, rdma.unregisterBuffer(buffer, 0));
      assertEquals(-600, rdma.unregisterBuffer(buffer, 0), "unknown buffer");
      assertEquals(-800, rdma.getInto(key("r"), buffer, 0, 8));
    }
  }

  @Test
  void aClosedClientThrows() {
    MooncakeClient closing = FakeStore.client(0);
    closing.close();
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> closing.isExist(key("k")));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertThrows(IllegalStateException.class, closing::hostname);
  }

  @Test
  void createFailureIsAnException() {
    FakeStore.control("fail_create=1");
    NativeBridgeException e =
        assertThrows(NativeBridgeException.class, () -> MooncakeClient.create(FakeStore.open()));
    assertTrue(e.getMessage().contains("returned NULL"), e.getMessage());
    assertTrue(e.getMessage().contains(FakeStore.library()), e.getMessage());
  }

  @Test
  void rpcTimeoutsAreSetOnlyWhenUnsetAndUnsetAgainAfterwards() {
    // The surefire JVM has neither variable.
    org.junit.jupiter.api.Assumptions.assumeTrue(
        System.getenv("MC_RPC_TIMEOUT_MS") == null
            && System.getenv("MC_RPC_CONNECT_TIMEOUT_MS") == null);
    try (MooncakeLibrary.RpcTimeouts first = MooncakeLibrary.applyRpcTimeouts(1234, 567)) {
      assertEquals(3, first.applied());
      assertEquals(1234, FakeStore.environment("MC_RPC_TIMEOUT_MS"));
      assertEquals(567, FakeStore.environment("MC_RPC_CONNECT_TIMEOUT_MS"));
      try (MooncakeLibrary.RpcTimeouts second = MooncakeLibrary.applyRpcTimeouts(99, 99)) {
        assertEquals(0, second.applied(), "a variable already set is left alone");
      }
      assertEquals(1234, FakeStore.environment("MC_RPC_TIMEOUT_MS"), "the second unset nothing");
    }
    // Children of this JVM must not inherit them.
    assertEquals(-704, FakeStore.environment("MC_RPC_TIMEOUT_MS"));
    assertEquals(-704, FakeStore.environment("MC_RPC_CONNECT_TIMEOUT_MS"));
  }

  @Test
  void unsettingLeavesAVariableThatChangedMeanwhile() {
    org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("MC_RPC_TIMEOUT_MS") == null);
    MooncakeLibrary.RpcTimeouts ours = MooncakeLibrary.applyRpcTimeouts(1234, 0);
    assertEquals(1, ours.applied(), "a value <= 0 is skipped");
    MooncakeLibrary.RpcTimeouts changed = new MooncakeLibrary.RpcTimeouts(1, 4321, 0);
    assertEquals(0, changed.unset(), "it holds 1234, not 4321");
    assertEquals(1234, FakeStore.environment("MC_RPC_TIMEOUT_MS"));
    assertEquals(1, ours.unset());
    assertEquals(-704, FakeStore.environment("MC_RPC_TIMEOUT_MS"));
  }
}
