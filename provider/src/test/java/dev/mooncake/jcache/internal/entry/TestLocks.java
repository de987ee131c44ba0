package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;

/**
 * Locked keys for tests of the storage itself, where the lock is not the subject: a lock that is
 * always held (as local locks are), with no read riding along (so nothing proved exclusive).
 */
final class TestLocks {
  /** A lock that is always held. */
  static final KeyLocks.Held ALWAYS_HELD =
      new KeyLocks.Held() {
        @Override
        public void ensureHeld() {}

        @Override
        public void ensureHeldToReplace(Deadline deadline) {}

        @Override
        public KeyLocks.Memo memo() {
          return null;
        }

        @Override
        public void close() {}
      };

  private TestLocks() {}

  /** {@code key} under a lock that is always held and proved nothing across JVMs. */
  static LockedKey unproved(EntryStorage storage, String key) {
    return held(storage, key, ALWAYS_HELD);
  }

  /** {@code key} under {@code held}, with no read riding along. */
  static LockedKey held(EntryStorage storage, String key, KeyLocks.Held held) {
    return new LockedKey(storage.entryRead(key, Deadline.none()), held);
  }
}
