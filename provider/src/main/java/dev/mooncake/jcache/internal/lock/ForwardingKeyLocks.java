package dev.mooncake.jcache.internal.lock;

import dev.mooncake.jcache.internal.time.Deadline;
import java.util.List;

/**
 * Key locks that forward every call to other key locks: the base of a decorator, which overrides
 * only what it changes. Before, a decorator implemented {@link KeyLocks} itself and had to know
 * which default methods to override: one that forwarded {@code lock(key, deadline)} but not the
 * ride's overload silently cost every locked step its saved read. Here every method of the seam
 * forwards as it is, arguments unchanged (ForwardingSeamTest checks each by reflection).
 */
public abstract class ForwardingKeyLocks implements KeyLocks {
  private final KeyLocks delegate;

  protected ForwardingKeyLocks(KeyLocks delegate) {
    this.delegate = delegate;
  }

  /** The locks calls are forwarded to. */
  protected final KeyLocks delegate() {
    return delegate;
  }

  @Override
  public Held lock(String key, Ride ride, Deadline deadline) {
    return delegate.lock(key, ride, deadline);
  }

  @Override
  public List<Held> lockAll(String[] orderedKeys, Deadline deadline) {
    return delegate.lockAll(orderedKeys, deadline);
  }

  @Override
  public long readStamp(String key) {
    return delegate.readStamp(key);
  }

  @Override
  public boolean mayHaveChanged(String key, long stamp) {
    return delegate.mayHaveChanged(key, stamp);
  }
}
