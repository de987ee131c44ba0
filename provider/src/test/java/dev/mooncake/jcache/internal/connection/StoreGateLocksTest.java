package dev.mooncake.jcache.internal.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.lock.ForwardingKeyLocks;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.lock.LocalKeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The gate's key locks: a batch is forwarded as one, and each of its locks counts until closed. */
class StoreGateLocksTest {
  private static final String[] KEYS = {"a", "b", "c"};

  /** Local locks that record the batches asked of them. */
  private static final class Batches extends ForwardingKeyLocks {
    final List<Integer> batches = new ArrayList<>();
    RuntimeException failure;

    Batches() {
      super(new LocalKeyLocks());
    }

    @Override
    public List<Held> lockAll(String[] orderedKeys, Deadline deadline) {
      batches.add(orderedKeys.length);
      if (failure != null) {
        throw failure;
      }
      return super.lockAll(orderedKeys, deadline);
    }
  }

  @Test
  void aBatchIsForwardedAsOneAndTheGateDrainsOnlyOnceEveryLockIsClosed() throws Exception {
    try (InProcessStore store = InProcessStore.open(ConfigLoader.defaults())) {
      StoreGate gate = new StoreGate(store, "test");
      Batches batches = new Batches();
      List<KeyLocks.Held> held = gate.locks(batches).lockAll(KEYS, Deadline.none());
      assertEquals(List.of(3), batches.batches, "the batch was split into single locks");
      assertEquals(3, held.size());
      held.get(0).close();
      held.get(1).close();
      assertFalse(gate.shutAndDrain(0), "drained with a lock of the batch still held");
      held.get(2).close();
      assertTrue(gate.shutAndDrain(0), "a lock of the batch stayed counted after its close");
    }
  }

  @Test
  void aFailedBatchLeavesNothingCounted() throws Exception {
    try (InProcessStore store = InProcessStore.open(ConfigLoader.defaults())) {
      StoreGate gate = new StoreGate(store, "test");
      Batches batches = new Batches();
      batches.failure = new IllegalStateException("scripted");
      assertThrows(
          IllegalStateException.class, () -> gate.locks(batches).lockAll(KEYS, Deadline.none()));
      assertTrue(gate.shutAndDrain(0), "a failed batch stayed counted");
    }
  }

  /**
   * Local locks that answer every ride, as a cluster lock does when its read-back proves it held.
   */
  private static final class Answering extends ForwardingKeyLocks {
    Answering() {
      super(new LocalKeyLocks());
    }

    @Override
    public Held lock(String key, Ride ride, Deadline deadline) {
      Held held = super.lock(key, ride, deadline);
      if (ride != null) {
        ride.answered(42);
      }
      return held;
    }
  }

  /** A ride that remembers what it heard. */
  private static final class HeardRide implements KeyLocks.Ride {
    final List<Long> answers = new ArrayList<>();

    @Override
    public java.nio.ByteBuffer destination() {
      return java.nio.ByteBuffer.allocate(8);
    }

    @Override
    public void answered(long result) {
      answers.add(result);
    }

    @Override
    public Runnable detach() {
      return () -> {};
    }
  }

  @Test
  void theGatesLocksKeepTheRide() throws Exception {
    try (InProcessStore store = InProcessStore.open(ConfigLoader.defaults())) {
      StoreGate gate = new StoreGate(store, "test");
      HeardRide ride = new HeardRide();
      KeyLocks.Held held = gate.locks(new Answering()).lock("k", ride, Deadline.none());
      assertEquals(List.of(42L), ride.answers, "the gate dropped the ride");
      held.ensureHeld();
      held.close();
      assertTrue(gate.shutAndDrain(0), "a released lock stayed counted");
    }
  }
}
