package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.config.ConfigLoader;
import java.net.URI;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Counts the Mooncake ABI calls that the shared client of a config makes while attached, by the
 * {@link MooncakeStore} operation that made them ({@code get_into}, {@code put}, {@code
 * batch_get_into} ...), and the ones that answered an error, by operation and code: what the
 * real-Mooncake round-trip test asserts per JCache operation. The client is the one every cache
 * manager of that config shares (SharedMooncakeStores), so a manager opened before attaching is
 * counted too.
 */
public final class StoreCallTally implements AutoCloseable {
  private static final Map<String, String> OPERATIONS =
      Map.ofEntries(
          Map.entry("getInto", "get_into"),
          Map.entry("batchGetInto", "batch_get_into"),
          Map.entry("put", "put"),
          Map.entry("putPinnedInOwnSegment", "put_pinned"),
          Map.entry("batchPut", "batch_put"),
          Map.entry("batchPutPinnedInOwnSegment", "batch_put_pinned"),
          Map.entry("getSize", "get_size"),
          Map.entry("isExist", "is_exist"),
          Map.entry("batchIsExist", "batch_is_exist"),
          Map.entry("remove", "remove"),
          Map.entry("removeByRegex", "remove_by_regex"));

  private final SharedMooncakeStores.Lease lease;
  private final Map<String, Integer> calls = new TreeMap<>();
  private final Map<String, Integer> errors = new TreeMap<>();

  private StoreCallTally(SharedMooncakeStores.Lease lease) {
    this.lease = lease;
    lease.store().interceptCalls(call -> () -> record(operation(), call.call()));
  }

  /** Starts counting the calls of the client that {@code config} (a provider URI) connects. */
  public static StoreCallTally attach(URI config, ClassLoader loader) {
    return new StoreCallTally(SharedMooncakeStores.open(ConfigLoader.load(config, loader)));
  }

  /** The calls of a keeping JVM's sweep (lock keeping), off every caller's path: named apart. */
  static final String KEEPER_THREAD = "mooncake-lock-keeper";

  private static String operation() {
    String operation = callerOperation();
    return Thread.currentThread().getName().equals(KEEPER_THREAD)
        ? operation + " (keeper)"
        : operation;
  }

  private static String callerOperation() {
    return StackWalker.getInstance()
        .walk(
            frames ->
                frames
                    .filter(f -> f.getClassName().equals(MooncakeStore.class.getName()))
                    .map(f -> OPERATIONS.get(f.getMethodName()))
                    .filter(Objects::nonNull)
                    .reduce((inner, outer) -> outer) // putPinned... calls put's helpers: outermost
                    .orElse("other"));
  }

  private synchronized long record(String operation, long result) {
    calls.merge(operation, 1, Integer::sum);
    if (result < 0) {
      errors.merge(operation + " " + result, 1, Integer::sum);
    }
    return result;
  }

  /** The calls so far, by operation; and sets the counts back to zero. */
  public synchronized Map<String, Integer> takeCalls() {
    Map<String, Integer> taken = new TreeMap<>(calls);
    calls.clear();
    return taken;
  }

  /** The calls that answered an error so far, by "operation code"; and sets them back to zero. */
  public synchronized Map<String, Integer> takeErrors() {
    Map<String, Integer> taken = new TreeMap<>(errors);
    errors.clear();
    return taken;
  }

  @Override
  public void close() {
    lease.store().interceptCalls(null);
    lease.close();
  }
}
