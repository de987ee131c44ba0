package dev.mooncake.jcache.internal.connection;

import dev.mooncake.jcache.internal.backend.BufferPool;
import dev.mooncake.jcache.internal.backend.ForwardingBufferPool;
import dev.mooncake.jcache.internal.backend.ForwardingObjectStore;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.lock.ForwardingHeld;
import dev.mooncake.jcache.internal.lock.ForwardingKeyLocks;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A manager's door to its store, so that closing the manager under load is clean. Before, a call
 * that had passed its cache's closed check when the manager closed went on to a closed store and
 * failed with a StoreException (or an EntryProcessorException around one): 86 of 600 rounds x 16
 * threads in reliability.CloseUnderLoadTest. Now closing shuts the gate (later store calls fail
 * with IllegalStateException, JSR-107's failure for a closed cache) and waits for the calls in
 * flight before the store closes under them.
 *
 * <p>Buffers handed out by the store's pool count too, from acquire to release: a read decodes its
 * buffer after the store call returned, and closing the store gives the region's pages back (they
 * read as zeros: "no value header" in the same test). Buffers are counted on a stripe chosen by the
 * buffer, since a zero-copy caller may release on another thread; buffers such a caller keeps are
 * waited for at most {@link #HELD_BUFFER_WAIT_MILLIS} once no call is in flight.
 *
 * <p>Key locks count too, from asking for a lock to releasing it ({@link #locks}): under {@code
 * consistency: cluster} a lock is objects in the store, taken and released with calls on the shared
 * client that do not pass this gate, and a thread between its cache's closed check and its first
 * gated call waited in them while the store closed: 50 of 2,880 late calls over the fake failed
 * with "the Mooncake store is closed" (StoreException) in CloseUnderLoadTest.
 *
 * <p>Calls in flight are counted in stripes chosen by thread, entered and left on the same stripe,
 * so the hot path touches one mostly uncontended counter and a drain never misses a call: a call
 * whose increment the drain did not see reads the shut gate afterwards and backs out.
 */
public final class StoreGate extends ForwardingObjectStore {
  private static final int STRIPES = 64;
  private static final int SPACING = 8; // longs per stripe: one cache line each

  static final long HELD_BUFFER_WAIT_MILLIS = 2_000;
  private static final Ticker CLOCK = Ticker.system(); // a close waits for real threads

  private final String owner;
  private final AtomicLongArray inFlight = new AtomicLongArray(STRIPES * SPACING);
  private final AtomicLongArray buffersOut = new AtomicLongArray(STRIPES * SPACING);
  private final BufferPool pool;
  private volatile boolean shut;

  public StoreGate(ObjectStore store, String owner) {
    super(store);
    this.owner = owner;
    this.pool = new GatedPool(store.buffers());
  }

  private static int stripe(long hash) {
    return (int) ((hash * 0x9E3779B97F4A7C15L) >>> 58) * SPACING;
  }

  /** The store's pool, counting the buffers it hands out (see the class comment). */
  private final class GatedPool extends ForwardingBufferPool {
    GatedPool(BufferPool buffers) {
      super(buffers);
    }

    @Override
    protected ByteBuffer acquire(int minCapacity, boolean kept, Deadline deadline) {
      return gated( // counted as a call until the buffer is counted itself
          () -> {
            ByteBuffer buffer = super.acquire(minCapacity, kept, deadline);
            buffersOut.incrementAndGet(stripe(System.identityHashCode(buffer)));
            return buffer;
          });
    }

    @Override
    public void release(ByteBuffer buffer) {
      try {
        super.release(buffer);
      } finally {
        buffersOut.decrementAndGet(stripe(System.identityHashCode(buffer)));
      }
    }
  }

  /** The key locks, each held lock counted as a call in flight until it is released. */
  public KeyLocks locks(KeyLocks locks) {
    return new GatedLocks(locks);
  }

  /**
   * Every call of the seam gated; built on the forwarding base, so a lock's ride and the proof of
   * each held lock pass through as they are.
   */
  private final class GatedLocks extends ForwardingKeyLocks {
    GatedLocks(KeyLocks locks) {
      super(locks);
    }

    @Override
    public Held lock(String key, Ride ride, Deadline deadline) {
      int s = enter();
      Held held;
      try {
        held = super.lock(key, ride, deadline);
      } catch (RuntimeException | Error e) {
        leave(s);
        throw e;
      }
      return new Leaving(held, s);
    }

    // One batch, as the locks take it (a cluster lock batches its round trips).
    @Override
    public List<Held> lockAll(String[] orderedKeys, Deadline deadline) {
      if (orderedKeys.length == 0) {
        return List.of();
      }
      int s = enter(); // one stripe per thread: one count per key, each left by its own close
      for (int i = 1; i < orderedKeys.length; i++) {
        inFlight.incrementAndGet(s);
      }
      List<Held> held;
      try {
        held = super.lockAll(orderedKeys, deadline);
      } catch (RuntimeException | Error e) {
        for (int i = 0; i < orderedKeys.length; i++) {
          leave(s);
        }
        throw e;
      }
      List<Held> gated = new ArrayList<>(held.size());
      for (Held h : held) {
        gated.add(new Leaving(h, s));
      }
      return gated;
    }

    @Override
    public long readStamp(String key) {
      return gatedLong(() -> super.readStamp(key));
    }

    @Override
    public boolean mayHaveChanged(String key, long stamp) {
      return gated(() -> super.mayHaveChanged(key, stamp));
    }
  }

  /** A held lock that leaves the gate when it is released. */
  private final class Leaving extends ForwardingHeld {
    private final int stripe;

    Leaving(KeyLocks.Held held, int stripe) {
      super(held);
      this.stripe = stripe;
    }

    @Override
    public void close() {
      try {
        super.close();
      } finally {
        leave(stripe);
      }
    }
  }

  private int enter() {
    int stripe = stripe(Thread.currentThread().getId());
    inFlight.incrementAndGet(stripe);
    if (shut) {
      inFlight.decrementAndGet(stripe);
      throw new IllegalStateException(owner + " is closed");
    }
    return stripe;
  }

  private void leave(int stripe) {
    inFlight.decrementAndGet(stripe);
  }

  /** One call through the gate: entered, made, left (a primitive answer, unboxed). */
  private long gatedLong(LongSupplier call) {
    int s = enter();
    try {
      return call.getAsLong();
    } finally {
      leave(s);
    }
  }

  /** One call through the gate: entered, made, left. */
  private <T> T gated(Supplier<T> call) {
    int s = enter();
    try {
      return call.get();
    } finally {
      leave(s);
    }
  }

  /**
   * Refuses new calls, then waits up to {@code timeoutMillis} for those in flight; true if done.
   */
  public boolean shutAndDrain(long timeoutMillis) throws InterruptedException {
    shut = true;
    Deadline drain = Deadline.after(Duration.ofMillis(timeoutMillis), CLOCK);
    Deadline heldBuffers = null; // from when no call is in flight any more
    while (true) {
      long calls = 0;
      long buffers = 0;
      for (int i = 0; i < STRIPES; i++) {
        calls += inFlight.get(i * SPACING);
        buffers += buffersOut.get(i * SPACING);
      }
      if (calls == 0 && buffers == 0) {
        return true;
      }
      if (calls == 0 && heldBuffers == null) {
        heldBuffers = Deadline.after(Duration.ofMillis(HELD_BUFFER_WAIT_MILLIS), CLOCK);
      }
      if (drain.expired() || (calls == 0 && heldBuffers.expired())) {
        return calls == 0; // buffers a zero-copy caller keeps do not hold the close up
      }
      Thread.sleep(1); // store calls are bounded by operation_timeout_ms; this polls them out
    }
  }

  @Override
  public int put(String key, ByteBuffer value, Deadline deadline) {
    // The hot paths (put, getInto) enter and leave here, not through gatedLong's lambda and the
    // forwarding base: three frames less on every put and get (CallPathFramesTest).
    int s = enter();
    try {
      return delegate().put(key, value, deadline);
    } finally {
      leave(s);
    }
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline) {
    return gated(() -> super.batchPut(keys, values, deadline));
  }

  @Override
  public long getInto(String key, ByteBuffer destination, Deadline deadline) {
    int s = enter(); // as put: inline on the hot path
    try {
      return delegate().getInto(key, destination, deadline);
    } finally {
      leave(s);
    }
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
    return gated(() -> super.batchGetInto(keys, destinations, deadline));
  }

  @Override
  public int isExist(String key, Deadline deadline) {
    return (int) gatedLong(() -> super.isExist(key, deadline));
  }

  @Override
  public int[] batchIsExist(String[] keys, Deadline deadline) {
    return gated(() -> super.batchIsExist(keys, deadline));
  }

  @Override
  public long getSize(String key, Deadline deadline) {
    return gatedLong(() -> super.getSize(key, deadline));
  }

  @Override
  public int remove(String key, boolean force, Deadline deadline) {
    return (int) gatedLong(() -> super.remove(key, force, deadline));
  }

  @Override
  public long removeByRegex(String pattern, boolean force, Deadline deadline) {
    return gatedLong(() -> super.removeByRegex(pattern, force, deadline));
  }

  @Override
  public BufferPool buffers() {
    return pool;
  }
}
