package dev.mooncake.jcache.internal.event.remote;

import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.time.Deadline;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The manager's store, seen by its caches when cluster events are on: every change this JVM makes
 * passes here, whichever path made it (single and batch writes, access-expiry rewrites, the expiry
 * sweeper, zero-copy puts, clear), so the cache's {@link RemoteEvents} learns of each one before
 * the store call (to tell its echo on the stream from another JVM's change) and after it (to drop
 * the near cache's copy). Reads pass through untouched.
 */
public final class ObservedStore extends EventedStore {
  private final Map<String, List<RemoteEvents>> caches = new ConcurrentHashMap<>();

  public ObservedStore(ObjectStore store) {
    super(store);
  }

  /** The cache with keys under {@code prefix} ({@code mcj/<t>/<c>/}) hears of its changes. */
  public void attach(String prefix, RemoteEvents events) {
    caches.computeIfAbsent(prefix, p -> new CopyOnWriteArrayList<>()).add(events);
  }

  public void detach(String prefix, RemoteEvents events) {
    caches.computeIfPresent(
        prefix,
        (p, list) -> {
          list.remove(events);
          return list.isEmpty() ? null : list;
        });
  }

  private List<RemoteEvents> of(String key) {
    String prefix = KeyPrefixes.cachePrefix(key);
    return prefix == null ? List.of() : caches.getOrDefault(prefix, List.of());
  }

  /** The own change the caches under the key's prefix expect, before the call. */
  private record Expected(List<RemoteEvents> targets, OwnWrites.Pending[] pending) {}

  @Override
  protected Object changing(String key, KvEvent.Kind kind) {
    List<RemoteEvents> targets = of(key);
    return targets.isEmpty() ? null : new Expected(targets, expect(targets, key, kind));
  }

  @Override
  protected void changed(String key, KvEvent.Kind kind, Object token, boolean succeeded) {
    Expected expected = (Expected) token;
    done(expected.targets(), key, expected.pending(), succeeded);
  }

  @Override
  public long removeByRegex(String pattern, boolean force, Deadline deadline) {
    // The caches' own patterns are "^" + their prefix; any other pattern is not ours to track.
    List<RemoteEvents> targets =
        pattern.startsWith("^") ? caches.getOrDefault(pattern.substring(1), List.of()) : List.of();
    long count = bulk(targets, () -> store.removeByRegex(pattern, force, deadline));
    if (!targets.isEmpty()) {
      announceBulkRemoval(pattern.substring(1));
    }
    return count;
  }

  /**
   * The master publishes no event for a {@code remove_by_regex}: other JVMs' near caches would keep
   * serving what it removed. A put and remove of a marker key in the cache's namespace (its last
   * part is not base64url, so no cache key can be it) tells them to empty themselves.
   */
  private void announceBulkRemoval(String prefix) {
    putAndRemove(store, prefix + RemoteEvents.BULK_REMOVAL_MARKER);
  }

  /** A one-byte put and a remove of {@code key}: two events on the stream, nothing left behind. */
  static void putAndRemove(ObjectStore store, String key) {
    java.nio.ByteBuffer buffer = store.buffers().acquire(1);
    try {
      buffer.clear().limit(1);
      buffer.put(0, (byte) 1);
      store.put(key, buffer);
      store.remove(key, true);
    } finally {
      store.buffers().release(buffer);
    }
  }

  private static long bulk(List<RemoteEvents> targets, java.util.function.LongSupplier call) {
    for (RemoteEvents events : targets) {
      events.ownBulkRemovalStarted();
    }
    long count = 0;
    try {
      count = call.getAsLong();
      return count;
    } finally {
      for (RemoteEvents events : targets) {
        events.ownBulkRemovalDone(count);
      }
    }
  }

  private static OwnWrites.Pending[] expect(
      List<RemoteEvents> targets, String key, KvEvent.Kind kind) {
    OwnWrites.Pending[] pending = new OwnWrites.Pending[targets.size()];
    for (int i = 0; i < pending.length; i++) {
      pending[i] = targets.get(i).ownChange(key, kind);
    }
    return pending;
  }

  /** After the call: a failed call causes no echo; either way the near copy goes. */
  private static void done(
      List<RemoteEvents> targets, String key, OwnWrites.Pending[] pending, boolean succeeded) {
    for (int i = 0; i < pending.length && i < targets.size(); i++) {
      if (!succeeded) {
        pending[i].cancel();
      }
      targets.get(i).ownChangeDone(key);
    }
  }
}
