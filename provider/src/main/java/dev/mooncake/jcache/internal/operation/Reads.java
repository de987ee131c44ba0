package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.internal.async.AsyncCalls;
import dev.mooncake.jcache.internal.entry.Decision;
import dev.mooncake.jcache.internal.entry.Outcome;
import dev.mooncake.jcache.internal.entry.StoredEntry;
import dev.mooncake.jcache.internal.expiry.ExpiryTimes;
import dev.mooncake.jcache.internal.time.Deadline;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The reads of JCache (get, the batch of gets, getAll, containsKey), each written once under its
 * caller's deadline: a read through the near cache where there is one, a hit's access expiry, a
 * miss's read-through load, and their statistics.
 */
public final class Reads<K, V> {
  private final CacheContext<K, V> context;

  /**
   * {@link #getEach} as the asynchronous view batches its gets: one object per cache, as reads are
   * batched only with reads of the same one.
   */
  private final AsyncCalls.BatchRead<V> batchedGets;

  @SuppressWarnings("unchecked") // the keys are the view's getAsync keys, so K
  public Reads(CacheContext<K, V> context) {
    this.context = context;
    this.batchedGets = (keys, deadline) -> getEach((List<K>) (List<?>) keys, deadline);
  }

  public AsyncCalls.BatchRead<V> batchedGets() {
    return batchedGets;
  }

  public V get(K key, Deadline deadline) {
    String storeKey = context.openKey(key);
    long start = context.statistics.start();
    V value;
    try {
      StoredEntry entry =
          context.near == null
              ? context.entries.get(key, storeKey, deadline)
              : readNear(key, storeKey, deadline);
      value = answer(key, storeKey, entry, deadline);
    } catch (RuntimeException e) {
      context.listeners.ignore();
      throw e;
    }
    context.listeners.await();
    context.statistics.getTime(start);
    return value;
  }

