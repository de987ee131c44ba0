package dev.mooncake.jcache.internal.processor;

/** What an entry processor did to its entry, in order of dominance. */
public enum Action {
  /** Nothing observable. */
  NONE,
  /** Read an existing value. */
  READ,
  /** Loaded a missing value through the cache loader. */
  LOADED,
  /** Set a value where there was none. */
  CREATED,
  /** Replaced an existing value. */
  UPDATED,
  /** Removed the entry. */
  DELETED
}
