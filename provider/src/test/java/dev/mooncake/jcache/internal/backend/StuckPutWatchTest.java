package dev.mooncake.jcache.internal.backend;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StuckPutWatchTest {
  private static final long STUCK = StoreStatus.STUCK_PUT_NANOS;

  @Test
  void aPutInFlightIsStuckOnceItsAnswersLastedTheBoundThenCountsAgain() {
    StuckPutWatch watch = new StuckPutWatch();
    long t = -5 * STUCK; // a clock may be negative (System.nanoTime)
    assertFalse(watch.stuckAt(t), "the first -703 starts the count");
    assertFalse(watch.stuckAt(t + STUCK - 1));
    assertTrue(watch.stuckAt(t + STUCK));
    assertFalse(watch.stuckAt(t + STUCK + 1), "counts again after a yes");
    assertTrue(watch.stuckAt(t + 2 * STUCK + 1));
  }

  @Test
  void anotherAnswerInBetweenStartsTheCountAgain() {
    StuckPutWatch watch = new StuckPutWatch();
    assertFalse(watch.stuckAt(0));
    watch.reset();
    assertFalse(watch.stuckAt(STUCK));
    assertFalse(watch.stuckAt(2 * STUCK - 1));
    assertTrue(watch.stuckAt(2 * STUCK));
  }
}
