package dev.mooncake.jcache.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Latch waits for tests: a bound so that a broken test fails instead of hanging the build. */
public final class Latches {
  /** Far above any wait a passing test has; reached only when the code under test is broken. */
  public static final long BOUND_SECONDS = 30;

  private Latches() {}

  /**
   * Waits for {@code latch}; an AssertionError saying {@code what} did not happen after {@link
   * #BOUND_SECONDS}. Callable from code that cannot throw checked exceptions (a loader, a store).
   */
  public static void await(CountDownLatch latch, String what) {
    try {
      if (!latch.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError(what + " did not happen within " + BOUND_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting until " + what, e);
    }
  }
}
