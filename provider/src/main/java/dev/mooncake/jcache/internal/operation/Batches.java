package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.CacheEntry;
import dev.mooncake.jcache.internal.async.AsyncCalls;
import dev.mooncake.jcache.internal.entry.Decision;
import dev.mooncake.jcache.internal.entry.EntryMap;
import dev.mooncake.jcache.internal.operation.Counting.Change;
import dev.mooncake.jcache.internal.time.Deadline;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import javax.cache.Cache;
import javax.cache.integration.CacheWriterException;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;

/**
 * The operations of JCache on many keys (putAll, removeAll, clear, invokeAll) and the batch of
 * asynchronous puts ({@link #putEach}). A batch takes its keys' locks in store-key order, so two
 * batches never deadlock; the writer is called once for the batch, its failure thrown after the
 * entries it did write were stored.
 */
public final class Batches<K, V> {
  private final CacheContext<K, V> context;
  private final KeyOperations<K, V> single;

  /**
   * {@link #putEach} as the asynchronous view batches its puts: one object per cache, as writes are
   * batched only with writes of the same one.
   */
  private final AsyncCalls.BatchWrite<Void> batchedPuts;

  @SuppressWarnings("unchecked") // the keys and values are the view's putAsync ones, so K and V
  public Batches(CacheContext<K, V> context, KeyOperations<K, V> single) {
    this.context = context;
    this.single = single;
    this.batchedPuts =
        (keys, values, deadline) -> putEach((List<K>) (List<?>) keys, (List<V>) values, deadline);
  }

  /**
   * How the asynchronous view should batch its puts now: {@link #putEach}, or null for each put
   * alone. A write-through cache's puts run alone: a batch calls its writers one after another on
   * one thread, where puts alone call them in parallel (a writer is often a slow database call); so
   * do the puts of a cache with a synchronous listener, whose failure belongs to one put.
   */
  public AsyncCalls.BatchWrite<Void> batchedPuts() {
    return context.writer.enabled() || context.listeners.hasSynchronousListener()
        ? null
        : batchedPuts;
  }

  /**
   * Several puts of distinct keys, each answering what a put would (its writer call, its
   * statistics, its events, its expiry, its exception), as one batch: the keys' locks in one {@link
   * dev.mooncake.jcache.internal.lock.KeyLocks#lockAll}, the live entries in one batch read (none
   * for blind writes), the values in one batch put. Throws only before any put had an effect (a
   * key's check, the locks, the read failed; or a synchronous listener is registered, whose failure
   * could not be told apart): then each put runs alone. Each put's time in the statistics is the
   * batch's.
   */
  public List<AsyncCalls.Answer<Void>> putEach(List<K> keys, List<V> values, Deadline deadline) {
    context.requireOpen();
    if (context.listeners.hasSynchronousListener()) {
      throw new IllegalStateException("puts with a synchronous listener run alone");
    }
    int count = keys.size();
    List<EntryMap.Step<K>> steps = new ArrayList<>(count);
    Integer[] order = new Integer[count];
    String[] storeKeys = new String[count];
    boolean blind = context.blindWritesAllowed();
    for (int i = 0; i < count; i++) {
      storeKeys[i] = context.storeKey(keys.get(i));
      context.checkValue(values.get(i));
      order[i] = i;
    }
    // Sorted by store key: the batch takes the keys' locks in that order (see EntryMap.computeAll).
    Arrays.sort(order, Comparator.comparing(i -> storeKeys[i]));
    for (int i : order) {
      K key = keys.get(i);
      V value = values.get(i);
      steps.add(
          new EntryMap.Step<>(
              storeKeys[i],
              key,
              blind ? context.writingBlind(key, value) : context.writing(key, value)));
    }
    long start = context.statistics.start();
    EntryMap.StepResult[] results;
    try {
      results = context.entries.computeAll(steps, blind, deadline);
    } catch (RuntimeException e) {
      context.listeners.awaitSuppressing(e);
      throw e;
    }
    context.listeners.await(); // none: no synchronous listener
    List<AsyncCalls.Answer<Void>> answers = new ArrayList<>(Collections.nCopies(count, null));
    for (int s = 0; s < count; s++) {
      EntryMap.StepResult result = results[s];
      if (result.failure() != null) {
        answers.set(order[s], AsyncCalls.Answer.failed(result.failure()));
        continue;
      }
      if (result.outcome().changed()) {
        context.statistics.put(start);
      }
      answers.set(order[s], AsyncCalls.Answer.of(null));
    }
    return answers;
  }

