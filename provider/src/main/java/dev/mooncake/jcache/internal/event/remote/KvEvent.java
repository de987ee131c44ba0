package dev.mooncake.jcache.internal.event.remote;

/**
 * One event of Mooncake's KV event stream, reduced to what a cache acts on: the kind, the object
 * key ({@code null} for {@link Kind#CLEARED}), Mooncake's tenant and the medium (a replica tier
 * such as {@code cpu}; a stored object on two tiers gives two STORED events).
 */
public record KvEvent(Kind kind, String objectKey, String tenantId, String medium) {
  /** The master's {@code event_type}s. */
  public enum Kind {
    /** {@code stored}: an object (or one more replica tier of it) became readable. */
    STORED,
    /** {@code removed}: an object (or one tier of it) is gone: remove, eviction, lost segment. */
    REMOVED,
    /** {@code cleared}: every object of a Mooncake tenant is gone. */
    CLEARED
  }
}
