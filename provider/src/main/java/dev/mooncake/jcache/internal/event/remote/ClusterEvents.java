package dev.mooncake.jcache.internal.event.remote;

import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.near.NearCache;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * A cache manager's part in the cluster's event stream: the shared subscription to the master's
 * publisher, the manager's store wrapped so its own changes are recognised ({@link ObservedStore}),
 * and each cache's {@link RemoteEvents}.
 */
public final class ClusterEvents implements AutoCloseable {
  /** Keys of liveness probes: outside every cache's namespace, so every subscriber ignores them. */
  static final String PROBE_PREFIX = "mcj-probe/";

  /** How long an own write waits for its echo before it is forgotten. */
  static final long ECHO_LIFETIME_MILLIS = 30_000;

  private final ObservedStore store;
  private final SharedSubscriptions.Lease lease;
  private final Executor executor;

  private ClusterEvents(ObservedStore store, SharedSubscriptions.Lease lease, Executor executor) {
    this.store = store;
    this.lease = lease;
    this.executor = executor;
  }

  /** Subscribes to {@code endpoint}; {@code rawStore} is the manager's store (also the probe's). */
  public static ClusterEvents open(String endpoint, ObjectStore rawStore, Executor executor) {
    SharedSubscriptions.Lease lease = SharedSubscriptions.acquire(endpoint, () -> probe(rawStore));
    return new ClusterEvents(new ObservedStore(rawStore), lease, executor);
  }

  /** A put and a remove of a fresh key outside every namespace: two events on the stream. */
  private static void probe(ObjectStore store) {
    ObservedStore.putAndRemove(store, PROBE_PREFIX + UUID.randomUUID());
  }

  /** The store the manager's caches use. */
  public ObjectStore store() {
    return store;
  }

  public EventSubscription subscription() {
    return lease.subscription();
  }

  /** Joins a cache (keys under {@code prefix}) to the stream; {@code near} may be null. */
  public RemoteEvents attach(String prefix, NearCache<?> near, RemoteTarget target) {
    RemoteEvents events =
        new RemoteEvents(
            near, new OwnWrites(System::currentTimeMillis, ECHO_LIFETIME_MILLIS), target, executor);
    store.attach(prefix, events);
    lease.subscription().register(prefix, events);
    return events;
  }

  public void detach(String prefix, RemoteEvents events) {
    lease.subscription().deregister(prefix, events);
    store.detach(prefix, events);
  }

  /** A watch of keys outside the caches' namespaces; closing it stops the hand-over. */
  public interface Watch extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Hands the {@code stored} events of the keys under {@code keyPrefix} (outside every cache's
   * namespace: lock keeping's wants) to {@code stored}, and every flush's liveness to {@code
   * flushed}, on the subscription's thread, until the watch is closed.
   */
  public Watch watch(String keyPrefix, Consumer<String> stored, Consumer<Boolean> flushed) {
    EventSink sink =
        new EventSink() {
          @Override
          public void onEvents(List<KvEvent> events) {
            for (KvEvent event : events) {
              if (event.kind() == KvEvent.Kind.STORED) {
                stored.accept(event.objectKey());
              }
            }
          }

          @Override
          public void onFlush(FlushReason reason, boolean live) {
            flushed.accept(live);
          }
        };
    EventSubscription subscription = lease.subscription();
    subscription.watch(keyPrefix, sink);
    return () -> {
      subscription.unwatch(keyPrefix, sink);
      flushed.accept(false);
    };
  }

  /** Lets go of the subscription (the store is the manager's to close). */
  @Override
  public void close() {
    lease.close();
  }
}
