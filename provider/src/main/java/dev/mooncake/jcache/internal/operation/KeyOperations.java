package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.internal.entry.Decision;
import dev.mooncake.jcache.internal.entry.EntryMap;
import dev.mooncake.jcache.internal.entry.Outcome;
import dev.mooncake.jcache.internal.time.Deadline;
import java.util.Objects;
import javax.cache.processor.EntryProcessor;

/**
 * The single-key writes of JCache, each written once under its caller's deadline (a synchronous
 * call's starts at the call, an asynchronous one's at its issue): what its step decides and what it
 * counts ({@link Counting}). Every one is the same skeleton, {@link #run}: the checks, then one
 * atomic step of the entry map (whose listener publishes the events under the key's lock), then a
 * wait for synchronous listeners with the lock released, then the statistics.
 */
public final class KeyOperations<K, V> {
  private final CacheContext<K, V> context;
  private final ProcessorDecisions<K, V> processors;

  public KeyOperations(CacheContext<K, V> context) {
    this.context = context;
    this.processors = new ProcessorDecisions<>(context);
  }

  public void put(K key, V value, Deadline deadline) {
    String storeKey = context.openKey(key);
    context.checkValue(value);
    boolean blind = context.blindWritesAllowed();
    EntryMap.Remapping write =
        blind ? context.writingBlind(key, value) : context.writing(key, value);
    run(Counting.PUT, key, storeKey, write, blind ? Step.UNREAD : Step.REMEMBERED, deadline);
  }

  public V getAndPut(K key, V value, Deadline deadline) {
    String storeKey = context.openKey(key);
    context.checkValue(value);
    EntryMap.Remapping write = context.writing(key, value);
    return context.previous(
        run(Counting.GET_AND_PUT, key, storeKey, write, Step.REMEMBERED, deadline));
  }

  public boolean putIfAbsent(K key, V value, Deadline deadline) {
    String storeKey = context.openKey(key);
    context.checkValue(value);
    EntryMap.Remapping write = context.writing(key, value);
    EntryMap.Remapping ifAbsent = current -> current != null ? Decision.KEEP : write.remap(null);
    return run(Counting.PUT_IF_ABSENT, key, storeKey, ifAbsent, Step.READ, deadline).changed();
  }

  public boolean remove(K key, Deadline deadline) {
    String storeKey = context.openKey(key);
    EntryMap.Remapping remove = context.removing(key);
    return run(Counting.REMOVE, key, storeKey, remove, Step.REMEMBERED, deadline).changed();
  }

  public boolean remove(K key, V oldValue, Deadline deadline) {
    String storeKey = context.openKey(key);
    context.checkValue(oldValue);
    EntryMap.Remapping remove = ifHolding(oldValue, context.removing(key));
    return run(Counting.REMOVE_IF_HOLDING, key, storeKey, remove, Step.READ, deadline).changed();
  }

  public V getAndRemove(K key, Deadline deadline) {
    String storeKey = context.openKey(key);
    EntryMap.Remapping remove = context.removing(key);
    return context.previous(
        run(Counting.GET_AND_REMOVE, key, storeKey, remove, Step.REMEMBERED, deadline));
  }

  public boolean replace(K key, V oldValue, V newValue, Deadline deadline) {
    String storeKey = context.openKey(key);
    context.checkValue(oldValue);
    context.checkValue(newValue);
    EntryMap.Remapping replace = ifHolding(oldValue, context.writing(key, newValue));
    return run(Counting.REPLACE_IF_HOLDING, key, storeKey, replace, Step.READ, deadline).changed();
  }

  public boolean replace(K key, V value, Deadline deadline) {
    String storeKey = context.openKey(key);
    context.checkValue(value);
    EntryMap.Remapping replace = CacheContext.ifPresent(context.writing(key, value));
    return run(Counting.REPLACE, key, storeKey, replace, Step.REMEMBERED, deadline).changed();
  }

  public V getAndReplace(K key, V value, Deadline deadline) {
    String storeKey = context.openKey(key);
    context.checkValue(value);
    EntryMap.Remapping replace = CacheContext.ifPresent(context.writing(key, value));
    return context.previous(
        run(Counting.GET_AND_REPLACE, key, storeKey, replace, Step.REMEMBERED, deadline));
  }

  public <T> T invoke(
      K key, EntryProcessor<K, V, T> processor, Object[] arguments, Deadline deadline) {
    String storeKey = context.openKey(key);
    Objects.requireNonNull(processor, "entry processor");
    Objects.requireNonNull(arguments, "arguments");
    EntryMap.Remapping process = processors.running(key, processor, arguments);
    return CacheContext.typed(
        run(Counting.NONE, key, storeKey, process, Step.REMEMBERED, deadline).result());
  }

  /** How a step learns the entry it decides on. */
  private enum Step {
    /** It reads the entry ({@link EntryMap#compute}): for steps that often keep it. */
    READ,
    /** It does not ({@link EntryMap#computeUnread}): a put nothing about the old entry changes. */
    UNREAD,
    /**
     * It uses the entry a kept lock remembers, else reads ({@link EntryMap#computeRemembered}): for
     * steps that most often write or remove a present entry.
     */
    REMEMBERED
  }

  /**
   * The skeleton of every single-key write: one atomic step on the key (learning the old entry as
   * {@code step} says), then a wait for synchronous listeners with the key's lock released, then
   * the statistics. A step that throws still waits for the listeners of what it published, their
   * failures suppressed into its own.
   */
  private Outcome run(
      Counting counting,
      K key,
      String storeKey,
      EntryMap.Remapping remapping,
      Step step,
      Deadline deadline) {
    long start = context.statistics.start();
    Outcome outcome;
    try {
      outcome =
          switch (step) {
            case READ -> context.entries.compute(key, storeKey, remapping, deadline);
            case UNREAD -> context.entries.computeUnread(key, storeKey, remapping, deadline);
            case REMEMBERED ->
                context.entries.computeRemembered(key, storeKey, remapping, deadline);
          };
    } catch (RuntimeException e) {
      context.listeners.awaitSuppressing(e);
      throw e;
    }
    context.listeners.await();
    counting.count(context.statistics, outcome, start);
    return outcome;
  }

  /**
   * The step of {@code remove(k, v)} and {@code replace(k, v, w)}: {@code act} runs only when the
   * live entry holds {@code expected}. No entry: nothing happens; another value: the comparison
   * read it, so it is an access (the policy may give it a new expiry time). The lookup is counted
   * either way ({@link Counting}: a hit when an entry was there).
   */
  private EntryMap.Remapping ifHolding(V expected, EntryMap.Remapping act) {
    return current -> {
      if (current == null) {
        return Decision.KEEP;
      }
      if (!expected.equals(current.value())) {
        return Decision.touch(context.expiry.forAccess(context.now()));
      }
      return act.remap(current);
    };
  }
}
