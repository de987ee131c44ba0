package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.internal.backend.CallerMemory;
import dev.mooncake.jcache.internal.backend.StoreException;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.nativebridge.ClosedHandleException;
import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.NativeRegion;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caller memory a Mooncake client can transfer from: the region it registered at open, and, over
 * RDMA, a caller's direct buffer registered for the length of a call. Registrations are counted per
 * address, so overlapping calls on one buffer register it once and the last one unregisters. Over
 * TCP nothing needs registering.
 */
final class CallerRegistrations implements CallerMemory {
  private static final Logger LOG = LoggerFactory.getLogger(CallerRegistrations.class);
  private static final AutoCloseable NO_REGISTRATION = () -> {};

  private final MooncakeClient client;
  private final NativeRegion region;
  private final boolean registrationNeeded;
  private final ClientGate gate;
  private final Map<Long, int[]> counts = new HashMap<>(); // guarded by itself

  CallerRegistrations(
      MooncakeClient client, NativeRegion region, boolean registrationNeeded, ClientGate gate) {
    this.client = client;
    this.region = region;
    this.registrationNeeded = registrationNeeded;
    this.gate = gate;
  }

  @Override
  public boolean contains(ByteBuffer buffer) {
    return buffer != null && region.contains(buffer);
  }

  @Override
  public AutoCloseable registerForCall(ByteBuffer buffer) {
    Objects.requireNonNull(buffer, "buffer");
    if (!buffer.isDirect()) {
      throw new IllegalArgumentException("only a direct buffer can be registered");
    }
    if (!registrationNeeded || buffer.capacity() == 0 || region.contains(buffer)) {
      return NO_REGISTRATION;
    }
    gate.ensureOpen();
    long address = NativeRegion.addressOf(buffer);
    synchronized (counts) {
      int[] count = counts.get(address);
      if (count == null) {
        int code =
            (int)
                VirtualThreadCalls.shared() // a virtual thread does not pin its carrier
                    .call(
                        () -> gate.call(() -> client.registerBuffer(buffer, 0, buffer.capacity())));
        if (code != 0) {
          throw new StoreException(
              "registering a caller buffer of "
                  + buffer.capacity()
                  + " bytes at 0x"
                  + Long.toHexString(address)
                  + " with Mooncake failed: "
                  + StoreStatus.describe(code));
        }
        count = new int[1];
        counts.put(address, count);
      }
      count[0]++;
    }
    AtomicBoolean done = new AtomicBoolean();
    return () -> {
      if (done.compareAndSet(false, true)) {
        unregister(address, buffer);
      }
    };
  }

  private void unregister(long address, ByteBuffer buffer) {
    synchronized (counts) {
      int[] count = counts.get(address);
      if (count == null || --count[0] > 0) {
        return;
      }
      counts.remove(address);
      if (gate.isClosed()) {
        return; // destroying the client dropped every registration
      }
      try {
        int code = (int) VirtualThreadCalls.shared().call(() -> client.unregisterBuffer(buffer, 0));
        if (code != 0) {
          LOG.warn(
              "unregistering a caller buffer at 0x{} answered {}",
              Long.toHexString(address),
              StoreStatus.describe(code));
        }
      } catch (ClosedHandleException e) {
        // closed meanwhile: nothing left to unregister
      }
    }
  }
}
