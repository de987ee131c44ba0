package dev.mooncake.jcache;

import dev.mooncake.jcache.internal.async.AsyncCalls;
import dev.mooncake.jcache.internal.operation.Batches;
import dev.mooncake.jcache.internal.operation.KeyOperations;
import dev.mooncake.jcache.internal.operation.Reads;
import dev.mooncake.jcache.internal.time.Deadline;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorResult;

/**
 * {@link MooncakeCacheAsync} over a {@link MooncakeCache}: each operation is the one body the
 * cache's synchronous method calls too ({@link MooncakeCache#operations}), issued through the
 * manager's {@link AsyncCalls}, and run under the deadline that started at its issue. Arguments are
 * checked and collections copied on the caller's thread, so a later change to them changes nothing
 * issued.
 */
final class AsyncCacheView<K, V> implements MooncakeCacheAsync<K, V> {
  private final MooncakeCache<K, V> cache;
  private final AsyncCalls.Scope calls;
  private final Executor executor; // null: dependents run on the provider thread
  private final Reads<K, V> reads;
  private final KeyOperations<K, V> keys;
  private final Batches<K, V> batches;

  AsyncCacheView(MooncakeCache<K, V> cache, AsyncCalls.Scope calls, Executor executor) {
    this.cache = cache;
    this.calls = calls;
    this.executor = executor;
    this.reads = cache.operations().reads;
    this.keys = cache.operations().keys;
    this.batches = cache.operations().batches;
  }

  @Override
  public MooncakeCacheAsync<K, V> withExecutor(Executor executor) {
    return new AsyncCacheView<>(cache, calls, Objects.requireNonNull(executor, "executor"));
  }

  @Override
  public CompletionStage<V> getAsync(K key) {
    Objects.requireNonNull(key, "key");
    requireOpen();
    return stage(calls.submitRead("getAsync", key, d -> reads.get(key, d), reads.batchedGets()));
  }

  @Override
  public CompletionStage<Map<K, V>> getAllAsync(Set<? extends K> keys) {
    Set<K> copy = copy(keys, "getAllAsync");
    return issue("getAllAsync", copy, d -> reads.getAll(copy, d));
  }

  @Override
  public CompletionStage<Boolean> containsKeyAsync(K key) {
    return one("containsKeyAsync", key, d -> reads.containsKey(key, d));
  }

  @Override
  public CompletionStage<Void> putAsync(K key, V value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    requireOpen();
    Function<Deadline, Void> alone =
        d -> {
          keys.put(key, value, d);
          return null;
        };
    AsyncCalls.BatchWrite<Void> batch = batches.batchedPuts();
    return stage(
        batch == null
            ? calls.submit("putAsync", List.of(key), alone)
            : calls.submitWrite("putAsync", key, value, alone, batch));
  }

  @Override
  public CompletionStage<V> getAndPutAsync(K key, V value) {
    Objects.requireNonNull(value, "value");
    return one("getAndPutAsync", key, d -> keys.getAndPut(key, value, d));
  }

  @Override
  public CompletionStage<Void> putAllAsync(Map<? extends K, ? extends V> map) {
    Objects.requireNonNull(map, "map");
    Map<K, V> copy = new LinkedHashMap<>(map);
    for (Map.Entry<K, V> e : copy.entrySet()) {
      Objects.requireNonNull(e.getKey(), "a key in putAllAsync");
      Objects.requireNonNull(e.getValue(), "a value in putAllAsync");
    }
    return issue(
        "putAllAsync",
        copy.keySet(),
        d -> {
          batches.putAll(copy, d);
          return null;
        });
  }

  @Override
  public CompletionStage<Boolean> putIfAbsentAsync(K key, V value) {
    Objects.requireNonNull(value, "value");
    return one("putIfAbsentAsync", key, d -> keys.putIfAbsent(key, value, d));
  }

  @Override
  public CompletionStage<Boolean> removeAsync(K key) {
    return one("removeAsync", key, d -> keys.remove(key, d));
  }

