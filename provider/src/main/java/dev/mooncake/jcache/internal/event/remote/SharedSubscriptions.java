package dev.mooncake.jcache.internal.event.remote;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One {@link EventSubscription} per endpoint in this JVM, shared by every cache manager connected
 * to that master and closed when the last one lets go. (The stream carries the whole cluster's
 * events: a second subscription would only double the decoding.)
 */
public final class SharedSubscriptions {
  /** How often a connected but quiet subscription probes until its first message. */
  static final long PROBE_INTERVAL_MILLIS = 1000;

  private static final Map<String, Shared> OPEN = new HashMap<>();

  private SharedSubscriptions() {}

  /**
   * A handle on the endpoint's subscription; close it once. {@code probe} makes the master publish
   * an event (through this user's store connection); the subscription uses any user's that works.
   */
  public static Lease acquire(String endpoint, Runnable probe) {
    synchronized (OPEN) {
      Shared shared = OPEN.get(endpoint);
      if (shared == null) {
        List<Runnable> probes = new CopyOnWriteArrayList<>();
        shared =
            new Shared(
                probes,
                new EventSubscription(endpoint, () -> probeAny(probes), PROBE_INTERVAL_MILLIS));
        OPEN.put(endpoint, shared);
      }
      shared.users++;
      shared.probes.add(probe);
      return new Lease(endpoint, shared.subscription, probe);
    }
  }

  private static void probeAny(List<Runnable> probes) {
    RuntimeException last = null;
    for (Runnable probe : probes) {
      try {
        probe.run();
        return;
      } catch (RuntimeException e) {
        last = e;
      }
    }
    if (last != null) {
      throw last;
    }
  }

  private static void release(String endpoint, Runnable probe) {
    EventSubscription toClose = null;
    synchronized (OPEN) {
      Shared shared = OPEN.get(endpoint);
      if (shared != null) {
        shared.probes.remove(probe);
      }
      if (shared != null && --shared.users == 0) {
        OPEN.remove(endpoint);
        toClose = shared.subscription;
      }
    }
    if (toClose != null) {
      toClose.close();
    }
  }

  private static final class Shared {
    final List<Runnable> probes;
    final EventSubscription subscription;
    int users;

    Shared(List<Runnable> probes, EventSubscription subscription) {
      this.probes = probes;
      this.subscription = subscription;
    }
  }

  /** One user's hold on a shared subscription. */
  public static final class Lease implements AutoCloseable {
    private final String endpoint;
    private final EventSubscription subscription;
    private final Runnable probe;
    private boolean closed;

    Lease(String endpoint, EventSubscription subscription, Runnable probe) {
      this.endpoint = endpoint;
      this.subscription = subscription;
      this.probe = probe;
    }

    public EventSubscription subscription() {
      return subscription;
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        release(endpoint, probe);
      }
    }
  }
}
