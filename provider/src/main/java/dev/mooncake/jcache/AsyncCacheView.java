package dev.mooncake.jcache;

import dev.mooncake.jcache.async.AsyncCalls;
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
import java.util.function.Supplier;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorResult;

/**
 * {@link MooncakeCacheAsync} over a {@link MooncakeCache}: each operation is the cache's own
 * synchronous method, issued through the manager's {@link AsyncCalls}. Arguments are checked and
 * collections copied on the caller's thread, so a later change to them changes nothing issued.
 */
final class AsyncCacheView<K, V> implements MooncakeCacheAsync<K, V> {
  private final MooncakeCache<K, V> cache;
  private final AsyncCalls.Scope calls;
  private final Executor executor; // null: dependents run on the provider thread

  AsyncCacheView(MooncakeCache<K, V> cache, AsyncCalls.Scope calls, Executor executor) {
    this.cache = cache;
    this.calls = calls;
    this.executor = executor;
  }

  @Override
  public MooncakeCacheAsync<K, V> withExecutor(Executor executor) {
    return new AsyncCacheView<>(cache, calls, Objects.requireNonNull(executor, "executor"));
  }

  @Override
  public CompletionStage<V> getAsync(K key) {
    return one("getAsync", key, () -> cache.get(key));
  }

  @Override
  public CompletionStage<Map<K, V>> getAllAsync(Set<? extends K> keys) {
    Set<K> copy = copy(keys, "getAllAsync");
    return issue("getAllAsync", copy, () -> cache.getAll(copy));
  }

  @Override
  public CompletionStage<Boolean> containsKeyAsync(K key) {
    return one("containsKeyAsync", key, () -> cache.containsKey(key));
  }

  @Override
  public CompletionStage<Void> putAsync(K key, V value) {
    Objects.requireNonNull(value, "value");
    return one(
        "putAsync",
        key,
        () -> {
          cache.put(key, value);
          return null;
        });
  }

  @Override
  public CompletionStage<V> getAndPutAsync(K key, V value) {
    Objects.requireNonNull(value, "value");
    return one("getAndPutAsync", key, () -> cache.getAndPut(key, value));
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
        () -> {
          cache.putAll(copy);
          return null;
        });
  }

  @Override
  public CompletionStage<Boolean> putIfAbsentAsync(K key, V value) {
    Objects.requireNonNull(value, "value");
    return one("putIfAbsentAsync", key, () -> cache.putIfAbsent(key, value));
  }

  @Override
  public CompletionStage<Boolean> removeAsync(K key) {
    return one("removeAsync", key, () -> cache.remove(key));
  }

  @Override
  public CompletionStage<Boolean> removeAsync(K key, V oldValue) {
    Objects.requireNonNull(oldValue, "old value");
    return one("removeAsync", key, () -> cache.remove(key, oldValue));
  }

  @Override
  public CompletionStage<V> getAndRemoveAsync(K key) {
    return one("getAndRemoveAsync", key, () -> cache.getAndRemove(key));
  }

  @Override
  public CompletionStage<Void> removeAllAsync(Set<? extends K> keys) {
    Set<K> copy = copy(keys, "removeAllAsync");
    return issue(
        "removeAllAsync",
        copy,
        () -> {
          cache.removeAll(copy);
          return null;
        });
  }

  @Override
  public CompletionStage<Boolean> replaceAsync(K key, V oldValue, V newValue) {
    Objects.requireNonNull(oldValue, "old value");
    Objects.requireNonNull(newValue, "new value");
    return one("replaceAsync", key, () -> cache.replace(key, oldValue, newValue));
  }

  @Override
  public CompletionStage<Boolean> replaceAsync(K key, V value) {
    Objects.requireNonNull(value, "value");
    return one("replaceAsync", key, () -> cache.replace(key, value));
  }

  @Override
  public CompletionStage<V> getAndReplaceAsync(K key, V value) {
    Objects.requireNonNull(value, "value");
    return one("getAndReplaceAsync", key, () -> cache.getAndReplace(key, value));
  }

  @Override
  public <T> CompletionStage<T> invokeAsync(
      K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    Objects.requireNonNull(processor, "entry processor");
    Object[] args = Objects.requireNonNull(arguments, "arguments").clone();
    return one("invokeAsync", key, () -> cache.invoke(key, processor, args));
  }

  @Override
  public <T> CompletionStage<Map<K, EntryProcessorResult<T>>> invokeAllAsync(
      Set<? extends K> keys, EntryProcessor<K, V, T> processor, Object... arguments) {
    Set<K> copy = copy(keys, "invokeAllAsync");
    Objects.requireNonNull(processor, "entry processor");
    Object[] args = Objects.requireNonNull(arguments, "arguments").clone();
    return issue("invokeAllAsync", copy, () -> cache.invokeAll(copy, processor, args));
  }

  private <T> CompletionStage<T> one(String operation, K key, Supplier<T> work) {
    Objects.requireNonNull(key, "key");
    return issue(operation, List.of(key), work);
  }

  private <T> CompletionStage<T> issue(String operation, Collection<K> keys, Supplier<T> work) {
    if (cache.isClosed()) {
      throw new IllegalStateException("cache '" + cache.getName() + "' is closed");
    }
    CompletableFuture<T> result = calls.submit(operation, keys, work);
    // The stage then completes on the executor: so do dependents added before it completes.
    return executor == null ? result : result.whenCompleteAsync((value, failure) -> {}, executor);
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
