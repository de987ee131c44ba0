package dev.mooncake.jcache.backend.mooncake;

import dev.mooncake.jcache.backend.StoreStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fails store calls fast while Mooncake's master does not answer, so that a dead master costs a
 * caller at most the operation timeout instead of Mooncake's reconnect loop per call.
 *
 * <p>Why: measured on Mooncake 3b5a594 against a killed master (connection refused on loopback),
 * every C call takes 4.3-4.5 s whatever {@code MC_RPC_TIMEOUT_MS} says (3000 and 1000 gave the
 * same): the RPC client pool (yalantinglibs {@code coro_io::client_pool}) connects up to four
 * times, {@code reconnect_wait_time} 1 s (times 1.0-1.2) apart ({@code connect_retry_count} 3), and
 * nothing in the C ABI or the environment changes either. A cache operation making several calls
 * paid that several times (9.0-9.3 s with an operation timeout of 3 s).
 *
 * <p>How: a call answering RPC_FAIL or RPC_TIMEOUT opens the breaker. While it is open, a call
 * starts a probe (a cheap master RPC on a thread of its own) unless one is out, and waits for its
 * answer at most the operation timeout; calls arriving while a probe is out answer the last
 * unreachable code at once, without calling Mooncake. A probe that the master answers closes the
 * breaker, and the waiting call goes on. Calls already inside Mooncake when the master died are not
 * shortened: nothing can interrupt a C call.
 */
final class MasterOutage {
  private static final Logger LOG = LoggerFactory.getLogger(MasterOutage.class);

  private final LongSupplier probe;
  private final long waitNanos;
  private final String store;
  private final AtomicReference<CompletableFuture<Long>> probing = new AtomicReference<>();
  private volatile boolean open;
  private volatile long openedAt;
  private volatile long lastCode = StoreStatus.RPC_FAIL.code();

  /**
   * @param probe a master round trip without side effects, answering a status
   * @param waitMillis how long a call waits for a probe's answer (the operation timeout)
   * @param store names the store in log lines
   */
  MasterOutage(LongSupplier probe, long waitMillis, String store) {
    this.probe = probe;
    this.waitNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, waitMillis));
    this.store = store;
  }

  /** Mooncake's answers for a master it could not reach. */
  static boolean unreachable(long code) {
    return code == StoreStatus.RPC_FAIL.code() || code == StoreStatus.RPC_TIMEOUT.code();
  }

  /** Notes a call's answer: an unreachable master opens the breaker. */
  void answered(long code) {
    if (unreachable(code)) {
      lastCode = code;
      if (!open) {
        openedAt = System.nanoTime();
        open = true;
        LOG.warn(
            "the Mooncake master did not answer ({}): store calls fail fast until a probe gets an"
                + " answer ({})",
            StoreStatus.describe(code),
            store);
      }
    }
  }

  /**
   * Whether a call may go to Mooncake now; when not, the caller answers {@link #failFastCode()}
   * without calling. Blocks at most the operation timeout (for a probe's answer).
   */
  boolean admit() {
    if (!open) {
      return true;
    }
    CompletableFuture<Long> out = probing.get();
    if (out != null && !out.isDone()) {
      return false;
    }
    CompletableFuture<Long> mine = new CompletableFuture<>();
    if (!probing.compareAndSet(out, mine)) {
      return false; // another call started a probe just now
    }
    Thread thread = new Thread(() -> runProbe(mine), "mooncake-master-probe");
    thread.setDaemon(true);
    thread.start();
    try {
      return !unreachable(mine.get(waitNanos, TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      return false; // the probe goes on; its answer decides for the calls after it
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException e) {
      return false; // runProbe completes normally; kept for the compiler
    }
  }

  private void runProbe(CompletableFuture<Long> result) {
    long code;
    try {
      code = probe.getAsLong();
    } catch (RuntimeException e) {
      code = StoreStatus.RPC_FAIL.code(); // closed meanwhile: stays open, close refuses anyway
    }
    if (unreachable(code)) {
      lastCode = code;
    } else if (open) {
      open = false;
      LOG.info(
          "the Mooncake master answers again after {} ms ({})",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - openedAt),
          store);
    }
    result.complete(code);
  }

  /** The code a call refused by {@link #admit} answers: the last one the master's absence gave. */
  long failFastCode() {
    return lastCode;
  }

  boolean isOpen() {
    return open;
  }

  /** For messages: how long the master has not answered, or empty when it does. */
  String describeNote() {
    if (!open) {
      return "";
    }
    return "; the master has not answered for "
        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - openedAt)
        + " ms: calls fail fast until a probe gets an answer";
  }
}
