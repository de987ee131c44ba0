package dev.mooncake.jcache.internal.lock;

import dev.mooncake.jcache.internal.time.Deadline;

/**
 * A held lock that forwards to another: the base of a decorator of {@link KeyLocks.Held} (one that
 * counts or logs its release), so that the proof of exclusivity ({@link #ensureHeld}) cannot be
 * dropped by a decorator that only meant to change {@link #close}.
 */
public abstract class ForwardingHeld implements KeyLocks.Held {
  private final KeyLocks.Held delegate;

  protected ForwardingHeld(KeyLocks.Held delegate) {
    this.delegate = delegate;
  }

  @Override
  public void ensureHeld() {
    delegate.ensureHeld();
  }

  /**
   * This decorator's {@link #ensureHeld} (a subclass may add a check there), then the delegate's
   * own replace proof (which may renew the lock).
   */
  @Override
  public void ensureHeldToReplace(Deadline deadline) {
    ensureHeld();
    delegate.ensureHeldToReplace(deadline);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
