package dev.mooncake.jcache.event.remote;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs tasks on an executor one after another per key, in parallel across keys. */
final class KeyedSerialExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(KeyedSerialExecutor.class);

  private final Executor executor;
  private final ConcurrentMap<String, CompletableFuture<Void>> chains = new ConcurrentHashMap<>();

  KeyedSerialExecutor(Executor executor) {
    this.executor = executor;
  }

  void execute(String key, Runnable task) {
    Runnable guarded = () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.warn("remote event delivery for {} failed", key, e);
      }
    };
    CompletableFuture<Void> future = chains.compute(key, (k, chain) -> chain == null
        ? CompletableFuture.runAsync(guarded, executor)
        : chain.thenRunAsync(guarded, executor));
    future.whenComplete((ignored, error) -> chains.remove(key, future));
  }

  /** Whether nothing is queued or running (for tests). */
  boolean idle() {
    return chains.isEmpty();
  }
}
