package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrowsExactly;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Each replica setting reaches each replicate_config layout as the right bits: read back from the
 * fake (which reads the struct in the layout it is told, as the Mooncake of that layout would) and
 * checked byte for byte at the published offsets.
 */
class ReplicaLayoutTest {
  private static final byte[] VALUE_KEY = MooncakeClient.key("layout-value");

  /** Puts one value with the config and answers what the fake read. */
  private static String sent(MooncakeClient client, ReplicaConfig config) {
    ByteBuffer value = ByteBuffer.allocateDirect(4);
    String key = "layout/" + System.nanoTime();
    assertEquals(0, client.putFrom(MooncakeClient.key(key), value, 0, 4, config), "put");
    return FakeStore.lastReplicateConfig(client);
  }

  private static String sent(
      StoreAbi layout, boolean soft, boolean hard, Duration ttl, List<String> preferred) {
    try (MooncakeClient client = FakeStore.client(layout, layout);
        ReplicaConfig config = ReplicaConfig.create(client, 2, soft, hard, ttl, preferred)) {
      return sent(client, config);
    }
  }

  private static void refused(
      String fragment,
      StoreAbi fakeLayout,
      StoreAbi named,
      boolean soft,
      boolean hard,
      Duration ttl) {
    try (MooncakeClient client = FakeStore.client(fakeLayout, named)) {
      Executable create = () -> ReplicaConfig.create(client, 1, soft, hard, ttl, List.of());
      IllegalArgumentException e = assertThrowsExactly(IllegalArgumentException.class, create);
      assertTrue(e.getMessage().contains(fragment), () -> "expected '" + fragment + "' in " + e);
    }
  }

  @Test
  void v1CarriesTheSoftPinAndRefusesWhatItCannotSay() {
    assertEquals(
        "layout=v1 replica_num=2 soft_pin=1 preferred=",
        sent(StoreAbi.V1, true, false, null, List.of()));
    assertEquals(
        "layout=v1 replica_num=2 soft_pin=0 preferred=",
        sent(StoreAbi.V1, false, false, null, List.of()));
    refused(
        "with_hard_pin: '" + FakeStore.library() + "' has the v1 replicate_config layout",
        StoreAbi.V1,
        StoreAbi.V1,
        false,
        true,
        null);
    refused(
        "soft_pin_ttl: '" + FakeStore.library() + "' has the v1",
        StoreAbi.V1,
        StoreAbi.V1,
        true,
        false,
        Duration.ofSeconds(5));
  }

  @Test
  void v2CarriesBothPinsAndRefusesATtl() {
    assertEquals(
        "layout=v2 replica_num=2 soft_pin=1 hard_pin=0 preferred=",
        sent(StoreAbi.V2, true, false, null, List.of()));
    assertEquals(
        "layout=v2 replica_num=2 soft_pin=0 hard_pin=1 preferred=",
        sent(StoreAbi.V2, false, true, null, List.of()));
    assertEquals(
        "layout=v2 replica_num=2 soft_pin=1 hard_pin=1 preferred=",
        sent(StoreAbi.V2, true, true, null, List.of()));
    refused(
        "has no soft pin TTL (v3 has)",
        StoreAbi.V2,
        StoreAbi.V2,
        true,
        false,
        Duration.ofSeconds(5));
  }

  @Test
  void v3SoftPinIsAnActionNotTheHardPin() {
    // The bug this guards against: v2's with_soft_pin@8 is v3's with_hard_pin@8.
    assertEquals(
        "layout=v3 replica_num=2 hard_pin=0 soft_pin_action=1 has_ttl=0 ttl_ms=0 preferred=",
        sent(StoreAbi.V3, true, false, null, List.of()));
    assertEquals(
        "layout=v3 replica_num=2 hard_pin=1 soft_pin_action=0 has_ttl=0 ttl_ms=0 preferred=",
        sent(StoreAbi.V3, false, true, null, List.of()));
    assertEquals(
        "layout=v3 replica_num=2 hard_pin=0 soft_pin_action=1 has_ttl=1 ttl_ms=5000 preferred=",
        sent(StoreAbi.V3, true, false, Duration.ofSeconds(5), List.of()));
    assertEquals(
        "layout=v3 replica_num=2 hard_pin=0 soft_pin_action=0 has_ttl=0 ttl_ms=0 preferred=",
        sent(StoreAbi.V3, false, false, null, List.of()));
    refused(
        "soft_pin_ttl needs with_soft_pin: true",
        StoreAbi.V3,
        StoreAbi.V3,
        false,
        false,
        Duration.ofSeconds(5));
  }

  @Test
  void preferredSegmentsSitAtTheSameOffsetInEveryLayout() {
    for (StoreAbi layout : StoreAbi.values()) {
      try (MooncakeClient client = FakeStore.client(layout, layout);
          ReplicaConfig config =
              ReplicaConfig.create(client, 1, false, false, null, List.of(client.hostname()))) {
        String text = sent(client, config);
        assertTrue(text.startsWith("layout=" + layout.key() + " replica_num=1 "), text);
        assertTrue(text.endsWith(" preferred=" + client.hostname()), text);
      }
    }
  }

