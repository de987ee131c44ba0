package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrowsExactly;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Optional functions: used when the library has them, an error naming them when it has not. */
class OptionalSymbolsTest {
  @Test
  void etcdTlsReachesALibraryThatHasIt() {
    MooncakeLibrary library = FakeStore.open();
    assertTrue(library.hasEtcdTlsConfig());
    try (MooncakeClient client = MooncakeClient.create(library)) {
      client.setEtcdTlsConfig("/tls/ca.pem", "/tls/client.pem", "/tls/client.key");
      String recorded = FakeStore.lastEtcdTls(client);
      assertTrue(
          recorded.matches(
              "calls=\\d+ ca=/tls/ca.pem cert=/tls/client.pem key=/tls/client.key after_setup=0"),
          recorded);
      assertThrowsExactly(
          NullPointerException.class, () -> client.setEtcdTlsConfig(null, "c", "k"));
    }
  }

  @Test
  void etcdTlsAfterSetupIsRefusedRatherThanIgnored() {
    try (MooncakeClient client = FakeStore.client(0)) {
      String before = FakeStore.lastEtcdTls(client);
      IllegalStateException e =
          assertThrowsExactly(
              IllegalStateException.class, () -> client.setEtcdTlsConfig("ca", "cert", "key"));
      assertTrue(e.getMessage().contains("before setup"), e::getMessage);
      assertEquals(before, FakeStore.lastEtcdTls(client), "never reached the library");
    }
  }

  @Test
  void etcdTlsOnALibraryWithoutItIsAnErrorNamingTheSymbol() {
    MooncakeLibrary partial = FakeStore.openNoEtcdTls();
    assertFalse(partial.hasEtcdTlsConfig());
    try (MooncakeClient client = MooncakeClient.create(partial)) {
      NativeBridgeException e =
          assertThrowsExactly(
              NativeBridgeException.class, () -> client.setEtcdTlsConfig("ca", "cert", "key"));
      assertEquals(
          "'"
              + FakeStore.noEtcdTlsLibrary()
              + "' does not export mooncake_store_set_etcd_tls_config,"
              + " so etcd_tls cannot be applied: use a Mooncake build that has it, or remove"
              + " etcd_tls",
          e.getMessage());
    }
  }
}
