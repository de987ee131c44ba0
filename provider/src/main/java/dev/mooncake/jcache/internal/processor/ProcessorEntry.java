package dev.mooncake.jcache.internal.processor;

import dev.mooncake.jcache.internal.event.Unwrap;
import java.util.Objects;
import java.util.function.Function;
import javax.cache.processor.MutableEntry;

/**
 * The {@link MutableEntry} an entry processor works on. It records the dominant {@link Action}; the
 * cache applies that action to the store afterwards, inside the same key lock.
 */
public final class ProcessorEntry<K, V> implements MutableEntry<K, V> {
  private final K key;
  private final boolean existed;
  private Function<K, V> loader;
  private V value;
  private Action action = Action.NONE;

  /**
   * @param key the entry's key
   * @param value the current value, or null when absent
   * @param loader loads a missing value on {@link #getValue()} (read-through), or null
   */
  public ProcessorEntry(K key, V value, Function<K, V> loader) {
    this.key = key;
    this.value = value;
    this.existed = value != null;
    this.loader = loader;
  }

  @Override
  public K getKey() {
    return key;
  }

  @Override
  public V getValue() {
    if (action != Action.NONE) {
      return value;
    }
    if (value != null) {
      action = Action.READ;
    } else if (loader != null) {
      value = loader.apply(key);
      loader = null;
      if (value != null) {
        action = Action.LOADED;
      }
    }
    return value;
  }

  @Override
  public boolean exists() {
    return action == Action.NONE ? existed : value != null;
  }

  @Override
  public void remove() {
    // Removing what this processor created leaves nothing to do; anything else is a delete
    // (the writer hears of it even when the entry was absent, as the TCK expects).
    action = action == Action.CREATED ? Action.NONE : Action.DELETED;
    value = null;
  }

  @Override
  public void setValue(V value) {
    Objects.requireNonNull(value, "an entry processor cannot set a null value");
    if (action != Action.CREATED) {
      action = existed ? Action.UPDATED : Action.CREATED;
    }
    this.value = value;
  }

  public Action action() {
    return action;
  }

  /** Whether the entry existed before the processor ran. */
  public boolean existed() {
    return existed;
  }

  @Override
  public <T> T unwrap(Class<T> clazz) {
    return Unwrap.as(this, clazz, "a mutable entry");
  }
}
