package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.time.Ticker;
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
 * <p>How: the breaker opens on proof that the master is unreachable: a call answering -900 RPC_FAIL
 * ({@link StoreStatus#provesMasterUnreachable}: Mooncake found no connection to it), or a probe (a
 * cheap master RPC on a thread of its own) answering RPC_FAIL or RPC_TIMEOUT or not answering
 * within the operation timeout. While it is open, a call starts a probe unless one is out, and
 * waits for its answer at most the operation timeout; calls arriving while a probe is out answer
 * the last unreachable code at once, without calling Mooncake. A probe that the master answers
 * closes the breaker, and the waiting call goes on.
 *
 * <p>A call answering -901 RPC_TIMEOUT, or given up on, only makes the master suspected: a probe
 * goes out at once, and calls wait for its answer (at most their own time) instead of failing fast.
 * Such a call is as often a transfer stuck on a peer's segment (its JVM paused or killed: seen on a
 * real Mooncake, with the master fine) as a master that does not answer; failing every call of the
 * JVM fast for it refused calls to healthy segments for the probe's 0.1-0.2 s.
 *
 * <p>Calls already inside Mooncake when the master died are not shortened here (nothing can
 * interrupt a C call); {@link StoreCallRunner} bounds the caller's wait for them on threads of
 * their own while {@link #troubled} says so.
 */
final class MasterOutage {
  private static final Logger LOG = LoggerFactory.getLogger(MasterOutage.class);

  private final LongSupplier probe;
  private final Ticker ticker;
  private final long waitNanos;
  private final String store;

  /** The last probe sent; one is out while its answer is not done. */
  private final AtomicReference<Probe> probing = new AtomicReference<>();

  /** The probe calls wait for while the master is suspected (the breaker closed); else null. */
  private final AtomicReference<Probe> suspected = new AtomicReference<>();

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

  /** One probe: its answer (a status), and when it was sent ({@link Ticker#nanos}). */
  private record Probe(CompletableFuture<Long> answer, long sentAt) {}

  /**
   * @param probe a master round trip without side effects, answering a status
   * @param waitMillis how long a call waits for a probe's answer (the operation timeout), and how
   *     long a probe may go unanswered before the master counts as not answering
   * @param store names the store in log lines
   */
  MasterOutage(LongSupplier probe, long waitMillis, String store) {
    this(probe, waitMillis, store, Ticker.system());
  }

  /** Tests: {@code ticker} decides when a probe has gone unanswered too long. */
  MasterOutage(LongSupplier probe, long waitMillis, String store, Ticker ticker) {
    this.probe = probe;
    this.ticker = ticker;
    this.waitNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, waitMillis));
    this.store = store;
  }

  /**
   * Notes a call's answer: RPC_FAIL opens the breaker; RPC_TIMEOUT (maybe a peer's transfer) sends
   * a probe that decides.
   */
  void answered(long code) {
    if (!StoreStatus.isFailFast(code)) {
      return;
    }
    noteTrouble();
    if (StoreStatus.provesMasterUnreachable(code)) {
      open(code, "a call answered");
    } else {
      suspect();
    }
  }

  /**
   * A call was given up on (no answer within its time): it may be stuck on a peer's segment as well
   * as on the master, so a probe goes out at once and decides; the calls right after it wait for
   * the probe's answer, not for Mooncake.
   */
  void gaveUp() {
    noteTrouble();
    suspect();
  }

  /** Notes trouble that is no answer of the master's: a call given up on, or a slow one. */
  void noteTrouble() {
    long now = ticker.nanos();
    troubleAt = now == 0 ? 1 : now;
  }

  /** Whether the breaker is open or trouble was seen within {@link #TROUBLE_WINDOW_NANOS}. */
  boolean troubled() {
    long at = troubleAt;
    return open || (at != 0 && ticker.nanos() - at < TROUBLE_WINDOW_NANOS);
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
    while (!open) {
      Probe awaited = suspected.get();
      if (awaited == null) {
        return true;
      }
      if (!awaited.answer.isDone()) {
        return awaitSuspicion(awaited, maxWaitNanos);
      }
      suspected.compareAndSet(awaited, null); // answered: its answer is in `open` by now
    }
    return admitWhileOpen(maxWaitNanos);
  }

  /**
   * While suspected: waits for the probe's answer at most the call's time and what is left of the
   * probe's. A probe still silent after the operation timeout opens the breaker: a healthy master
   * answers an is_exist in a millisecond.
   */
  private boolean awaitSuspicion(Probe awaited, long maxWaitNanos) {
    long probeLeft = awaited.sentAt + waitNanos - ticker.nanos();
    if (probeLeft > 0) {
      try {
        long code = awaited.answer.get(Math.min(probeLeft, maxWaitNanos), TimeUnit.NANOSECONDS);
        return !StoreStatus.isFailFast(code); // runProbe opened the breaker on a failure
      } catch (TimeoutException e) {
        if (ticker.nanos() - awaited.sentAt < waitNanos) {
          lastCode = StoreStatus.RPC_TIMEOUT.code(); // this call's time ran out, not the probe's
          return false;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } catch (ExecutionException e) {
        return false; // runProbe completes normally; kept for the compiler
      }
    }
    if (awaited.answer.isDone()) {
      return !StoreStatus.isFailFast(awaited.answer.join()); // it answered just now
    }
    open(StoreStatus.RPC_TIMEOUT.code(), "a probe got no answer within the operation timeout");
    return false;
  }

  /** While open: the call that sends a probe waits for it; the others fail fast meanwhile. */
  private boolean admitWhileOpen(long maxWaitNanos) {
    Probe mine = startProbe();
    if (mine == null) {
      return false;
    }
    try {
      return !StoreStatus.isFailFast(
          mine.answer.get(Math.max(1, Math.min(waitNanos, maxWaitNanos)), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      return false; // the probe goes on; its answer decides for the calls after it
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException e) {
      return false; // runProbe completes normally; kept for the compiler
    }
  }

  /** The master may be unreachable: a probe decides (the one out, else a new one). */
  private void suspect() {
    Probe sent = startProbe();
    if (open) {
      return; // the breaker's own probing goes on
    }
    Probe out = sent != null ? sent : probing.get();
    if (out != null) {
      suspected.set(out); // if it answered meanwhile, admit drops it at once
      LOG.debug("the Mooncake master is suspected: a probe asks it ({})", store);
    }
  }

  private void open(long code, String why) {
    lastCode = code;
    if (!open) {
      openedAt = ticker.nanos();
      open = true;
      LOG.warn(
          "the Mooncake master did not answer ({}: {}): store calls fail fast until a probe gets an"
              + " answer ({})",
          why,
          StoreStatus.describe(code),
          store);
    }
  }

  /** Starts a probe unless one is out; answers it, or null when another one is out. */
  private Probe startProbe() {
    Probe out = probing.get();
    if (out != null && !out.answer.isDone()) {
      return null;
    }
    Probe mine = new Probe(new CompletableFuture<>(), ticker.nanos());
    if (!probing.compareAndSet(out, mine)) {
      return null; // another call started a probe just now
    }
    Thread thread = new Thread(() -> runProbe(mine), "mooncake-master-probe");
    thread.setDaemon(true);
    thread.start();
    return mine;
  }

  private void runProbe(Probe mine) {
    long code;
    try {
      code = probe.getAsLong();
    } catch (RuntimeException e) {
      // Closed meanwhile: nothing changes, the waiting call fails, and close refuses the rest.
      lastCode = StoreStatus.RPC_FAIL.code();
      suspected.compareAndSet(mine, null);
      mine.answer.complete(lastCode);
      return;
    }
    if (StoreStatus.isFailFast(code)) {
      open(code, "a probe answered");
    } else if (open) {
      open = false;
      LOG.info(
          "the Mooncake master answers again after {} ms ({})",
          TimeUnit.NANOSECONDS.toMillis(ticker.nanos() - openedAt),
          store);
    }
    suspected.compareAndSet(mine, null); // after `open` is set: a waiting call sees one or other
    mine.answer.complete(code);
  }

  /** The code a call refused by {@link #admit} answers: the last one the master's absence gave. */
  long failFastCode() {
    return lastCode;
  }

  boolean isOpen() {
    return open;
  }

  /**
   * Tests: waits until the probe sent last (if any) has answered, so that a test changing the fault
   * it injects does not race a probe that is still asking under the old one.
   */
  void awaitProbe() {
    Probe last = probing.get();
    if (last != null) {
      last.answer.join();
    }
  }

  /** For messages: how long the master has not answered, or empty when it does. */
  String describeNote() {
    if (!open) {
      return "";
    }
    return "; the master has not answered for "
        + TimeUnit.NANOSECONDS.toMillis(ticker.nanos() - openedAt)
        + " ms: calls fail fast until a probe gets an answer";
  }
}
