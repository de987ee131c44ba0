package dev.mooncake.jcache.event.remote;

import java.util.HashMap;
import java.util.Map;

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

  /** A handle on the endpoint's subscription; close it once. */
  public static Lease acquire(String endpoint, Runnable probe) {
    synchronized (OPEN) {
      Shared shared = OPEN.get(endpoint);
      if (shared == null) {
        shared = new Shared(new EventSubscription(endpoint, probe, PROBE_INTERVAL_MILLIS));
        OPEN.put(endpoint, shared);
      }
      shared.users++;
      return new Lease(endpoint, shared.subscription);
    }
  }

  private static void release(String endpoint) {
    EventSubscription toClose = null;
    synchronized (OPEN) {
      Shared shared = OPEN.get(endpoint);
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
    final EventSubscription subscription;
    int users;

    Shared(EventSubscription subscription) {
      this.subscription = subscription;
    }
  }

  /** One user's hold on a shared subscription. */
  public static final class Lease implements AutoCloseable {
    private final String endpoint;
    private final EventSubscription subscription;
    private boolean closed;

    Lease(String endpoint, EventSubscription subscription) {
      this.endpoint = endpoint;
      this.subscription = subscription;
    }

    public EventSubscription subscription() {
      return subscription;
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        release(endpoint);
      }
    }
  }
}
