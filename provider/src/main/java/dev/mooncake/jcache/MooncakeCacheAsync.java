package dev.mooncake.jcache;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorResult;

/**
 * The asynchronous view of a cache: {@code cache.unwrap(MooncakeCacheAsync.class)}. Each method
 * issues the synchronous operation of the same name, run on a provider thread ({@code
 * mooncake-<manager>-async-<n>}), and returns a stage that completes there with its result, or
 * fails with its exception (a {@code CacheWriterException}, say). So every guarantee of the
 * synchronous call holds: per-key atomicity, statistics, listeners, loader and writer, expiry, the
 * near cache, its store calls' deadline.
 *
 * <p>Within one cache, operations issued from this JVM on the same key run and complete in the
 * order they were issued: {@code putAsync(k, 1); putAsync(k, 2)} leaves 2. A batch waits for the
 * earlier operations on any of its keys. Operations on different keys run in parallel.
 *
 * <p>A cache manager holds at most {@code async_max_in_flight} operations issued and not completed;
 * beyond that a method waits for room, at most {@code operation_timeout_ms}, then throws an {@link
 * dev.mooncake.jcache.internal.async.AsyncOverloadException} (at once when called on a provider
 * thread). Null keys, values or processors throw a {@link NullPointerException}, a closed cache an
 * {@link IllegalStateException}, as the synchronous methods do; nothing is issued then.
 *
 * <p>Closing the cache fails its operations that have not started with an {@link
 * IllegalStateException} and waits for the running ones (up to {@code operation_timeout_ms}).
 *
 * <p>Dependents added without an executor to a stage not yet complete run on the provider thread
 * that completes it, and the next operation on the same keys waits for them: keep them short, and
 * never block there on a later operation of the same key. {@link #withExecutor} moves them to an
 * executor of yours. See docs/async.md.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface MooncakeCacheAsync<K, V> {

  /** This view, but its stages complete on {@code executor}: dependents run there. */
  MooncakeCacheAsync<K, V> withExecutor(Executor executor);

  /** {@link javax.cache.Cache#get}. */
  CompletionStage<V> getAsync(K key);

  /** {@link javax.cache.Cache#getAll}. */
  CompletionStage<Map<K, V>> getAllAsync(Set<? extends K> keys);

  /** {@link javax.cache.Cache#containsKey}. */
  CompletionStage<Boolean> containsKeyAsync(K key);

  /** {@link javax.cache.Cache#put}. */
  CompletionStage<Void> putAsync(K key, V value);

  /** {@link javax.cache.Cache#getAndPut}. */
  CompletionStage<V> getAndPutAsync(K key, V value);

  /** {@link javax.cache.Cache#putAll}. */
  CompletionStage<Void> putAllAsync(Map<? extends K, ? extends V> map);

  /** {@link javax.cache.Cache#putIfAbsent}. */
  CompletionStage<Boolean> putIfAbsentAsync(K key, V value);

  /** {@link javax.cache.Cache#remove(Object)}. */
  CompletionStage<Boolean> removeAsync(K key);

  /** {@link javax.cache.Cache#remove(Object, Object)}. */
  CompletionStage<Boolean> removeAsync(K key, V oldValue);

  /** {@link javax.cache.Cache#getAndRemove}. */
  CompletionStage<V> getAndRemoveAsync(K key);

  /** {@link javax.cache.Cache#removeAll(Set)}. */
  CompletionStage<Void> removeAllAsync(Set<? extends K> keys);

  /** {@link javax.cache.Cache#replace(Object, Object, Object)}. */
  CompletionStage<Boolean> replaceAsync(K key, V oldValue, V newValue);

  /** {@link javax.cache.Cache#replace(Object, Object)}. */
  CompletionStage<Boolean> replaceAsync(K key, V value);

  /** {@link javax.cache.Cache#getAndReplace}. */
  CompletionStage<V> getAndReplaceAsync(K key, V value);

  /** {@link javax.cache.Cache#invoke}. */
  <T> CompletionStage<T> invokeAsync(K key, EntryProcessor<K, V, T> processor, Object... arguments);

  /** {@link javax.cache.Cache#invokeAll}. */
  <T> CompletionStage<Map<K, EntryProcessorResult<T>>> invokeAllAsync(
      Set<? extends K> keys, EntryProcessor<K, V, T> processor, Object... arguments);
}
