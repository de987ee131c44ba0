package dev.mooncake.jcache.history;

/** The outcome of checking one key. */
public enum Verdict {
  LINEARIZABLE,
  NOT_LINEARIZABLE,
  /** The budget (time, or memory for the search's memo) ran out before a verdict. */
  UNDECIDED
}
