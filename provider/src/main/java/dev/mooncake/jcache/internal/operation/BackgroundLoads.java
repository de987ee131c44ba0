package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.internal.entry.Decision;
import dev.mooncake.jcache.internal.integration.PendingLoads;
import dev.mooncake.jcache.internal.lane.Lane;
import dev.mooncake.jcache.internal.lane.Lanes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CompletionListener;

/**
 * JCache's {@code loadAll}: the loader runs in the background on the retrieve lane (docs/lanes.md),
 * tracked by the cache's {@link PendingLoads} so that closing the cache ends it before closing the
 * loader. Each loaded value is stored in a step of its own, with its own deadline: no caller waits.
 */
public final class BackgroundLoads<K, V> {
  private final CacheContext<K, V> context;
  private final PendingLoads pending;
  private final Lanes lanes;

  public BackgroundLoads(CacheContext<K, V> context, PendingLoads pending, Lanes lanes) {
    this.context = context;
    this.pending = pending;
    this.lanes = lanes;
  }

  public void loadAll(
      Set<? extends K> keySet, boolean replaceExistingValues, CompletionListener listener) {
    context.requireOpen();
    Objects.requireNonNull(keySet, "keys");
    for (K key : keySet) {
      Objects.requireNonNull(key, "a key in loadAll");
    }
    CompletionListener done = listener == null ? NoCompletionListener.INSTANCE : listener;
    if (context.loader == null) {
      done.onCompletion();
      return;
    }
    List<K> toLoad = new ArrayList<>(keySet);
    pending.start(
        () -> {
          try {
            List<K> wanted = replaceExistingValues ? toLoad : absentKeys(toLoad);
            Map<K, V> loaded = wanted.isEmpty() ? Map.of() : context.loader.loadAll(wanted);
            for (Map.Entry<K, V> e : loaded.entrySet()) {
              if (e.getKey() != null && e.getValue() != null) {
                loadOne(e.getKey(), e.getValue(), replaceExistingValues);
              }
            }
            context.listeners.await();
            done.onCompletion();
          } catch (Exception e) {
            context.listeners.ignore();
            done.onException(e instanceof CacheLoaderException ? e : new CacheLoaderException(e));
          }
        },
        done,
        task ->
            lanes.submit(
                Lane.RETRIEVE,
                () -> {
                  task.run();
                  return null;
                }));
  }

  private List<K> absentKeys(List<K> candidates) {
    List<K> absent = new ArrayList<>();
    if (context.entriesNeverExpire() && !candidates.isEmpty()) {
      // presence alone answers, batch is_exist on the lookup lane, no value read; under cluster
      // too: a stale present answer (a dead owner's segment, see Reads.presenceAnswers) only skips
      // loading that key, it never answers a value
      String[] storeKeys = new String[candidates.size()];
      for (int i = 0; i < storeKeys.length; i++) {
        storeKeys[i] = context.storeKey(candidates.get(i));
      }
      boolean[] present =
          context.entries.containsAllUnread(candidates, storeKeys, context.deadline());
      for (int i = 0; i < storeKeys.length; i++) {
        if (!present[i]) {
          absent.add(candidates.get(i));
        }
      }
      return absent;
    }
    for (K key : candidates) {
      // a step each: not a caller's
      if (context.entries.get(key, context.storeKey(key), context.deadline()) == null) {
        absent.add(key);
      }
    }
    return absent;
  }

  /** Stores a loaded value: no writer call, no put statistics (loads are not puts). */
  private void loadOne(K key, V value, boolean replace) {
    context.checkValue(value);
    context.entries.compute(
        key,
        context.storeKey(key),
        current ->
            current == null || replace ? context.writeDecision(value, current) : Decision.KEEP,
        context.deadline()); // loadAll runs in the background: a deadline per stored value
  }

  /** Stands in for a missing completion listener. */
  private enum NoCompletionListener implements CompletionListener {
    INSTANCE;

    @Override
    public void onCompletion() {}

    @Override
    public void onException(Exception e) {}
  }
}
