package dev.mooncake.jcache.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.backend.StoreStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The breaker that fails calls fast while the master does not answer: a probe decides, one at a
 * time, and calls arriving while it is out do not wait (a call that waited would hang this test:
 * the probe stays blocked on a latch, and the wait is an hour).
 */
@Timeout(30)
class MasterOutageTest {
  private static final long RPC_FAIL = StoreStatus.RPC_FAIL.code();
  private static final long RPC_TIMEOUT = StoreStatus.RPC_TIMEOUT.code();

  private final AtomicInteger probes = new AtomicInteger();
  private final AtomicLong probeAnswer = new AtomicLong();
  private volatile CountDownLatch probeMayAnswer = new CountDownLatch(0);
  private final CountDownLatch probeStarted = new CountDownLatch(1);

  private MasterOutage outage(long waitMillis) {
    return new MasterOutage(
        () -> {
          probes.incrementAndGet();
          probeStarted.countDown();
          try {
            probeMayAnswer.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return probeAnswer.get();
        },
        waitMillis,
        "test store");
  }

  @Test
  void closedUntilTheMasterIsUnreachableAndNoProbeThen() {
    MasterOutage outage = outage(1_000);
    outage.answered(0);
    outage.answered(StoreStatus.OBJECT_NOT_FOUND.code());
    outage.answered(StoreStatus.TRANSFER_FAIL.code()); // a segment's, not the master's
    assertTrue(outage.admit());
    assertFalse(outage.isOpen());
    assertEquals(0, probes.get());
  }

  @Test
  void exactlyTheCodesStoreStatusCallsFailFastOpenIt() {
    for (StoreStatus status : StoreStatus.values()) {
      MasterOutage outage = outage(1_000);
      outage.answered(status.code());
      assertEquals(StoreStatus.isFailFast(status.code()), outage.isOpen(), status.name());
    }
    assertEquals(0, probes.get(), "an answer alone sends no probe");
  }

  @Test
  void aProbeTheMasterAnswersClosesItAndTheWaitingCallGoesOn() {
    MasterOutage outage = outage(60_000);
    outage.answered(RPC_FAIL);
    assertTrue(outage.isOpen());
    assertTrue(outage.describeNote().contains("calls fail fast"), outage.describeNote());
    probeAnswer.set(0);
    assertTrue(outage.admit(), "the probe answered 0: the master is back");
    assertFalse(outage.isOpen());
    assertEquals("", outage.describeNote());
    assertTrue(outage.admit());
    assertEquals(1, probes.get(), "a closed breaker sends no probe");
  }

  @Test
  void callsWhileAProbeIsOutFailFastAndTheFirstWaitsAtMostItsBound() throws Exception {
    MasterOutage outage = outage(TimeUnit.HOURS.toMillis(1));
    outage.answered(RPC_TIMEOUT);
    probeMayAnswer = new CountDownLatch(1);
    probeAnswer.set(RPC_TIMEOUT);
    CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(outage::admit);
    assertTrue(probeStarted.await(10, TimeUnit.SECONDS));
    for (int i = 0; i < 100; i++) {
      assertFalse(outage.admit(), "a probe is out: refused at once");
    }
    assertEquals(RPC_TIMEOUT, outage.failFastCode());
    assertEquals(1, probes.get(), "one probe at a time");
    probeMayAnswer.countDown(); // the master still does not answer
    assertFalse(first.get(10, TimeUnit.SECONDS));
    assertTrue(outage.isOpen());

    probeAnswer.set(1);
    assertTrue(outage.admit(), "the next call probes again, and the master answers now");
    assertEquals(2, probes.get());
    assertFalse(outage.isOpen());
  }

  @Test
  void aCallWaitsForAProbeNoLongerThanTheOperationTimeout() {
    MasterOutage outage = outage(50);
    outage.answered(RPC_FAIL);
    probeMayAnswer = new CountDownLatch(1); // the probe never answers during the call
    assertFalse(outage.admit());
    assertTrue(outage.isOpen());
    probeMayAnswer.countDown();
  }

  @Test
  void thePerRpcTimeoutIsAThirdOfTheOperationTimeout() {
    assertEquals(1_000, MooncakeSetup.rpcTimeoutMillis(3_000));
    assertEquals(1_666, MooncakeSetup.rpcTimeoutMillis(5_000));
    assertEquals(1, MooncakeSetup.rpcTimeoutMillis(2));
    assertEquals(3, MooncakeSetup.MAX_RPCS_PER_CALL);
  }

  @Test
  void troubledWhileOpenAndForAWhileAfterTroubleAndAGiveUpSendsAProbeAtOnce() throws Exception {
    MasterOutage outage = outage(60_000);
    assertFalse(outage.troubled(), "a fresh store is not in trouble: no hop per call");
    outage.noteTrouble(); // a slow call
    assertTrue(outage.troubled());
    assertFalse(outage.isOpen(), "a slow call alone fails nothing fast");

    MasterOutage other = outage(60_000);
    probeMayAnswer = new CountDownLatch(1);
    other.gaveUp();
    assertTrue(other.isOpen());
    assertTrue(other.troubled());
    assertTrue(probeStarted.await(10, TimeUnit.SECONDS), "no probe sent on giving up");
    assertFalse(other.admit(), "a call while the probe is out fails fast");
    assertEquals(RPC_TIMEOUT, other.failFastCode());
    assertEquals(1, probes.get());
    probeMayAnswer.countDown();
  }
}
