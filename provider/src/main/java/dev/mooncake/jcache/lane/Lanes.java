package dev.mooncake.jcache.lane;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Worker lanes for store calls (placeholder: a single shared pool; the real per-lane pools are
 * built here).
 */
public final class Lanes implements AutoCloseable {
  private final ExecutorService shared;
  private final boolean singleCallsOnLanes;

  public Lanes(
      int numWorkers, Map<Lane, Integer> perOpWorkers, boolean singleCallsOnLanes, String name) {
    this.shared = Executors.newFixedThreadPool(numWorkers);
    this.singleCallsOnLanes = singleCallsOnLanes;
  }

  /** The executor that runs a lane's work. */
  public ExecutorService executor(Lane lane) {
    return shared;
  }

  /** Runs one synchronous store call: on the caller's thread, or on the lane when so configured. */
  public <T> T call(Lane lane, Supplier<T> call) {
    if (!singleCallsOnLanes) {
      return call.get();
    }
    return submit(lane, call).join();
  }

  /** Runs a store call on its lane. */
  public <T> CompletableFuture<T> submit(Lane lane, Supplier<T> call) {
    return CompletableFuture.supplyAsync(call, executor(lane));
  }

  @Override
  public void close() {
    shared.shutdown();
  }
}
