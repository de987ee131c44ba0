package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.OwnSegment;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;

/**
 * The entries' store as a client's own segment, where its lock objects live: cluster locks over the
 * entry tests' scripted store.
 */
record OwnStore(ObjectStore store, String ownSegment) implements OwnSegment {
  @Override
  public int putPinnedInOwnSegment(String key, ByteBuffer value, Deadline deadline) {
    return store.put(key, value, deadline);
  }
}
