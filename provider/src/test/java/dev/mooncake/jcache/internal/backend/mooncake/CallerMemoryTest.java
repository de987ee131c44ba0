package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.CallerMemory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class CallerMemoryTest {

  @Test
  void poolBuffersAreInsideTheRegion() {
    try (MooncakeStore store = new TestConfig().open()) {
      CallerMemory memory = store;
      ByteBuffer pooled = store.buffers().acquire(100);
      assertTrue(memory.contains(pooled));
      assertTrue(memory.contains(pooled.slice(10, 10)));
      assertFalse(memory.contains(ByteBuffer.allocateDirect(100)));
      assertFalse(memory.contains(ByteBuffer.allocate(100)));
      assertFalse(memory.contains(null));
      store.buffers().release(pooled);
    }
  }

  @Test
  void overTcpRegistrationIsANoOp() throws Exception {
    try (MooncakeStore store = new TestConfig().open()) {
      long calls = Fake.stat("register_calls");
      try (AutoCloseable registration = store.registerForCall(ByteBuffer.allocateDirect(64))) {
        assertEquals(calls, Fake.stat("register_calls"));
      }
      assertThrows(
          IllegalArgumentException.class, () -> store.registerForCall(ByteBuffer.allocate(8)));
      assertThrows(NullPointerException.class, () -> store.registerForCall(null));
    }
  }

  @Test
  void overRdmaForeignBuffersAreRegisteredForTheCall() throws Exception {
    TestConfig config = new TestConfig();
    config.protocol = "rdma";
    try (MooncakeStore store = config.open()) {
      long registered = Fake.stat("registered");
      ByteBuffer foreign = ByteBuffer.allocateDirect(64);
      foreign.put(0, (byte) 42);
      AutoCloseable outer = store.registerForCall(foreign);
      assertEquals(registered + 1, Fake.stat("registered"));
      AutoCloseable inner = store.registerForCall(foreign); // nested: counted, not re-registered
      assertEquals(registered + 1, Fake.stat("registered"));
      inner.close();
      inner.close(); // once
      assertEquals(registered + 1, Fake.stat("registered"));
      outer.close();
      assertEquals(registered, Fake.stat("registered"));

      // Region buffers need nothing.
      ByteBuffer pooled = store.buffers().acquire(8);
      try (AutoCloseable none = store.registerForCall(pooled)) {
        assertEquals(registered, Fake.stat("registered"));
      }

      // put / getInto register a foreign direct buffer around the call: the fake's RDMA
      // transfers fail (-800) on unregistered memory.
      assertEquals(0, store.put("rdma-key", foreign.slice(0, 1)));
      ByteBuffer out = ByteBuffer.allocateDirect(8);
      assertEquals(1, store.getInto("rdma-key", out));
      assertEquals(42, out.get(0));
      assertEquals(registered, Fake.stat("registered"), "registrations undone after the calls");
      assertEquals(1, store.getInto("rdma-key", pooled));
      assertEquals(
          1, store.getInto("rdma-key", ByteBuffer.allocate(4)), "heap: copied via the region");
    }
  }
}
