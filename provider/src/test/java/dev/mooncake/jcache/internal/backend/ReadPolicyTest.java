package dev.mooncake.jcache.internal.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The read table, pinned code by code: what an entry read and a lock read do with every code of
 * {@link StoreStatus}, a code Mooncake has no name for, and byte counts; how often each rule
 * repeats and how it ends; and that a read's repeats are counted per rule and stop at the deadline.
 */
class ReadPolicyTest {
  /** Entry reads: every code not named here fails. */
  private static final Map<StoreStatus, ReadPolicy> ENTRY =
      Map.of(
          StoreStatus.OK, ReadPolicy.VALUE,
          StoreStatus.OBJECT_NOT_FOUND, ReadPolicy.ABSENT,
          StoreStatus.REPLICA_IS_NOT_READY, ReadPolicy.PUT_IN_FLIGHT,
          StoreStatus.LEASE_EXPIRED, ReadPolicy.LEASE_RAN_OUT,
          StoreStatus.TRANSFER_FAIL, ReadPolicy.UNREACHABLE);

  @Test
  void entryReadsFollowTheTableForEveryCode() {
    for (StoreStatus status : StoreStatus.values()) {
      assertEquals(
          ENTRY.getOrDefault(status, ReadPolicy.FAIL),
          ReadPolicy.forEntryRead(status.code()),
          status.name());
    }
    assertEquals(ReadPolicy.FAIL, ReadPolicy.forEntryRead(-42), "a code with no name");
    assertEquals(ReadPolicy.VALUE, ReadPolicy.forEntryRead(4096), "a byte count");
  }

  @Test
  void lockReadsWaitOutWhatLockCallsWaitOutAndFailOnTheRest() {
    for (StoreStatus status : StoreStatus.values()) {
      ReadPolicy expected =
          status == StoreStatus.OK
              ? ReadPolicy.VALUE
              : status == StoreStatus.OBJECT_NOT_FOUND
                  ? ReadPolicy.ABSENT
                  : StoreStatus.isTransientForLockCalls(status.code())
                      ? ReadPolicy.WAIT
                      : ReadPolicy.FAIL;
      assertEquals(expected, ReadPolicy.forLockRead(status.code()), status.name());
    }
    // Where the two columns differ, pinned by name (docs/architecture.md, "Store codes").
    for (StoreStatus waited :
        new StoreStatus[] {
          StoreStatus.REPLICA_IS_NOT_READY,
          StoreStatus.LEASE_EXPIRED,
          StoreStatus.TRANSFER_FAIL,
          StoreStatus.NO_AVAILABLE_HANDLE,
          StoreStatus.RPC_FAIL,
          StoreStatus.RPC_TIMEOUT
        }) {
      assertEquals(ReadPolicy.WAIT, ReadPolicy.forLockRead(waited.code()), waited.name());
    }
    assertEquals(ReadPolicy.FAIL, ReadPolicy.forLockRead(-42), "a code with no name");
    assertEquals(ReadPolicy.FAIL, ReadPolicy.forEntryRead(StoreStatus.RPC_FAIL.code()));
  }

  @Test
  void eachRuleSaysHowOftenItRepeatsHowItPausesAndHowItEnds() {
    assertRule(ReadPolicy.VALUE, 0, ReadPolicy.Pause.NONE, ReadPolicy.End.VALUE);
    assertRule(ReadPolicy.ABSENT, 0, ReadPolicy.Pause.NONE, ReadPolicy.End.ABSENT);
    assertRule(ReadPolicy.PUT_IN_FLIGHT, 50, ReadPolicy.Pause.SPIN, ReadPolicy.End.ABSENT);
    assertRule(
        ReadPolicy.LEASE_RAN_OUT,
        Integer.MAX_VALUE,
        ReadPolicy.Pause.BACK_OFF,
        ReadPolicy.End.FAIL);
    assertRule(ReadPolicy.UNREACHABLE, 3, ReadPolicy.Pause.BACK_OFF, ReadPolicy.End.UNREACHABLE);
    assertRule(ReadPolicy.WAIT, Integer.MAX_VALUE, ReadPolicy.Pause.WATCH, ReadPolicy.End.FAIL);
    assertRule(ReadPolicy.FAIL, 0, ReadPolicy.Pause.NONE, ReadPolicy.End.FAIL);
  }

  private static void assertRule(
      ReadPolicy rule, int retries, ReadPolicy.Pause pause, ReadPolicy.End end) {
    assertEquals(retries, rule.retries(), rule.name());
    assertEquals(pause, rule.pause(), rule.name());
    assertEquals(end, rule.end(), rule.name());
  }

  @Test
  void triesAreCountedPerRuleUpToTheRulesBound() {
    ReadPolicy.Tries tries = new ReadPolicy.Tries();
    Deadline deadline = Deadline.after(Duration.ofSeconds(1), new FakeTicker());
    for (int i = 0; i < 3; i++) {
      assertTrue(tries.again(ReadPolicy.UNREACHABLE, deadline), "repeat " + i);
    }
    assertFalse(tries.again(ReadPolicy.UNREACHABLE, deadline), "three repeats, then its end");
    assertEquals(3, tries.made(ReadPolicy.UNREACHABLE));
    assertTrue(tries.again(ReadPolicy.PUT_IN_FLIGHT, deadline), "another rule's count is its own");
    assertEquals(1, tries.made(ReadPolicy.PUT_IN_FLIGHT));
    assertFalse(tries.again(ReadPolicy.ABSENT, deadline), "a rule without repeats ends at once");
    assertFalse(tries.again(ReadPolicy.FAIL, deadline));
  }

  @Test
  void noRepeatAfterTheDeadline() {
    FakeTicker ticker = new FakeTicker();
    Deadline deadline = Deadline.after(Duration.ofMillis(100), ticker);
    ReadPolicy.Tries tries = new ReadPolicy.Tries();
    assertTrue(tries.again(ReadPolicy.LEASE_RAN_OUT, deadline));
    ticker.advanceMillis(100);
    assertFalse(tries.again(ReadPolicy.LEASE_RAN_OUT, deadline));
    assertFalse(tries.again(ReadPolicy.PUT_IN_FLIGHT, deadline));
    assertEquals(0, tries.made(ReadPolicy.PUT_IN_FLIGHT));
  }
}