  public void putAll(Map<? extends K, ? extends V> map, Deadline deadline) {
    context.requireOpen();
    Objects.requireNonNull(map, "map");
    // Sorted by store key: the batch takes the keys' locks in that order (see EntryMap.putAll).
    Map<String, Map.Entry<? extends K, ? extends V>> byStoreKey = new TreeMap<>();
    for (Map.Entry<? extends K, ? extends V> e : map.entrySet()) {
      String storeKey = context.storeKey(e.getKey());
      context.checkValue(e.getValue());
      byStoreKey.put(storeKey, e);
    }
    long start = context.statistics.start();
    CacheWriterException writerFailure = null;
    Set<Object> notWritten = Set.of();
    if (context.writer.enabled() && !map.isEmpty()) {
      List<Cache.Entry<? extends K, ? extends V>> entries = new ArrayList<>();
      for (Map.Entry<? extends K, ? extends V> e : map.entrySet()) {
        entries.add(new CacheEntry<>(e.getKey(), e.getValue()));
      }
      try {
        context.writer.writeAll(entries);
      } catch (CacheWriterException e) {
        writerFailure = e;
        notWritten = new HashSet<>();
        for (Cache.Entry<? extends K, ? extends V> left : entries) {
          notWritten.add(left.getKey());
        }
      }
    }
    int puts;
    try {
      List<EntryMap.Put<K>> toWrite = new ArrayList<>(byStoreKey.size());
      for (Map.Entry<String, Map.Entry<? extends K, ? extends V>> e : byStoreKey.entrySet()) {
        if (!notWritten.contains(e.getValue().getKey())) {
          toWrite.add(
              new EntryMap.Put<>(e.getKey(), e.getValue().getKey(), e.getValue().getValue()));
        }
      }
      long now = context.now();
      puts =
          context.entries.putAll(
              toWrite,
              context.blindWritesAllowed(),
              current -> context.expiryForWrite(current, now),
              deadline);
    } catch (RuntimeException e) {
      context.listeners.awaitSuppressing(e);
      throw e;
    }
    finish(writerFailure, puts, Change.PUT, start);
  }

  /** removeAll(keys): each key's step under a deadline of its own (docs/lanes.md, Deadlines). */
  public void removeAll(Set<? extends K> keySet) {
    context.requireOpen();
    Objects.requireNonNull(keySet, "keys");
    Map<String, K> byStoreKey = new LinkedHashMap<>();
    for (K key : keySet) {
      byStoreKey.put(context.storeKey(key), key);
    }
    removeKeys(byStoreKey);
  }

  public void removeAll() {
    context.requireOpen();
    Deadline deadline = context.deadline();
    if (!context.writer.enabled() && !context.listeners.hearRemovals()) {
      // Nobody to tell key by key: one anchored regex removes every JVM's entries of this cache.
      long start = context.statistics.start();
      long removed = context.entries.clear(context.keys.prefixPattern(), deadline);
      if (removed > 0) {
        context.statistics.removals(removed);
        context.statistics.removeTime(start);
      }
      return;
    }
    // A writer or listeners need each key: those this JVM wrote (see docs/deviations.md).
    Map<String, K> byStoreKey = new LinkedHashMap<>();
    for (String storeKey : context.entries.keys()) {
      byStoreKey.put(storeKey, context.cacheKey(storeKey));
    }
    removeKeys(byStoreKey);
  }

  private void removeKeys(Map<String, K> byStoreKey) {
    long start = context.statistics.start();
    CacheWriterException writerFailure = null;
    Set<Object> notDeleted = Set.of();
    if (context.writer.enabled() && !byStoreKey.isEmpty()) {
      Collection<K> pending = new LinkedHashSet<>(byStoreKey.values());
      try {
        context.writer.deleteAll(pending);
      } catch (CacheWriterException e) {
        writerFailure = e;
        notDeleted = new HashSet<>(pending);
      }
    }
    int removed = 0;
    try {
      for (Map.Entry<String, K> e : byStoreKey.entrySet()) {
        if (!notDeleted.contains(e.getValue())
            && context
                .entries
                .compute(e.getValue(), e.getKey(), current -> Decision.REMOVE, context.deadline())
                .changed()) { // a deadline per key: see docs/lanes.md, Deadlines
          removed++;
        }
      }
    } catch (RuntimeException e) {
      context.listeners.awaitSuppressing(e);
      throw e;
    }
    finish(writerFailure, removed, Change.REMOVAL, start);
  }

  /**
   * The end of a bulk write or removal: synchronous listeners awaited (their failure suppressed
   * into the writer's, if it failed), the entries changed counted, the writer's failure thrown.
   */
  private void finish(CacheWriterException writerFailure, int changed, Change change, long start) {
    context.listeners.awaitAfter(writerFailure);
    if (changed > 0 && change == Change.PUT) {
      context.statistics.puts(changed);
      context.statistics.putTime(start);
    } else if (changed > 0) {
      context.statistics.removals(changed);
      context.statistics.removeTime(start);
    }
    if (writerFailure != null) {
      throw writerFailure;
    }
  }

  /**
   * No writer, no listeners, no statistics (the spec's clear); one regex call removes this cache's
   * objects written by any JVM.
   */
  public void clear() {
    context.requireOpen();
    context.entries.clear(context.keys.prefixPattern(), context.deadline());
  }

  /** invokeAll: each key's invoke under a deadline of its own (docs/lanes.md, Deadlines). */
  public <T> Map<K, EntryProcessorResult<T>> invokeAll(
      Set<? extends K> keySet, EntryProcessor<K, V, T> processor, Object... arguments) {
    context.requireOpen();
    Objects.requireNonNull(keySet, "keys");
    Objects.requireNonNull(processor, "entry processor");
    Objects.requireNonNull(arguments, "arguments");
    for (K key : keySet) {
      Objects.requireNonNull(key, "a key in invokeAll");
    }
    Map<K, EntryProcessorResult<T>> results = new HashMap<>();
    for (K key : keySet) {
      try {
        T result = single.invoke(key, processor, arguments, context.deadline());
        if (result != null) {
          results.put(key, () -> result);
        }
      } catch (EntryProcessorException e) {
        results.put(
            key,
            () -> {
              throw e;
            });
      } catch (RuntimeException e) {
        EntryProcessorException wrapped = new EntryProcessorException(e);
        results.put(
            key,
            () -> {
              throw wrapped;
            });
      }
    }
    return results;
  }
}
