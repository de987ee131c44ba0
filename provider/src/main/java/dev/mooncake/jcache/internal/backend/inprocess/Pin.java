package dev.mooncake.jcache.internal.backend.inprocess;

import dev.mooncake.jcache.config.MooncakeConfig.ReplicaSettings;

/** How an object resists eviction, from Mooncake's replicate_config. */
enum Pin {
  /** Evicted first, least recently leased first. */
  NONE,
  /** Evicted only when unpinned objects do not free enough. */
  SOFT,
  /** Never evicted. */
  HARD;

  static Pin of(ReplicaSettings replica) {
    if (replica.hardPin()) {
      return HARD;
    }
    return replica.softPin() ? SOFT : NONE;
  }
}
