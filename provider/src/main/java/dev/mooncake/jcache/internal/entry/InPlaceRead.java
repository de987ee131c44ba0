package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.backend.StoreStatus;
import java.nio.ByteBuffer;

/**
 * The bytes a zero-copy read may have left in a caller's buffer, and their removal. The store
 * transfers straight into the caller's destination and the bytes are checked afterwards, so until
 * they pass they may be another key's (a reused block, a torn replace): each attempt that may have
 * transferred marks its range, and the range is zeroed before the next attempt and before a miss or
 * a failure is answered. A miss where nothing was transferred leaves the destination as it was.
 */
final class InPlaceRead {
  /** Copied from (never written): zeroing costs one bulk copy per 64 KiB, no allocation. */
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024).asReadOnlyBuffer();

  private final ByteBuffer destination;
  private final int start;
  private final int end;

  /** Bytes from {@link #start} that may hold unchecked bytes now: 0 when none. */
  private int exposed;

  InPlaceRead(ByteBuffer destination) {
    this.destination = destination;
    this.start = destination.position();
    this.end = destination.limit();
  }

  int start() {
    return start;
  }

  /**
   * Notes what one transfer answered: a length is the range written; a code that fails before any
   * transfer (a miss, a replica not ready) wrote nothing; any other code may have written part of
   * the destination (a transfer cut off by an unreachable segment or a lease that ran out).
   */
  long answered(long length) {
    if (length >= 0) {
      exposed = Math.max(exposed, (int) Math.min(length, end - start));
    } else if (!failsBeforeTransfer(StoreStatus.of(length))) {
      exposed = end - start;
    }
    return length;
  }

  /** Whether a read answering {@code status} was refused before any byte moved. */
  private static boolean failsBeforeTransfer(StoreStatus status) {
    return status == StoreStatus.OBJECT_NOT_FOUND || status == StoreStatus.REPLICA_IS_NOT_READY;
  }

  /** A transfer that threw: whatever it reached may have been written. */
  void threw() {
    exposed = end - start;
  }

  /** Zeroes what earlier transfers may have written (before a retry, a miss or a failure). */
  void scrub() {
    zero(destination, start, start + exposed);
    exposed = 0;
  }

  /** Zeroes {@code buffer[from, to)} with bulk copies; position and limit are unchanged. */
  static void zero(ByteBuffer buffer, int from, int to) {
    ByteBuffer target = buffer.duplicate().clear();
    for (int at = from; at < to; ) {
      int n = Math.min(to - at, ZEROS.capacity());
      target.limit(at + n).position(at);
      target.put(ZEROS.duplicate().limit(n));
      at += n;
    }
  }
}
