package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.mooncake.jcache.internal.backend.StoreException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One Mooncake client per process and cluster, leased by managers, lingering when unused. */
class SharedMooncakeStoresTest {
  private String lingerBefore;

  @BeforeEach
  void reset() {
    Fake.control("reset=1");
    lingerBefore = System.getProperty(SharedMooncakeStores.LINGER_PROPERTY);
  }

  @AfterEach
  void restore() {
    if (lingerBefore == null) {
      System.clearProperty(SharedMooncakeStores.LINGER_PROPERTY);
    } else {
      System.setProperty(SharedMooncakeStores.LINGER_PROPERTY, lingerBefore);
    }
  }

  private static ByteBuffer bytes(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void managersOfOneClusterShareOneClient() {
    System.setProperty(SharedMooncakeStores.LINGER_PROPERTY, "0");
    long clients = Fake.stat("clients");
    SharedMooncakeStores.Lease first = SharedMooncakeStores.open(new TestConfig().build());
    SharedMooncakeStores.Lease second = SharedMooncakeStores.open(new TestConfig().build());
    assertEquals(clients + 1, Fake.stat("clients"), "a second client for the same cluster");
    assertSame(first.store(), second.store(), "the leases do not share one client");
    assertEquals(0, first.store().put("k", bytes("v")));
    assertEquals(1, second.store().isExist("k"));

    first.close();
    first.close(); // a second close gives nothing back twice
    assertEquals(1, second.store().isExist("k"), "closing one lease closed the client");
    second.close();
    assertEquals(clients, Fake.stat("clients"), "the last lease did not close the client");
    assertThrows(StoreException.class, () -> second.store().isExist("k"));
  }

  @Test
  void aConfigNamingTheLibraryLayoutGetsItsOwnClient() {
    System.setProperty(SharedMooncakeStores.LINGER_PROPERTY, "0");
    long clients = Fake.stat("clients");
    TestConfig named = new TestConfig();
    named.nativeSettings = new dev.mooncake.jcache.config.MooncakeConfig.NativeSettings("v2", null);
    SharedMooncakeStores.Lease plain = SharedMooncakeStores.open(new TestConfig().build());
    SharedMooncakeStores.Lease layout = SharedMooncakeStores.open(named.build());
    assertEquals(clients + 2, Fake.stat("clients"), "abi changes how every put is encoded");
    plain.close();
    layout.close();
    assertEquals(clients, Fake.stat("clients"));
  }

  @Test
  void anUnusedClientLingersThenCloses() throws Exception {
    System.setProperty(SharedMooncakeStores.LINGER_PROPERTY, "300");
    long clients = Fake.stat("clients");
    SharedMooncakeStores.Lease lease = SharedMooncakeStores.open(new TestConfig().build());
    assertEquals(0, lease.store().put("kept", bytes("v")));
    lease.close();
    SharedMooncakeStores.Lease again = SharedMooncakeStores.open(new TestConfig().build());
    assertEquals(1, again.store().isExist("kept"), "a manager re-opened at once got a new client");
    assertEquals(clients + 1, Fake.stat("clients"));
    again.close();
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (Fake.stat("clients") != clients && System.nanoTime() < deadline) {
      Thread.sleep(50); // polls for the linger timer's close, bounded; asserts nothing on timing
    }
    assertEquals(clients, Fake.stat("clients"), "the idle client never closed");
  }
}
