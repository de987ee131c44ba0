package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig.EtcdTls;
import dev.mooncake.jcache.config.MooncakeConfig.NativeSettings;
import dev.mooncake.jcache.config.MooncakeConfig.ReplicaSettings;
import dev.mooncake.jcache.internal.backend.StoreException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** abi, soft_pin_ttl and etcd_tls reach the library, or the store refuses to open (issue 12). */
class MooncakeStoreNativeSettingsTest {

  @AfterEach
  void reset() {
    Fake.control("reset=1");
  }

  /** What the fake recorded under one of its in-band keys. */
  private static String recorded(MooncakeStore store, String key) {
    ByteBuffer buffer = ByteBuffer.allocate(4096);
    long length = store.getInto(key, buffer);
    assertTrue(length > 0, key + " answered " + length);
    return new String(buffer.array(), 0, (int) length, StandardCharsets.US_ASCII);
  }

  private static String refusal(TestConfig config) {
    long setups = Fake.stat("clients");
    String message = assertThrows(StoreException.class, config::open).getMessage();
    assertEquals(setups, Fake.stat("clients"), "a refused open leaves no client behind");
    return message;
  }

  @Test
  void aPinWithoutANamedLayoutIsRefusedNamingTheLibraryAndTheKey() {
    TestConfig config = new TestConfig();
    config.replica = new ReplicaSettings(1, true, false, List.of());
    String message = refusal(config);
    assertTrue(
        message.contains(
            "with_soft_pin needs to know the replicate_config layout of '" + Fake.library() + "'"),
        message);
    assertTrue(message.contains("set the config key abi to v1, v2 or v3"), message);
    assertTrue(message.contains("test config"), message);
  }

  @Test
  void theNamedV3LayoutCarriesTheSoftPinAndItsTtl() {
    Fake.control("abi=3");
    TestConfig config = new TestConfig();
    config.nativeSettings = new NativeSettings("v3", null);
    config.replica = new ReplicaSettings(1, true, false, List.of(), Duration.ofSeconds(30));
    try (MooncakeStore store = config.open()) {
      assertEquals(0, store.put("pinned", ByteBuffer.wrap(new byte[] {1, 2, 3})));
      String sent = recorded(store, "__fake_mc__/replicate_config/last");
      assertTrue(
          sent.startsWith(
              "layout=v3 replica_num=1 hard_pin=0 soft_pin_action=1 has_ttl=1"
                  + " ttl_ms=30000 preferred="
                  + store.segment()),
          sent);
    }
  }

  @Test
  void aHardPinOnAV1LibraryIsRefused() {
    TestConfig config = new TestConfig();
    config.nativeSettings = new NativeSettings("v1", null);
    config.replica = new ReplicaSettings(1, false, true, List.of());
    String message = refusal(config);
    assertTrue(
        message.contains("v1 replicate_config layout (abi v1), which has no hard pin"), message);
  }

  @Test
  void aSoftPinTtlOnAV2LibraryIsRefused() {
    TestConfig config = new TestConfig();
    config.nativeSettings = new NativeSettings("v2", null);
    config.replica = new ReplicaSettings(1, true, false, List.of(), Duration.ofMinutes(1));
    assertTrue(refusal(config).contains("has no soft pin TTL (v3 has)"));
  }

  @Test
  void etcdTlsIsAppliedBeforeSetup() {
    TestConfig config = new TestConfig();
    config.nativeSettings = new NativeSettings(null, new EtcdTls("/tls/ca.pem", "", ""));
    try (MooncakeStore store = config.open()) {
      String tls = recorded(store, "__fake_mc__/etcd_tls");
      assertTrue(tls.contains("ca=/tls/ca.pem cert= key= after_setup=0"), tls);
    }
  }
}
