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

  /** A decorator that adds a check to {@link #ensureHeld} adds it here too. */
  @Override
  public void ensureHeldToReplace(Deadline deadline) {
    delegate.ensureHeldToReplace(deadline);
  }

  @Override
  public KeyLocks.Memo memo() {
    return delegate.memo();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
