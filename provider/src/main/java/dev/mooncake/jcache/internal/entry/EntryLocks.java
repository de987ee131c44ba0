package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import java.util.ArrayList;
import java.util.List;

/**
 * The key locks as entry code takes them: every acquisition answers a {@link LockedKey}, so a key
 * is mutated only through the object that carries its lock's proof. The read protocol's stamps pass
 * through.
 */
final class EntryLocks {
  private final EntryStorage storage;
  private final KeyLocks locks;

  EntryLocks(EntryStorage storage, KeyLocks locks) {
    this.storage = storage;
    this.locks = locks;
  }

  /**
   * Locks the key with a read of its entry riding along (see {@link KeyLocks#lock}): a lock that
   * reads the store to prove itself held reads the entry in the same call.
   */
  LockedKey lock(String storeKey, Deadline deadline) {
    EntryStorage.EntryRead read = storage.entryRead(storeKey, deadline);
    try {
      return new LockedKey(read, locks.lock(storeKey, read, deadline));
    } catch (RuntimeException | Error e) {
      read.close(); // a buffer the lock asked for goes back
      throw e;
    }
  }

  /**
   * Locks the key with nothing riding along, for steps that read the key their own way (zero-copy
   * into the caller's buffer) or not at all. Its entry, if asked, is read under the lock.
   */
  LockedKey lockWithoutRide(String storeKey, Deadline deadline) {
    return new LockedKey(
        storage.entryRead(storeKey, deadline), locks.lock(storeKey, null, deadline));
  }

  /**
   * Locks the keys, in their shared order, as one batch ({@link KeyLocks#lockAll}); nothing rides.
   * Close the answer with {@link #closeAll}.
   */
  List<LockedKey> lockAll(String[] orderedKeys, Deadline deadline) {
    List<KeyLocks.Held> held = locks.lockAll(orderedKeys, deadline);
    List<LockedKey> locked = new ArrayList<>(held.size());
    for (int i = 0; i < orderedKeys.length; i++) {
      locked.add(new LockedKey(storage.entryRead(orderedKeys[i], deadline), held.get(i)));
    }
    return locked;
  }

  /** Releases every key of a {@link #lockAll} answer, the last first. */
  static void closeAll(List<LockedKey> locked) {
    for (int i = locked.size() - 1; i >= 0; i--) {
      locked.get(i).close();
    }
  }

  /** {@link KeyLocks#readStamp}. */
  long readStamp(String storeKey) {
    return locks.readStamp(storeKey);
  }

  /** {@link KeyLocks#mayHaveChanged}. */
  boolean mayHaveChanged(String storeKey, long stamp) {
    return locks.mayHaveChanged(storeKey, stamp);
  }
}
