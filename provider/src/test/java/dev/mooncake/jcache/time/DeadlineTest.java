package dev.mooncake.jcache.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The operation deadline: read on its ticker, immutable, shared by every call of an operation. */
class DeadlineTest {
  private final FakeTicker ticker = new FakeTicker();

  @Test
  void itShrinksAsItsTickerMovesAndExpiresAtItsBudget() {
    Deadline deadline = Deadline.after(Duration.ofMillis(3_000), ticker);
    assertEquals(3_000_000_000L, deadline.remainingNanos());
    ticker.advanceMillis(2_000);
    assertEquals(1_000_000_000L, deadline.remainingNanos());
    assertEquals(1_000_000_000L, deadline.cap(Long.MAX_VALUE), "the rest, not a fresh timeout");
    assertEquals(5, deadline.cap(5), "a shorter bound stays");
    assertFalse(deadline.expired());
    ticker.advanceMillis(1_500);
    assertEquals(0, deadline.remainingNanos(), "never negative");
    assertTrue(deadline.expired());
    assertEquals(
        "operation_timeout_ms 3000, 3500 ms spent",
        deadline.describe(),
        "messages name the operation's bound and what was spent");
  }

  @Test
  void noneNeverExpiresAndLeavesTheCallersOwnBound() {
    Deadline none = Deadline.none();
    ticker.advanceMillis(1_000_000);
    assertTrue(none.isNone());
    assertFalse(none.expired());
    assertEquals(1234, none.cap(1234));
  }

  @Test
  void aZeroBudgetStillGivesOneNanosecond() {
    Deadline deadline = Deadline.afterNanos(0, ticker);
    assertEquals(1, deadline.remainingNanos());
  }
}
