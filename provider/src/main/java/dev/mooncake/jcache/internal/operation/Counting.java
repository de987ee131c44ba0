package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.internal.entry.Outcome;
import dev.mooncake.jcache.internal.management.CacheStatistics;

/**
 * What each single-key operation counts in the cache's statistics, from its step's outcome: the
 * JSR-107 rules in one table (a lookup is a hit or a miss; a put or removal counts only when the
 * entry changed; the getAnd… operations and the replaces also count as gets).
 */
record Counting(Counting.Lookup lookup, Counting.Change change, boolean get) {
  /** put: a put when it stored. */
  static final Counting PUT = new Counting(Lookup.NONE, Change.PUT, false);

  /** getAndPut: a lookup, a put, a get. */
  static final Counting GET_AND_PUT = new Counting(Lookup.FOUND, Change.PUT, true);

  /** putIfAbsent: a lookup, a put when it stored. */
  static final Counting PUT_IF_ABSENT = new Counting(Lookup.FOUND, Change.PUT, false);

  /** remove(k): a removal when there was an entry. */
  static final Counting REMOVE = new Counting(Lookup.NONE, Change.REMOVAL, false);

  /** remove(k, v): a lookup, a removal when the value matched. */
  static final Counting REMOVE_IF_HOLDING = new Counting(Lookup.FOUND, Change.REMOVAL, false);

  /** getAndRemove: a hit and a removal, or a miss; a get. */
  static final Counting GET_AND_REMOVE = new Counting(Lookup.HIT_CHANGES, Change.REMOVAL, true);

  /** replace(k, old, new): a lookup, a put when the value matched, a get. */
  static final Counting REPLACE_IF_HOLDING = new Counting(Lookup.FOUND, Change.PUT, true);

  /** replace(k, v): a hit when it replaced, else a miss; a put when it did; a get. */
  static final Counting REPLACE = new Counting(Lookup.CHANGED, Change.PUT, true);

  /** getAndReplace: a hit and a put, or a miss; a get. */
  static final Counting GET_AND_REPLACE = new Counting(Lookup.HIT_CHANGES, Change.PUT, true);

  /** invoke: the processor's own puts and removals, counted in its step. */
  static final Counting NONE = new Counting(Lookup.NONE, Change.NONE, false);

  enum Lookup {
    NONE,
    /** a hit when an entry was found */
    FOUND,
    /** a hit when the entry changed */
    CHANGED,
    /** a hit, and the change counted, when an entry was found; else a miss */
    HIT_CHANGES
  }

  enum Change {
    NONE,
    PUT,
    REMOVAL
  }

  /** Counts the operation whose step started at {@code start} and answered {@code outcome}. */
  void count(CacheStatistics statistics, Outcome outcome, long start) {
    boolean changed;
    switch (lookup) {
      case FOUND -> {
        statistics.lookup(outcome.found());
        changed = outcome.changed();
      }
      case CHANGED -> {
        statistics.lookup(outcome.changed());
        changed = outcome.changed();
      }
      case HIT_CHANGES -> {
        statistics.lookup(outcome.found());
        changed = outcome.found();
      }
      default -> changed = outcome.changed();
    }
    if (changed && change == Change.PUT) {
      statistics.put(start);
    } else if (changed && change == Change.REMOVAL) {
      statistics.removal(start);
    }
    if (get) {
      statistics.getTime(start);
    }
  }
}
