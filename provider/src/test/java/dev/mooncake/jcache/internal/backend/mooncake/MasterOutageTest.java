package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The breaker that fails calls fast while the master does not answer: a probe decides, one at a
 * time, and calls arriving while it is out do not wait (a call that waited would hang this test:
 * the probe stays blocked on a latch, and the wait is an hour). A call given up on or answering
 * -901 (a peer's stuck transfer as often as the master) only sends a probe: calls wait for its
 * answer instead of failing fast, and fail fast once it fails or stays silent for the operation
 * timeout (on an injected ticker).
 */
@Timeout(30)
class MasterOutageTest {
  private static final long RPC_FAIL = StoreStatus.RPC_FAIL.code();
  private static final long RPC_TIMEOUT = StoreStatus.RPC_TIMEOUT.code();

  private final AtomicInteger probes = new AtomicInteger();
  private final AtomicLong probeAnswer = new AtomicLong();
  private volatile CountDownLatch probeMayAnswer = new CountDownLatch(0);
  private final CountDownLatch probeStarted = new CountDownLatch(1);
  private final FakeTicker ticker = new FakeTicker();

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
        "test store",
        ticker);
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
  void onlyRpcFailOpensItAtOnceAndRpcTimeoutSendsAProbe() throws Exception {
    for (StoreStatus status : StoreStatus.values()) {
      MasterOutage outage = outage(1_000);
      outage.answered(status.code());
      assertEquals(
          StoreStatus.provesMasterUnreachable(status.code()), outage.isOpen(), status.name());
    }
    assertTrue(probeStarted.await(10, TimeUnit.SECONDS), "-901 sent no probe");
    assertEquals(1, probes.get(), "only -901 sends a probe: -900 needs none to open");
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
    outage.answered(RPC_FAIL);
    probeMayAnswer = new CountDownLatch(1);
    probeAnswer.set(RPC_TIMEOUT);
    CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(outage::admit);
    assertTrue(probeStarted.await(10, TimeUnit.SECONDS));
    for (int i = 0; i < 100; i++) {
      assertFalse(outage.admit(), "a probe is out: refused at once");
    }
    assertEquals(RPC_FAIL, outage.failFastCode());
    assertEquals(1, probes.get(), "one probe at a time");
    probeMayAnswer.countDown(); // the master still does not answer
    assertFalse(first.get(10, TimeUnit.SECONDS));
    assertTrue(outage.isOpen());
    assertEquals(RPC_TIMEOUT, outage.failFastCode(), "the probe's answer");

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
    ticker.advance(Duration.ofNanos(MasterOutage.TROUBLE_WINDOW_NANOS + 1));
    assertFalse(outage.troubled(), "trouble 30 s ago is no longer recent");

    MasterOutage other = outage(60_000);
    probeMayAnswer = new CountDownLatch(1);
    other.gaveUp();
    assertFalse(other.isOpen(), "a give-up alone fails nothing fast");
    assertTrue(other.troubled(), "but the calls after it are bounded");
    assertTrue(probeStarted.await(10, TimeUnit.SECONDS), "no probe sent on giving up");
    assertEquals(1, probes.get());
    probeMayAnswer.countDown();
  }

  @Test
  void aGivenUpCallDoesNotFailOtherCallsFastWhileTheProbeAnswers() throws Exception {
    callsWaitForTheProbeAndGoOnWhenTheMasterAnswers(MasterOutage::gaveUp);
  }

  @Test
  void aPeersTransferTimeoutDoesNotFailOtherCallsFastWhileTheProbeAnswers() throws Exception {
    // -901 from a get stuck on a stopped or killed peer's segment, the master fine.
    callsWaitForTheProbeAndGoOnWhenTheMasterAnswers(outage -> outage.answered(RPC_TIMEOUT));
  }

  /**
   * After {@code trouble}, calls arriving while its probe is out wait for the probe (refused at
   * once, they would end before it answers), and go on when the master answers it.
   */
  private void callsWaitForTheProbeAndGoOnWhenTheMasterAnswers(Consumer<MasterOutage> trouble)
      throws Exception {
    MasterOutage outage = outage(TimeUnit.HOURS.toMillis(1));
    probeMayAnswer = new CountDownLatch(1);
    probeAnswer.set(0); // is_exist of the probe key: absent, the master answers
    trouble.accept(outage);
    assertFalse(outage.isOpen(), "no proof the master is gone: nothing fails fast");
    assertTrue(probeStarted.await(10, TimeUnit.SECONDS), "no probe sent at once");
    FutureTask<Boolean> first = admitOnAThreadOfItsOwn(outage);
    FutureTask<Boolean> second = admitOnAThreadOfItsOwn(outage);
    probeMayAnswer.countDown();
    assertTrue(first.get(10, TimeUnit.SECONDS), "refused although the master answers");
    assertTrue(second.get(10, TimeUnit.SECONDS), "refused although the master answers");
    assertFalse(outage.isOpen());
    assertTrue(outage.admit());
    assertEquals(1, probes.get(), "the calls waited for the one probe, sent none of their own");
  }

  @Test
  void aGivenUpCallWhoseProbeFailsFailsCallsFastAsADeadMasterDid() throws Exception {
    MasterOutage outage = outage(TimeUnit.HOURS.toMillis(1));
    probeMayAnswer = new CountDownLatch(1);
    probeAnswer.set(RPC_FAIL); // the master is gone: the probe fails after the reconnect loop
    outage.gaveUp();
    assertFalse(outage.isOpen(), "not before the probe's answer");
    FutureTask<Boolean> waiting = admitOnAThreadOfItsOwn(outage);
    probeMayAnswer.countDown();
    assertFalse(waiting.get(10, TimeUnit.SECONDS), "the probe failed: so does the call");
    assertTrue(outage.isOpen());
    assertEquals(RPC_FAIL, outage.failFastCode());

    probeMayAnswer = new CountDownLatch(1); // the breaker's next probe, again without answer
    FutureTask<Boolean> probing = admitOnAThreadOfItsOwn(outage);
    for (int i = 0; i < 100; i++) {
      assertFalse(outage.admit(), "open, a probe out: refused at once");
    }
    probeMayAnswer.countDown();
    assertFalse(probing.get(10, TimeUnit.SECONDS));
  }

  @Test
  void aProbeSilentForTheOperationTimeoutOpensItAndCallsFailFast() throws Exception {
    MasterOutage outage = outage(TimeUnit.HOURS.toMillis(1));
    probeMayAnswer = new CountDownLatch(1); // a stopped or killed master: no answer for long
    outage.answered(RPC_TIMEOUT);
    assertTrue(probeStarted.await(10, TimeUnit.SECONDS));
    assertFalse(outage.admit(TimeUnit.MILLISECONDS.toNanos(1)), "its own time ran out first");
    assertFalse(outage.isOpen(), "a call's short time proves nothing about the master");
    assertEquals(RPC_TIMEOUT, outage.failFastCode());

    ticker.advance(Duration.ofHours(1)); // the probe silent a whole operation timeout
    assertFalse(outage.admit(), "refused at once (a wait would be an hour)");
    assertTrue(outage.isOpen());
    for (int i = 0; i < 100; i++) {
      assertFalse(outage.admit(), "open, a probe out: refused at once");
    }
    assertEquals(RPC_TIMEOUT, outage.failFastCode());
    assertEquals(1, probes.get());
    probeMayAnswer.countDown();
  }

  /** Starts {@code outage.admit()} on a thread and returns once it waits (or ended at once). */
  private static FutureTask<Boolean> admitOnAThreadOfItsOwn(MasterOutage outage) {
    FutureTask<Boolean> call = new FutureTask<>(outage::admit);
    Thread thread = new Thread(call, "admit");
    thread.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (thread.getState() != Thread.State.TIMED_WAITING
        && thread.getState() != Thread.State.TERMINATED) {
      assertTrue(System.nanoTime() < deadline, "the call neither waits nor ended");
      Thread.onSpinWait(); // a state of a thread we started, not a sleep
    }
    return call;
  }
}
