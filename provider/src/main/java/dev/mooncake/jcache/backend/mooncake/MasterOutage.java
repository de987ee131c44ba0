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
 * <p>How: a call answering RPC_FAIL or RPC_TIMEOUT ({@link StoreStatus#isFailFast}) opens the
 * breaker. While it is open, a call starts a probe (a cheap master RPC on a thread of its own)
 * unless one is out, and waits for its answer at most the operation timeout; calls arriving while a
 * probe is out answer the last unreachable code at once, without calling Mooncake. A probe that the
 * master answers closes the breaker, and the waiting call goes on. Calls already inside Mooncake
 * when the master died are not shortened here (nothing can interrupt a C call); {@link
 * StoreCallRunner} bounds the caller's wait for them on threads of their own while {@link
 * #troubled} says so.
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
   * When trouble was last seen (an unreachable answer, a call given up on, a slow call); 0 for
   * never. While it is recent, {@link #troubled} says so and the store bounds its calls on threads
   * of their own (see {@link StoreCallRunner}).
   */
  private volatile long troubleAt;

  /** How long trouble counts as recent: a master that came back may go again. */
  static final long TROUBLE_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(30);

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

  /** Notes a call's answer: an unreachable master opens the breaker. */
  void answered(long code) {
    if (StoreStatus.isFailFast(code)) {
      lastCode = code;
      noteTrouble();
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

  /** Notes trouble that is no answer of the master's: a call given up on, or a slow one. */
  void noteTrouble() {
    long now = System.nanoTime();
    troubleAt = now == 0 ? 1 : now;
  }

  /** Whether the breaker is open or trouble was seen within {@link #TROUBLE_WINDOW_NANOS}. */
  boolean troubled() {
    long at = troubleAt;
    return open || (at != 0 && System.nanoTime() - at < TROUBLE_WINDOW_NANOS);
  }

  /**
   * Whether a call may go to Mooncake now; when not, the caller answers {@link #failFastCode()}
   * without calling. Blocks at most the operation timeout (for a probe's answer).
   */
  boolean admit() {
    return admit(waitNanos);
  }

  /** {@link #admit()}, waiting for a probe at most {@code maxWaitNanos} (the call's deadline). */
  boolean admit(long maxWaitNanos) {
    if (!open) {
      return true;
    }
    CompletableFuture<Long> mine = startProbe();
    if (mine == null) {
      return false;
    }
    try {
      return !StoreStatus.isFailFast(
          mine.get(Math.max(1, Math.min(waitNanos, maxWaitNanos)), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      return false; // the probe goes on; its answer decides for the calls after it
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException e) {
      return false; // runProbe completes normally; kept for the compiler
    }
  }

  /**
   * A call was given up on (no answer within its time): opens the breaker and sends a probe at
   * once, so that the calls right after it (the same operation's release, say) fail fast instead of
   * waiting for a probe of their own.
   */
  void gaveUp() {
    answered(StoreStatus.RPC_TIMEOUT.code());
    startProbe();
  }

  /** Starts a probe unless one is out; answers its result, or null when another one is out. */
  private CompletableFuture<Long> startProbe() {
    CompletableFuture<Long> out = probing.get();
    if (out != null && !out.isDone()) {
      return null;
    }
    CompletableFuture<Long> mine = new CompletableFuture<>();
    if (!probing.compareAndSet(out, mine)) {
      return null; // another call started a probe just now
    }
    Thread thread = new Thread(() -> runProbe(mine), "mooncake-master-probe");
    thread.setDaemon(true);
    thread.start();
    return mine;
  }

  private void runProbe(CompletableFuture<Long> result) {
    long code;
    try {
      code = probe.getAsLong();
    } catch (RuntimeException e) {
      code = StoreStatus.RPC_FAIL.code(); // closed meanwhile: stays open, close refuses anyway
    }
    if (StoreStatus.isFailFast(code)) {
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
