package dev.mooncake.jcache.history;

/**
 * The kinds of operation on one JCache entry (value: a String, or absent), with their JSR-107
 * semantics. Results are text: a value, {@code "null"} for an absent value, {@code "true"} / {@code
 * "false"}, or {@code "ok"}.
 */
public enum OpKind {
  /** Result: the value or "null". */
  GET,
  /** Result: "true" / "false". */
  CONTAINS_KEY,
  /** Argument: value; result: "ok" (ignored). */
  PUT,
  /** Argument: value; result "true"/"false". */
  PUT_IF_ABSENT,
  /** Argument: value; result "true"/"false" (replaced only if present). */
  REPLACE,
  /** Argument: expected old value, argument2: new value; result "true"/"false". */
  REPLACE_IF_EQUALS,
  /** Result "true"/"false". */
  REMOVE,
  /**
   * A remove whose answer says nothing of the prior state: {@code removeAll(keys)}'s part for one
   * key. Result: "ok" (ignored); the entry is absent after it.
   */
  REMOVE_BLIND,
  /** Argument: expected value; result "true"/"false". */
  REMOVE_IF_EQUALS,
  /** Argument: value; result: old value or "null". */
  GET_AND_PUT,
  /** Result: old value or "null". */
  GET_AND_REMOVE,
  /** Argument: value; result: old value or "null" (replaces only if present). */
  GET_AND_REPLACE,
  /**
   * An entry processor that returns the old value (or "null") and sets the argument (removes the
   * entry if the argument is null); result: old or "null".
   */
  INVOKE,
  /**
   * Pseudo-op, key == null (applies to every key): the segment named by the argument left the
   * cluster (its JVM was killed or paused past the client TTL). Every value whose segment equals
   * the argument becomes absent, exactly once, at some instant inside [invokedNanos,
   * completedNanos].
   */
  LOSE_SEGMENT,
  /**
   * Pseudo-op, key == null: the master restarted; every value of every key becomes absent, exactly
   * once inside the window.
   */
  LOSE_ALL;

  /** A pseudo-op that applies to every key (its key is null). */
  public boolean isLoss() {
    return this == LOSE_SEGMENT || this == LOSE_ALL;
  }

  /** Reads change nothing: one with an unknown outcome can be left out of a history. */
  public boolean isRead() {
    return this == GET || this == CONTAINS_KEY;
  }

  /** Whether {@code argument} must be a (non-null) value or segment name. */
  boolean needsArgument() {
    return switch (this) {
      case GET, CONTAINS_KEY, REMOVE, REMOVE_BLIND, GET_AND_REMOVE, INVOKE, LOSE_ALL -> false;
      default -> true;
    };
  }
}
