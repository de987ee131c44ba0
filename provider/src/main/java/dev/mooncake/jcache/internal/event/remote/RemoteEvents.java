package dev.mooncake.jcache.internal.event.remote;

import dev.mooncake.jcache.internal.near.NearCache;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * One cache's share of the event stream: invalidates its near cache at once (on the subscription
 * thread, before anything else, so a read that starts after the event arrived cannot be served the
 * old copy) and turns other JVMs' changes into listener events.
 *
 * <p>From the stream to listener events: Mooncake's put never overwrites, so a {@code stored} with
 * no {@code removed} before it is a creation; a replace is {@code removed} then {@code stored}:
 * such a pair becomes one UPDATED when both have arrived by the time the key's deliveries run. A
 * lone {@code removed} is checked: if the key is present again it was the first half of a replace
 * (the {@code stored} to come is an UPDATED); if not, it waits {@link #REPLACE_GRACE_MILLIS} for
 * that {@code stored} once, then is a REMOVED. Repeats for other media of the same object are
 * dropped. Echoes of this JVM's own writes ({@link OwnWrites}) are dropped. Deliveries run on the
 * executor in stream order per key.
 */
public final class RemoteEvents implements EventSink {
  private final NearCache<?> near;
  private final OwnWrites own;
  private final RemoteTarget target;
  private final KeyedSerialExecutor serial;

  /**
   * How long a lone {@code removed} waits for the {@code stored} of a replace (Mooncake's replace
   * is remove, then put: one store round trip apart) before it is delivered as REMOVED.
   */
  static final long REPLACE_GRACE_MILLIS = 20;

  /** Keys whose last remote {@code removed} found them present again: a replace under way. */
  private final Set<String> replacing = ConcurrentHashMap.newKeySet();

  /** Remote events not yet delivered, per key (guarded by itself). */
  private final Map<String, Deque<KvEvent.Kind>> pending = new HashMap<>();

  /** Keys with a drain scheduled or running (guarded by {@link #pending}). */
  private final Set<String> draining = new HashSet<>();

  /** {@code near} may be null (no near cache). */
  public RemoteEvents(NearCache<?> near, OwnWrites own, RemoteTarget target, Executor executor) {
    this.near = near;
    this.own = own;
    this.target = target;
    this.serial = new KeyedSerialExecutor(executor);
  }

  public OwnWrites ownWrites() {
    return own;
  }

  private static final OwnWrites.Pending NOTHING = () -> {};

  /**
   * This JVM is about to change {@code storeKey} in the store: its echo will be {@code kind}.
   * Recorded only while listeners are registered (nobody else needs to tell echoes apart).
   */
  OwnWrites.Pending ownChange(String storeKey, KvEvent.Kind kind) {
    return target.hasListeners() ? own.expect(storeKey, kind) : NOTHING;
  }

  /** This JVM changed {@code storeKey} (or tried to): the near cache must not keep the old copy. */
  void ownChangeDone(String storeKey) {
    if (near != null) {
      near.invalidateOwnWrite(storeKey);
    }
  }

  /** This JVM is removing every entry of the cache in one call. */
  void ownBulkRemovalStarted() {
    own.bulkStarted();
  }

  void ownBulkRemovalDone(long count) {
    own.bulkEnded(Math.max(0, count));
    if (near != null) {
      near.clear();
    }
  }

  /**
   * The last part of the marker key a bulk removal writes (see {@link ObservedStore}): {@code !} is
   * outside base64url, so no cache key encodes to it.
   */
  static final String BULK_REMOVAL_MARKER = "!bulk-removal";

  @Override
  public void onEvents(List<KvEvent> events) {
    for (KvEvent event : events) {
      if (event.objectKey().endsWith("/" + BULK_REMOVAL_MARKER)) {
        if (near != null) {
          near.clear(); // some JVM removed the cache's entries in bulk: no per-key events come
        }
        events =
            events.stream()
                .filter(e -> !e.objectKey().endsWith("/" + BULK_REMOVAL_MARKER))
                .toList();
        break;
      }
    }
    if (near != null) {
      for (KvEvent event : events) {
        near.invalidate(event.objectKey());
      }
    }
    Map<String, List<KvEvent.Kind>> byKey = new LinkedHashMap<>();
    for (KvEvent event : events) {
      List<KvEvent.Kind> kinds = byKey.computeIfAbsent(event.objectKey(), k -> new ArrayList<>());
      if (!kinds.isEmpty() && kinds.get(kinds.size() - 1) == event.kind()) {
        continue; // the same change on another medium
      }
      kinds.add(event.kind());
    }
    boolean listeners = target.hasListeners();
    for (Map.Entry<String, List<KvEvent.Kind>> entry : byKey.entrySet()) {
      String key = entry.getKey();
      List<KvEvent.Kind> remote = new ArrayList<>();
      for (KvEvent.Kind kind : entry.getValue()) {
        if (!own.consume(key, kind)) {
          remote.add(kind);
        }
      }
      if (listeners) {
        schedule(key, remote);
      }
    }
  }

  /**
   * Queues a key's remote events and makes sure one drain of that key is scheduled: the drain sees
   * everything that arrived for the key by the time it runs, so a replace whose two halves came in
   * separate messages is still seen as a pair.
   */
  private void schedule(String key, List<KvEvent.Kind> kinds) {
    if (kinds.isEmpty()) {
      return;
    }
    boolean start;
    synchronized (pending) {
      Deque<KvEvent.Kind> queue = pending.computeIfAbsent(key, k -> new ArrayDeque<>());
      start = queue.isEmpty() && !draining.contains(key);
      queue.addAll(kinds);
      if (start) {
        draining.add(key);
      }
    }
    if (start) {
      serial.execute(key, () -> drain(key, false));
    }
  }

  /** Delivers what is queued for the key; {@code waited}: a lone removal already had its grace. */
  private void drain(String key, boolean waited) {
    List<KvEvent.Kind> kinds;
    synchronized (pending) {
      Deque<KvEvent.Kind> queue = pending.remove(key);
      kinds = queue == null ? List.of() : new ArrayList<>(queue);
    }
    for (int i = 0; i < kinds.size(); i++) {
      KvEvent.Kind kind = kinds.get(i);
      boolean last = i == kinds.size() - 1;
      if (kind == KvEvent.Kind.REMOVED && !last && kinds.get(i + 1) == KvEvent.Kind.STORED) {
        replacing.remove(key);
        target.stored(key, true);
        i++;
      } else if (kind == KvEvent.Kind.STORED) {
        target.stored(key, replacing.remove(key));
      } else if (!last) {
        target.removed(key); // removed, then removed again: nothing between worth telling
      } else if (target.exists(key)) {
        replacing.add(key); // the put of a replace landed already; its stored is on its way
      } else if (!waited) {
        // A replace's put may still be in flight: give its stored a moment to arrive.
        synchronized (pending) {
          pending.computeIfAbsent(key, k -> new ArrayDeque<>()).addFirst(KvEvent.Kind.REMOVED);
        }
        serial.executeAfter(key, REPLACE_GRACE_MILLIS, () -> drain(key, true));
        return;
      } else {
        target.removed(key);
      }
    }
    boolean again;
    synchronized (pending) {
      again = pending.containsKey(key);
      if (!again) {
        draining.remove(key);
      }
    }
    if (again) {
      serial.execute(key, () -> drain(key, false));
    }
  }

  @Override
  public void onFlush(FlushReason reason, boolean live) {
    if (near != null) {
      near.flush(live);
    }
    own.clear();
    replacing.clear();
    // Queued deliveries stay: they are changes that happened; only knowledge is dropped.
  }

  /** Whether every delivery handed to the executor has run (for tests). */
  public boolean idle() {
    return serial.idle();
  }
}
