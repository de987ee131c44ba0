package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.CacheEntry;
import dev.mooncake.jcache.internal.entry.Decision;
import dev.mooncake.jcache.internal.entry.EntryMap;
import dev.mooncake.jcache.internal.entry.StoredEntry;
import dev.mooncake.jcache.internal.processor.ProcessorEntry;
import java.util.function.Function;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;

/**
 * An entry processor as one step's remapping: the processor runs under the key's lock on a {@link
 * ProcessorEntry}, and what it did becomes the step's decision, with the writer call and the puts
 * and removals it counts (JSR-107 counts a processor's effects, not the invoke).
 */
final class ProcessorDecisions<K, V> {
  private final CacheContext<K, V> context;

  ProcessorDecisions(CacheContext<K, V> context) {
    this.context = context;
  }

  /** The remapping that runs {@code processor} and answers its result with the decision. */
  <T> EntryMap.Remapping running(K key, EntryProcessor<K, V, T> processor, Object[] arguments) {
    return current -> {
      context.statistics.lookup(current != null);
      Function<K, V> load = context.readThrough() ? context.loader::load : null;
      ProcessorEntry<K, V> entry =
          new ProcessorEntry<>(key, current == null ? null : CacheContext.value(current), load);
      try {
        T result = processor.process(entry, arguments);
        return processed(key, entry, current).returning(result);
      } catch (EntryProcessorException e) {
        throw e;
      } catch (IllegalStateException e) {
        if (context.isClosed()) {
          throw e; // closed under the call: JSR-107's failure for a closed cache, not the
          // processor's
        }
        throw new EntryProcessorException(e);
      } catch (Exception e) {
        throw new EntryProcessorException(e);
      }
    };
  }

  /** The decision for what an entry processor did; calls the writer, counts puts and removals. */
  private Decision processed(K key, ProcessorEntry<K, V> entry, StoredEntry current) {
    switch (entry.action()) {
      case NONE:
        return Decision.KEEP;
      case READ:
        return Decision.touch(context.expiry.forAccess(context.now()));
      case LOADED:
        context.checkValue(entry.getValue());
        return context.writeDecision(entry.getValue(), null); // a load: no writer, no put counted
      case CREATED:
        {
          V value = entry.getValue();
          context.checkValue(value);
          context.writer.write(new CacheEntry<>(key, value));
          Decision decision = context.writeDecision(value, null);
          if (decision != Decision.KEEP) {
            context.statistics.puts(1);
          }
          return decision;
        }
      case UPDATED:
        {
          V value = entry.getValue();
          context.checkValue(value);
          context.writer.write(new CacheEntry<>(key, value));
          context.statistics.puts(1);
          return context.writeDecision(value, current);
        }
      case DELETED:
        context.writer.delete(key);
        if (current == null) {
          return Decision.KEEP;
        }
        context.statistics.removals(1);
        return Decision.REMOVE;
      default:
        throw new AssertionError(entry.action());
    }
  }
}
