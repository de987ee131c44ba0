package dev.mooncake.jcache.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.backend.StoreException;
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
    ObjectStore first = SharedMooncakeStores.open(new TestConfig().build());
    ObjectStore second = SharedMooncakeStores.open(new TestConfig().build());
    assertEquals(clients + 1, Fake.stat("clients"), "a second client for the same cluster");
    assertEquals(0, first.put("k", bytes("v")));
    assertEquals(1, second.isExist("k"), "the leases do not share one client");

    first.close();
    assertThrows(StoreException.class, () -> first.isExist("k"));
    assertEquals(1, second.isExist("k"), "closing one lease closed the client");
    second.close();
    assertEquals(clients, Fake.stat("clients"), "the last lease did not close the client");
  }

  @Test
  void anUnusedClientLingersThenCloses() throws Exception {
    System.setProperty(SharedMooncakeStores.LINGER_PROPERTY, "300");
    long clients = Fake.stat("clients");
    ObjectStore lease = SharedMooncakeStores.open(new TestConfig().build());
    assertEquals(0, lease.put("kept", bytes("v")));
    lease.close();
    ObjectStore again = SharedMooncakeStores.open(new TestConfig().build());
    assertEquals(1, again.isExist("kept"), "a manager re-opened at once got a new client");
    assertEquals(clients + 1, Fake.stat("clients"));
    again.close();
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (Fake.stat("clients") != clients && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertEquals(clients, Fake.stat("clients"), "the idle client never closed");
  }
}
