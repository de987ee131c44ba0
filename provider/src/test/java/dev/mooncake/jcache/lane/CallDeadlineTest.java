package dev.mooncake.jcache.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A scope's deadline shortens the store calls made in it, never lengthens them, and ends. */
class CallDeadlineTest {
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @Test
  void outsideAnyScopeACallHasItsWholeTimeout() {
    assertEquals(SECOND, CallDeadline.allowed(SECOND));
  }

  @Test
  void aScopeShortensALongerTimeoutButNotAShorterOne() {
    CallDeadline.within(
        SECOND,
        () -> {
          long allowed = CallDeadline.allowed(HOUR);
          assertTrue(allowed > 0 && allowed <= SECOND, "allowed " + allowed);
          assertEquals(1_000, CallDeadline.allowed(1_000), "a shorter timeout stays");
          return null;
        });
    assertEquals(HOUR, CallDeadline.allowed(HOUR), "the scope outlived its body");
  }

  @Test
  void anInnerScopeNeverExtendsTheOuterOne() {
    CallDeadline.within(
        SECOND,
        () ->
            CallDeadline.within(
                HOUR,
                () -> {
                  assertTrue(CallDeadline.allowed(HOUR) <= SECOND, "the inner scope extended it");
                  return null;
                }));
    CallDeadline.within(
        HOUR,
        () -> {
          CallDeadline.within(
              SECOND,
              () -> {
                assertTrue(CallDeadline.allowed(HOUR) <= SECOND);
                return null;
              });
          assertTrue(CallDeadline.allowed(HOUR) > SECOND, "the outer scope was not restored");
          return null;
        });
  }

  @Test
  void aPassedDeadlineAllowsNothingAndABoundedCallIsNotStarted() {
    BoundedCalls calls = new BoundedCalls("deadline-test", 1);
    CallDeadline.within(
        0,
        () -> {
          assertEquals(0, CallDeadline.allowed(HOUR));
          CallTimeoutException e =
              assertThrows(
                  CallTimeoutException.class,
                  () ->
                      calls.call(
                          "get of 'k'",
                          CallDeadline.allowed(HOUR),
                          () -> {
                            throw new AssertionError("started after its time ran out");
                          },
                          () -> () -> {}));
          assertTrue(e.getMessage().contains("not started"), e.getMessage());
          return null;
        });
  }

  @Test
  void aScopeEndsWhenItsBodyThrows() {
    assertThrows(
        IllegalStateException.class,
        () ->
            CallDeadline.within(
                0,
                () -> {
                  throw new IllegalStateException("body");
                }));
    assertEquals(HOUR, CallDeadline.allowed(HOUR));
  }
}
