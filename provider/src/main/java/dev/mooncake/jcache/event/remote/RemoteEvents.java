package dev.mooncake.jcache.event.remote;

import dev.mooncake.jcache.near.NearCache;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * One cache's share of the event stream: invalidates its near cache at once (on the subscription
 * thread, before anything else, so a read that starts after the event arrived cannot be served
 * the old copy) and turns other JVMs' changes into listener events.
 *
 * <p>From the stream to listener events: Mooncake's put never overwrites, so a {@code stored}
 * with no {@code removed} before it is a creation; a replace is {@code removed} then
 * {@code stored}. Within one message such a pair becomes one UPDATED. A {@code removed} without
 * its {@code stored} in the same message is checked when delivered: if the key is present again,
 * it was the first half of a replace (the {@code stored} to come is delivered as UPDATED);
 * otherwise it is a REMOVED. Repeats for other media of the same object are dropped. Echoes of
 * this JVM's own writes ({@link OwnWrites}) are dropped. Deliveries run on the executor in stream
 * order per key.
 */
public final class RemoteEvents implements EventSink {
  private final NearCache<?> near;
  private final OwnWrites own;
  private final RemoteTarget target;
  private final KeyedSerialExecutor serial;
  /** Keys whose last remote {@code removed} found them present again: a replace under way. */
  private final Set<String> replacing = ConcurrentHashMap.newKeySet();

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

  private static final OwnWrites.Pending NOTHING = () -> { };

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
      near.invalidate(storeKey);
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

  @Override
  public void onEvents(List<KvEvent> events) {
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

  private void schedule(String key, List<KvEvent.Kind> kinds) {
    for (int i = 0; i < kinds.size(); i++) {
      KvEvent.Kind kind = kinds.get(i);
      if (kind == KvEvent.Kind.REMOVED && i + 1 < kinds.size()
          && kinds.get(i + 1) == KvEvent.Kind.STORED) {
        serial.execute(key, () -> stored(key, true));
        i++;
      } else if (kind == KvEvent.Kind.STORED) {
        serial.execute(key, () -> stored(key, false));
      } else if (kind == KvEvent.Kind.REMOVED) {
        serial.execute(key, () -> removed(key));
      }
    }
  }

  private void stored(String key, boolean updated) {
    boolean wasReplacing = replacing.remove(key);
    target.stored(key, updated || wasReplacing);
  }

  private void removed(String key) {
    if (target.exists(key)) {
      replacing.add(key);
    } else {
      target.removed(key);
    }
  }

  @Override
  public void onFlush(FlushReason reason, boolean live) {
    if (near != null) {
      near.flush(live);
    }
    own.clear();
    replacing.clear();
  }

  /** Whether every delivery handed to the executor has run (for tests). */
  boolean idle() {
    return serial.idle();
  }
}
