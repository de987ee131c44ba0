package dev.mooncake.jcache.internal.backend;

/**
 * Counts how long the answers about one object have said -703 (a put in flight) in a row, to tell
 * when the put counts as one that never lands ({@link StoreStatus#STUCK_PUT_NANOS}). Shared by the
 * entry layer's removes and the cluster locks' size asks. One per retry loop; not thread-safe.
 */
public final class StuckPutWatch {
  private boolean inFlight; // whether the answers since the last reset said -703
  private long since; // clock of the first of them

  /**
   * Notes a -703 answer at {@code now} (nanos of the loop's clock); true once such answers have
   * lasted {@link StoreStatus#STUCK_PUT_NANOS}, and then counts again from the next one.
   */
  public boolean stuckAt(long now) {
    if (!inFlight) {
      inFlight = true;
      since = now;
      return false;
    }
    if (now - since < StoreStatus.STUCK_PUT_NANOS) {
      return false;
    }
    inFlight = false; // at most one "stuck" per STUCK_PUT_NANOS
    return true;
  }

  /** Notes an answer that was not -703: the next one starts the count. */
  public void reset() {
    inFlight = false;
  }
}