  /**
   * Several plain gets of distinct keys, each answering what {@link #get} would (statistics, near
   * cache, expiry on access, read-through per key), with one batch read of the store (without a
   * near cache): asynchronous gets ready at the same time ({@link AsyncCalls.BatchRead}). Throws
   * only when that read fails, before any get has answered; a get whose own step fails (a load, an
   * expiry touch) answers its exception. Each get's time in the statistics is the batch's.
   */
  public List<AsyncCalls.Answer<V>> getEach(List<K> keys, Deadline deadline) {
    context.requireOpen();
    int count = keys.size();
    String[] storeKeys = new String[count];
    for (int i = 0; i < count; i++) {
      storeKeys[i] = context.storeKey(keys.get(i));
    }
    long start = context.statistics.start();
    StoredEntry[] found;
    try {
      found = readEach(keys, storeKeys, deadline);
    } catch (RuntimeException e) {
      context.listeners.ignore();
      throw e;
    }
    List<AsyncCalls.Answer<V>> answers = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      try {
        answers.add(AsyncCalls.Answer.of(answer(keys.get(i), storeKeys[i], found[i], deadline)));
      } catch (RuntimeException e) {
        answers.add(AsyncCalls.Answer.failed(e));
      }
    }
    context.listeners.await(); // the events of the gets that answered
    for (AsyncCalls.Answer<V> answer : answers) {
      if (answer.failure() == null) {
        context.statistics.getTime(start);
      }
    }
    return answers;
  }

  /**
   * {@link #getEach}'s reads: one batch read, or, with a near cache, each key as {@link #get} reads
   * it (a near cache already spares the round trips a batch would save).
   */
  private StoredEntry[] readEach(List<K> keys, String[] storeKeys, Deadline deadline) {
    if (context.near == null) {
      return context.entries.getAll(keys, storeKeys, deadline);
    }
    StoredEntry[] found = new StoredEntry[keys.size()];
    for (int i = 0; i < found.length; i++) {
      found[i] = readNear(keys.get(i), storeKeys[i], deadline);
    }
    return found;
  }

  /** A get's answer from what its read found: a hit, or a miss and maybe a load. */
  private V answer(K key, String storeKey, StoredEntry entry, Deadline deadline) {
    if (entry != null) {
      context.statistics.hits(1);
      return accessed(key, storeKey, entry, deadline);
    }
    context.statistics.misses(1);
    if (!context.readThrough()) {
      return null;
    }
    Outcome loaded =
        context.entries.compute(
            key,
            storeKey,
            current -> {
              if (current != null) {
                return Decision.KEEP; // loaded by someone else meanwhile
              }
              V value = context.loader.load(key);
              if (value == null) {
                return Decision.KEEP;
              }
              context.checkValue(value);
              return context
                  .writeDecision(value, null)
                  .returning(value); // no writer call: loads are not puts
            },
            deadline);
    return loaded.found()
        ? CacheContext.value(loaded.previous())
        : CacheContext.typed(loaded.result());
  }

  /**
   * A plain read through the near cache: a copy held is served (expiry in its header still
   * applies); otherwise the store is read and what it found kept, unless an invalidation of the key
   * arrived while the read was in flight (the token).
   */
  private StoredEntry readNear(K key, String storeKey, Deadline deadline) {
    StoredEntry held = context.near.get(storeKey, context.now());
    if (held != null) {
      return held.forAnotherReader();
    }
    long token = context.near.token(storeKey);
    StoredEntry entry = context.entries.get(key, storeKey, deadline);
    if (entry != null) {
      context.near.install(storeKey, entry.forAnotherReader(), entry.expireAt(), token);
    }
    return entry;
  }

  /** Applies access expiry to an entry just read and returns its value. */
  V accessed(K key, String storeKey, StoredEntry entry, Deadline deadline) {
    long accessExpiry = context.expiry.forAccess(context.now());
    if (accessExpiry != ExpiryTimes.UNCHANGED && accessExpiry != entry.expireAt()) {
      context.entries.compute(
          key,
          storeKey,
          current ->
              current != null && current.expireAt() == entry.expireAt()
                  ? Decision.touch(accessExpiry)
                  : Decision.KEEP,
          deadline);
    }
    return CacheContext.value(entry);
  }

  public Map<K, V> getAll(Set<? extends K> keySet, Deadline deadline) {
    context.requireOpen();
    Objects.requireNonNull(keySet, "keys");
    // Parallel arrays, not maps: a set's keys are distinct, and so are their store keys.
    int count = keySet.size();
    List<K> keys = new ArrayList<>(count);
    String[] storeKeys = new String[count];
    for (K key : keySet) {
      storeKeys[keys.size()] = context.storeKey(key);
      keys.add(key);
    }
    long start = context.statistics.start();
    Map<K, V> result = new HashMap<>(Math.max(16, count * 4 / 3 + 1));
    try {
      StoredEntry[] found = context.entries.getAll(keys, storeKeys, deadline);
      List<K> missing = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        if (found[i] == null) {
          missing.add(keys.get(i));
        } else {
          result.put(keys.get(i), accessed(keys.get(i), storeKeys[i], found[i], deadline));
        }
      }
      context.statistics.hits(result.size());
      context.statistics.misses(missing.size());
      if (context.readThrough() && !missing.isEmpty()) {
        loadMissing(missing, result, deadline);
      }
    } catch (RuntimeException e) {
      context.listeners.ignore();
      throw e;
    }
    context.listeners.await();
    context.statistics.getTime(start);
    return result;
  }

  private void loadMissing(List<K> missing, Map<K, V> result, Deadline deadline) {
    Map<K, V> loaded = context.loader.loadAll(missing);
    for (Map.Entry<K, V> e : loaded.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        continue;
      }
      V value = e.getValue();
      Outcome stored =
          context.entries.compute(
              e.getKey(),
              context.storeKey(e.getKey()),
              current -> current == null ? context.writeDecision(value, null) : Decision.KEEP,
              deadline);
      result.put(e.getKey(), stored.found() ? CacheContext.value(stored.previous()) : value);
    }
  }

  public boolean containsKey(K key, Deadline deadline) {
    String storeKey = context.openKey(key);
    // The near cache is not asked (configuration.md): containsKey goes to the store, which an
    // exists answers without moving the value.
    boolean present;
    if (presenceAnswers()) {
      present = context.entries.containsUnread(key, storeKey, deadline); // is_exist: no value moves
    } else {
      // the expiry time is in the stored value's header: read it (an expired entry is removed
      // and reported here, as a get would). No statistics and no access: JCache's containsKey is
      // neither a hit nor a miss, and does not touch the entry's access time.
      present = context.entries.get(key, storeKey, deadline) != null;
    }
    context.listeners.await();
    return present;
  }

  /**
   * Whether presence alone ({@code is_exist}) answers containsKey: no entry of this cache can
   * expire (the expiry time that could say otherwise is only in the stored value's header; every
   * JVM of a cache must give it the same expiry policy, docs/lanes.md, "lookup"), and the cache
   * does not run {@code consistency: cluster}. There a present answer can be stale: for up to
   * {@code client_ttl} after a segment's owner dies the master still lists the objects in it, while
   * every read of them fails and answers absent, so a containsKey true after a get's absent would
   * break the per-key linearizability cluster promises (HistoryOnRealMooncakeTest, a JVM killed
   * with kill -9).
   */
  private boolean presenceAnswers() {
    return context.entriesNeverExpire() && !context.clusterWideLocks;
  }
}
