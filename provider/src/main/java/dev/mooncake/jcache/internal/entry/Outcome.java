package dev.mooncake.jcache.internal.entry;

/**
 * What an atomic step of {@link EntryMap} did: the live entry it started from, the decision it
 * applied, and whether the store changed (a value written, an entry removed).
 */
public final class Outcome {
  private final StoredEntry previous;
  private final Decision decision;
  private final boolean changed;

  Outcome(StoredEntry previous, Decision decision, boolean changed) {
    this.previous = previous;
    this.decision = decision;
    this.changed = changed;
  }

  /** The live entry before the step, or null when there was none. */
  public StoredEntry previous() {
    return previous;
  }

  /** Whether there was a live entry before the step. */
  public boolean found() {
    return previous != null;
  }

  /** Whether the step wrote a value or removed an entry. */
  public boolean changed() {
    return changed;
  }

  /** The result the decision carried ({@link Decision#returning}), or null. */
  public Object result() {
    return decision.result();
  }
}
