package dev.mooncake.jcache.internal.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.StoreStatus.Retry;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Pins the classification of every code in {@link StoreStatus}, and of each caller's question, in
 * one table: a code added to the enum, or a class changed, fails here until the table (and
 * docs/architecture.md, "Store codes") says so too.
 */
class StoreStatusTest {
  /**
   * code, name, class, retried by data writes, retried by lock calls, opens the master breaker at
   * once (W, L, B: yes; -: no).
   */
  private static final String TABLE =
      """
           0 OK                                 NONE       - - -
          -1 INTERNAL_ERROR_OR_INVALID_ARGUMENT PERMANENT  - - -
         -10 BUFFER_OVERFLOW                    PERMANENT  - - -
        -101 SEGMENT_NOT_FOUND                  PERMANENT  - - -
        -200 NO_AVAILABLE_HANDLE                PERMANENT  - L -
        -600 INVALID_PARAMS                     PERMANENT  - - -
        -601 ILLEGAL_CLIENT                     PERMANENT  - - -
        -703 REPLICA_IS_NOT_READY               TRANSIENT  W L -
        -704 OBJECT_NOT_FOUND                   PERMANENT  - - -
        -705 OBJECT_ALREADY_EXISTS              PERMANENT  - - -
        -706 OBJECT_HAS_LEASE                   TRANSIENT  W L -
        -707 LEASE_EXPIRED                      TRANSIENT  - L -
        -708 OBJECT_HAS_REPLICATION_TASK        PERMANENT  - - -
        -714 REPLICA_IS_BUSY                    TRANSIENT  - L -
        -800 TRANSFER_FAIL                      PERMANENT  - L -
        -801 CHECKSUM_MISMATCH                  PERMANENT  - - -
        -900 RPC_FAIL                           FAIL_FAST  - L B
        -901 RPC_TIMEOUT                        FAIL_FAST  - L -
       -1010 UNAVAILABLE_IN_CURRENT_STATUS      PERMANENT  - - -
       -1011 UNAVAILABLE_IN_CURRENT_MODE        PERMANENT  - - -
       -1012 NOT_SUPPORTED                      PERMANENT  - - -
       -1700 TENANT_QUOTA_EXCEEDED              PERMANENT  - - -
       -1701 TENANT_NOT_REGISTERED              PERMANENT  - - -
      """;

  @Test
  void everyCodeHasThePinnedClassAndAnswersEachCallersQuestionAsPinned() {
    Set<StoreStatus> seen = EnumSet.noneOf(StoreStatus.class);
    for (String line : TABLE.strip().split("\n")) {
      String[] row = line.trim().split("\\s+");
      long code = Long.parseLong(row[0]);
      StoreStatus status = StoreStatus.of(code);
      assertEquals(row[1], status == null ? null : status.name(), "the name of " + code);
      assertTrue(seen.add(status), "twice in the table: " + status);
      Retry retry = Retry.valueOf(row[2]);
      assertEquals(retry, status.retry(), status + "'s class");
      assertEquals(retry, StoreStatus.retryOf(code), status + " by code");
      assertEquals(retry == Retry.FAIL_FAST, StoreStatus.isFailFast(code), status + " fails fast");
      assertEquals(
          row[3].equals("W"), StoreStatus.isTransientForWrites(code), status + " for writes");
      assertEquals(
          row[4].equals("L"), StoreStatus.isTransientForLockCalls(code), status + " for locks");
      assertEquals(
          row[5].equals("B"),
          StoreStatus.provesMasterUnreachable(code),
          status + " proves the master unreachable");
    }
    assertEquals(EnumSet.allOf(StoreStatus.class), seen, "codes the table does not pin");
  }

  @Test
  void theCallersQuestionsNarrowOrWidenTheClassNeverContradictIt() {
    for (StoreStatus status : StoreStatus.values()) {
      long code = status.code();
      if (StoreStatus.isTransientForWrites(code)) {
        assertEquals(Retry.TRANSIENT, status.retry(), status + ": writes retry only TRANSIENT");
      }
      if (status.retry() == Retry.TRANSIENT || status.retry() == Retry.FAIL_FAST) {
        assertTrue(StoreStatus.isTransientForLockCalls(code), status + ": locks wait it out");
      }
      if (StoreStatus.provesMasterUnreachable(code)) {
        assertEquals(Retry.FAIL_FAST, status.retry(), status + ": only a FAIL_FAST code opens it");
      }
      if (status.retry() == Retry.NONE) {
        assertEquals(0, code, "only OK is no failure");
      }
    }
  }

  @Test
  void anAnswerOfZeroOrMoreIsNoFailureAndAnUnknownCodeIsPermanent() {
    for (long answer : new long[] {0, 1, 4096, Integer.MAX_VALUE, Long.MAX_VALUE}) {
      assertEquals(Retry.NONE, StoreStatus.retryOf(answer), "answer " + answer);
      assertFalse(StoreStatus.isTransientForLockCalls(answer));
      assertFalse(StoreStatus.isTransientForWrites(answer));
      assertFalse(StoreStatus.isFailFast(answer));
    }
    for (long unknown : new long[] {-2, -42, -702, -902, -99999, Long.MIN_VALUE}) {
      assertNull(StoreStatus.of(unknown));
      assertEquals(Retry.PERMANENT, StoreStatus.retryOf(unknown), "code " + unknown);
      assertFalse(StoreStatus.isTransientForLockCalls(unknown), "code " + unknown);
      assertFalse(StoreStatus.isTransientForWrites(unknown), "code " + unknown);
      assertFalse(StoreStatus.isFailFast(unknown), "code " + unknown);
      assertEquals(unknown + " UNKNOWN", StoreStatus.describe(unknown));
    }
  }
}
