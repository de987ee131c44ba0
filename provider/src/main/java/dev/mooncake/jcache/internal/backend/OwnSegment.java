package dev.mooncake.jcache.internal.backend;

import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;

/**
 * A store client that contributes a segment of its own to the cluster (Mooncake in embedded mode
 * with {@code global_segment_size > 0}), and can place objects there. Objects in it disappear when
 * this client leaves the cluster or dies (Mooncake drops a silent client's segment after {@code
 * client_ttl}): what cluster-wide locks rely on to be released by a dead holder.
 */
public interface OwnSegment {

  /** This client's segment name ({@code host:port}, as {@code get_hostname} answers). */
  String ownSegment();

  /**
   * Create-only put of {@code value[position, limit)}: one replica, hard-pinned (never evicted),
   * placed in {@link #ownSegment()}. Codes as {@link ObjectStore#put}.
   */
  int putPinnedInOwnSegment(String key, ByteBuffer value, Deadline deadline);

  /**
   * {@link #putPinnedInOwnSegment} of many keys, in one store call where the client can batch: the
   * answers in the keys' order. This default puts them one at a time.
   */
  default int[] batchPutPinnedInOwnSegment(String[] keys, ByteBuffer[] values, Deadline deadline) {
    int[] answers = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      answers[i] = putPinnedInOwnSegment(keys[i], values[i], deadline);
    }
    return answers;
  }
}
