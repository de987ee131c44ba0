package dev.mooncake.jcache.internal.backend;

import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * A read of state that one lock guards: the buffer pools' small accessors (counts that tests and
 * metrics read), which would otherwise each repeat the lock, try and unlock.
 */
public final class LockedRead {
  private LockedRead() {}

  /** {@code read}'s answer, taken while holding {@code lock}. */
  public static <T> T under(Lock lock, Supplier<T> read) {
    lock.lock();
    try {
      return read.get();
    } finally {
      lock.unlock();
    }
  }
}