  @Test
  void withoutANamedLayoutOnlyWhatEveryLayoutReadsAlikeIsSent() {
    assertEquals("layout=v1 replica_num=3 soft_pin=0 preferred=", unnamed(StoreAbi.V1));
    assertEquals("layout=v2 replica_num=3 soft_pin=0 hard_pin=0 preferred=", unnamed(StoreAbi.V2));
    assertEquals(
        "layout=v3 replica_num=3 hard_pin=0 soft_pin_action=0 has_ttl=0 ttl_ms=0 preferred=",
        unnamed(StoreAbi.V3));
    for (StoreAbi layout : StoreAbi.values()) {
      String needs = "needs to know the replicate_config layout of '" + FakeStore.library() + "'";
      refused("with_soft_pin " + needs, layout, null, true, false, null);
      refused("with_hard_pin " + needs, layout, null, false, true, null);
      refused(
          "set the config key abi to v1, v2 or v3",
          layout,
          null,
          true,
          false,
          Duration.ofSeconds(1));
    }
  }

  private static String unnamed(StoreAbi fakeLayout) {
    try (MooncakeClient client = FakeStore.client(fakeLayout, null);
        ReplicaConfig config = ReplicaConfig.create(client, 3, false, false, null, List.of())) {
      return sent(client, config);
    }
  }

  @Test
  void aConfigOnlyGoesToAStoreOfItsLayout() {
    try (MooncakeClient v2 = FakeStore.client(StoreAbi.V2, StoreAbi.V2);
        MooncakeClient v3 = FakeStore.client(StoreAbi.V3, StoreAbi.V3);
        ReplicaConfig config = ReplicaConfig.create(v2, 1, true, false, null, List.of())) {
      ByteBuffer value = ByteBuffer.allocateDirect(1);
      IllegalArgumentException e =
          assertThrowsExactly(
              IllegalArgumentException.class, () -> v3.putFrom(VALUE_KEY, value, 0, 1, config));
      assertTrue(
          e.getMessage().contains("encoded for layout v2, but the store's is v3"), e::getMessage);
      int[] results = new int[1];
      assertThrowsExactly(
          IllegalArgumentException.class,
          () ->
              v3.batchPutFrom(
                  new byte[][] {VALUE_KEY},
                  new ByteBuffer[] {value},
                  new int[1],
                  new int[] {1},
                  config,
                  results));
      assertEquals(0, v3.isExist(VALUE_KEY), "nothing reached Mooncake");
    }
  }

  @Test
  void batchPutsCarryTheConfigToo() {
    try (MooncakeClient client = FakeStore.client(StoreAbi.V3, StoreAbi.V3);
        ReplicaConfig config = ReplicaConfig.create(client, 1, true, false, null, List.of())) {
      ByteBuffer value = ByteBuffer.allocateDirect(1);
      int[] results = new int[1];
      assertEquals(
          0,
          client.batchPutFrom(
              new byte[][] {MooncakeClient.key("batch-layout")},
              new ByteBuffer[] {value},
              new int[1],
              new int[] {1},
              config,
              results));
      assertEquals(0, results[0]);
      assertEquals(
          "layout=v3 replica_num=1 hard_pin=0 soft_pin_action=1 has_ttl=0 ttl_ms=0 preferred=",
          FakeStore.lastReplicateConfig(client));
    }
  }

  @Test
  void theBytesSitAtThePublishedOffsets() {
    try (MooncakeClient v1 = FakeStore.client(StoreAbi.V1, StoreAbi.V1);
        MooncakeClient v2 = FakeStore.client(StoreAbi.V2, StoreAbi.V2);
        MooncakeClient v3 = FakeStore.client(StoreAbi.V3, StoreAbi.V3);
        MooncakeClient unnamed = FakeStore.client(StoreAbi.V3, null);
        ReplicaConfig c1 = ReplicaConfig.create(v1, 7, true, false, null, List.of());
        ReplicaConfig c2 = ReplicaConfig.create(v2, 7, true, true, null, List.of());
        ReplicaConfig c3 =
            ReplicaConfig.create(v3, 7, true, true, Duration.ofMillis(0x1_0000_0002L), List.of());
        ReplicaConfig common = ReplicaConfig.create(unnamed, 7, false, false, null, List.of())) {
      ByteBuffer b1 = bytes(c1, 32);
      assertEquals(7, b1.getLong(0));
      assertEquals(1, b1.getInt(8)); // with_soft_pin
      assertEquals(0, b1.getInt(12)); // padding: zero
      assertEquals(0, b1.getLong(16)); // no preferred segments
      assertEquals(0, b1.getLong(24));
      ByteBuffer b2 = bytes(c2, 32);
      assertEquals(1, b2.getInt(8)); // with_soft_pin
      assertEquals(1, b2.getInt(12)); // with_hard_pin
      ByteBuffer b3 = bytes(c3, 48);
      assertEquals(7, b3.getLong(0));
      assertEquals(1, b3.getInt(8)); // with_hard_pin
      assertEquals(1, b3.getInt(32)); // soft_pin_action ENABLE
      assertEquals(1, b3.getInt(36)); // has_soft_pin_ttl
      assertEquals(0x1_0000_0002L, b3.getLong(40)); // soft_pin_ttl_ms, all 64 bits
      byte[] expected = new byte[48];
      expected[0] = 7;
      assertArrayEquals(expected, common.encoded(), "replica_num and zeros only");
    }
  }

  private static ByteBuffer bytes(ReplicaConfig config, int size) {
    byte[] encoded = config.encoded();
    assertEquals(size, encoded.length);
    return ByteBuffer.wrap(encoded).order(ByteOrder.nativeOrder());
  }
}
