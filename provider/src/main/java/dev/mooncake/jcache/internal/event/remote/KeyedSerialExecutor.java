package dev.mooncake.jcache.internal.event.remote;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
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
    executeAfter(key, 0, task);
  }

  /** Runs the task after the key's earlier ones, no sooner than {@code delayMillis} from now. */
  void executeAfter(String key, long delayMillis, Runnable task) {
    Runnable guarded =
        () -> {
          try {
            task.run();
          } catch (RuntimeException e) {
            LOG.warn("remote event delivery for {} failed", key, e);
          }
        };
    Executor runner =
        delayMillis <= 0
            ? executor
            : CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS, executor);
    // Nothing may run inside compute (a task that schedules more would update the map
    // recursively): every step waits for this gate, opened once the chain is in place.
    CompletableFuture<Void> gate = new CompletableFuture<>();
    CompletableFuture<Void> future =
        chains.compute(
            key,
            (k, chain) ->
                (chain == null ? gate : chain.thenCombine(gate, (a, b) -> (Void) null))
                    .thenRunAsync(guarded, runner));
    // The tasks are guarded: this stage only tidies the map, it has no failure to report.
    var unused = future.whenComplete((ignored, error) -> chains.remove(key, future));
    gate.complete(null);
  }

  /** Whether nothing is queued or running (for tests). */
  boolean idle() {
    return chains.isEmpty();
  }
}
