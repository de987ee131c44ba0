package dev.mooncake.jcache.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Key locks per store connection: shared by its users, made once, dropped with the last lease. */
class KeyLockRegistryTest {

  @Test
  void usersOfOneConnectionShareItsLocksOthersDoNot() {
    Object connection = new Object();
    Object other = new Object();
    AtomicInteger made = new AtomicInteger();
    int before = KeyLockRegistry.connections();
    try (KeyLockRegistry.Lease first =
            KeyLockRegistry.acquire(
                connection,
                () -> {
                  made.incrementAndGet();
                  return new LocalKeyLocks();
                });
        KeyLockRegistry.Lease second = KeyLockRegistry.acquire(connection, LocalKeyLocks::new);
        KeyLockRegistry.Lease third = KeyLockRegistry.acquire(other, LocalKeyLocks::new)) {
      assertSame(first.locks(), second.locks());
      assertNotSame(first.locks(), third.locks());
      assertEquals(1, made.get());
      assertEquals(before + 2, KeyLockRegistry.connections());
      first.close();
      first.close(); // twice: still one lease given back
      assertEquals(before + 2, KeyLockRegistry.connections(), "second still holds the locks");
    }
    assertEquals(before, KeyLockRegistry.connections(), "locks outlived their last lease");
  }

  @Test
  void aConnectionOpenedAgainGetsFreshLocks() {
    Object connection = new Object();
    KeyLocks old;
    try (KeyLockRegistry.Lease lease = KeyLockRegistry.acquire(connection, LocalKeyLocks::new)) {
      old = lease.locks();
    }
    try (KeyLockRegistry.Lease lease = KeyLockRegistry.acquire(connection, LocalKeyLocks::new)) {
      assertNotSame(old, lease.locks());
    }
  }
}
