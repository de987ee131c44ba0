package dev.mooncake.jcache.internal.entry;

/**
 * What an atomic step of {@link EntryMap} did: the live entry it started from, the decision it
 * applied, and whether the store changed (a value written, an entry removed).
 *
 * @param previous the live entry before the step, or null when there was none
 * @param decision the decision the step applied
 * @param changed whether the step wrote a value or removed an entry
 */
public record Outcome(StoredEntry previous, Decision decision, boolean changed) {

  /** Whether there was a live entry before the step. */
  public boolean found() {
    return previous != null;
  }

  /** The result the decision carried ({@link Decision#returning}), or null. */
  public Object result() {
    return decision.result();
  }
}