  @Override
  public CompletionStage<Boolean> removeAsync(K key, V oldValue) {
    Objects.requireNonNull(oldValue, "old value");
    return one("removeAsync", key, d -> keys.remove(key, oldValue, d));
  }

  @Override
  public CompletionStage<V> getAndRemoveAsync(K key) {
    return one("getAndRemoveAsync", key, d -> keys.getAndRemove(key, d));
  }

  @Override
  public CompletionStage<Void> removeAllAsync(Set<? extends K> keys) {
    Set<K> copy = copy(keys, "removeAllAsync");
    return issue(
        "removeAllAsync",
        copy,
        d -> { // a deadline per key once it runs, as removeAll(keys): docs/lanes.md, Deadlines
          batches.removeAll(copy);
          return null;
        });
  }

  @Override
  public CompletionStage<Boolean> replaceAsync(K key, V oldValue, V newValue) {
    Objects.requireNonNull(oldValue, "old value");
    Objects.requireNonNull(newValue, "new value");
    return one("replaceAsync", key, d -> keys.replace(key, oldValue, newValue, d));
  }

  @Override
  public CompletionStage<Boolean> replaceAsync(K key, V value) {
    Objects.requireNonNull(value, "value");
    return one("replaceAsync", key, d -> keys.replace(key, value, d));
  }

  @Override
  public CompletionStage<V> getAndReplaceAsync(K key, V value) {
    Objects.requireNonNull(value, "value");
    return one("getAndReplaceAsync", key, d -> keys.getAndReplace(key, value, d));
  }

  @Override
  public <T> CompletionStage<T> invokeAsync(
      K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    Objects.requireNonNull(processor, "entry processor");
    Object[] args = Objects.requireNonNull(arguments, "arguments").clone();
    return one("invokeAsync", key, d -> keys.invoke(key, processor, args, d));
  }

  @Override
  public <T> CompletionStage<Map<K, EntryProcessorResult<T>>> invokeAllAsync(
      Set<? extends K> keys, EntryProcessor<K, V, T> processor, Object... arguments) {
    Set<K> copy = copy(keys, "invokeAllAsync");
    Objects.requireNonNull(processor, "entry processor");
    Object[] args = Objects.requireNonNull(arguments, "arguments").clone();
    // A deadline per key once it runs, as invokeAll: docs/lanes.md, Deadlines.
    return issue("invokeAllAsync", copy, d -> batches.invokeAll(copy, processor, args));
  }

  private <T> CompletionStage<T> one(String operation, K key, Function<Deadline, T> work) {
    Objects.requireNonNull(key, "key");
    return issue(operation, List.of(key), work);
  }

  private <T> CompletionStage<T> issue(
      String operation, Collection<K> keys, Function<Deadline, T> work) {
    requireOpen();
    return stage(calls.submit(operation, keys, work));
  }

  private void requireOpen() {
    if (cache.isClosed()) {
      throw new IllegalStateException("cache '" + cache.getName() + "' is closed");
    }
  }

  /** The caller's stage of an issued operation: on the view's executor, if it has one. */
  private <T> CompletionStage<T> stage(CompletableFuture<T> result) {
    if (executor == null) {
      return result;
    }
    // The stage then completes on the executor: so do dependents added before it completes.
    CompletableFuture<T> stage = result.whenCompleteAsync((value, failure) -> {}, executor);
    // Cancelling the stage the caller holds withdraws the operation, as without an executor.
    stage.whenComplete(
        (value, failure) -> {
          if (stage.isCancelled()) {
            result.cancel(false);
          }
        });
    return stage;
  }

  private static <K> Set<K> copy(Set<? extends K> keys, String operation) {
    Objects.requireNonNull(keys, "keys");
    Set<K> copy = new LinkedHashSet<>(keys);
    for (K key : copy) {
      Objects.requireNonNull(key, "a key in " + operation);
    }
    return copy;
  }
}
