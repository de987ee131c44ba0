package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.calls.BoundedCalls;
import dev.mooncake.jcache.internal.calls.CallTimeoutException;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import dev.mooncake.jcache.nativebridge.ClosedHandleException;
import dev.mooncake.jcache.nativebridge.MooncakeClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Runs the ABI calls of one store, each bounded by its deadline: the one place where a call's time
 * is decided (what is left of its operation's {@link Deadline}), where it is admitted or failed
 * fast while the master is unreachable ({@link MasterOutage}), and where it runs on the caller's
 * thread or on {@link BoundedCalls} with its buffers staged ({@link BufferStaging}).
 */
final class StoreCallRunner {
  /**
   * Mooncake's reconnect loop against a master that is gone: every C call took 4.26-4.45 s on
   * 3b5a594 (the calls in flight at a kill up to 4.8 s), whatever {@code MC_RPC_TIMEOUT_MS} says,
   * and nothing interrupts a C call (see {@link MasterOutage}).
   */
  static final long RECONNECT_FLOOR_MS = 5_000;

  /**
   * Below this operation timeout every call runs on {@link #bounded} (a thread hop each): a call on
   * the caller's thread could outlast the timeout by the reconnect loop. Twice the floor, since a
   * call may pay the loop after its first RPCs took their share. From it on, calls hop only while
   * {@link MasterOutage#troubled} (the default timeout, 30 s, is far above).
   */
  static final long DIRECT_CALLS_FROM_MS = 2 * RECONNECT_FLOOR_MS;

  /** Given-up calls that may still be inside Mooncake before new ones are refused unsent. */
  static final int MAX_STUCK_CALLS = 64;

  /** The key of {@link MasterOutage}'s probe: an is_exist, which no object ever answers 1 to. */
  // A call's own bound is real time (a native call takes real time, and a test's fake ticker
  // would never end it); the operation's deadline, on the injected ticker, bounds it too.
  private static final Ticker CLOCK = Ticker.system();

  private static final byte[] PROBE_KEY =
      "mooncake-jcache/master-probe".getBytes(StandardCharsets.UTF_8);

  /** A call answering a status or a length: no boxing on the path of every get. */
  @FunctionalInterface
  interface LongClientCall {
    long call();
  }

  /** A call on one staged buffer: {@code buffer[offset, offset + length)}. */
  @FunctionalInterface
  interface TransferCall {
    long call(ByteBuffer buffer, int offset, int length);
  }

  /**
   * A batch call on encoded keys: one answer per key into {@code answers}, and the call's overall
   * status (not 0: every key answers it). {@code staged} is null for a batch without buffers.
   */
  @FunctionalInterface
  interface BatchCall {
    long call(byte[][] keys, BufferStaging.BatchTransfer staged, long[] answers);
  }

  private final ClientGate gate;
  private final BufferStaging staging;
  private final MasterOutage outage;
  private final String description;

  /** Where calls run when the caller's wait must be bounded (see {@link #bounded()}). */
  private final BoundedCalls bounded;

  /** Where a virtual thread's direct call runs, so that it does not pin its carrier. */
  private final VirtualThreadCalls virtualThreads = VirtualThreadCalls.shared();

  private final boolean alwaysBounded;
  private final long timeoutNanos;

  /** Tests: wraps every ABI call (e.g. to hold it on a latch); null in production. */
  private volatile UnaryOperator<LongClientCall> intercept;

  StoreCallRunner(
      MooncakeClient client,
      Duration operationTimeout,
      String description,
      ClientGate gate,
      BufferStaging staging) {
    this.gate = gate;
    this.staging = staging;
    this.description = description;
    this.outage =
        new MasterOutage(() -> client.isExist(PROBE_KEY), operationTimeout.toMillis(), description);
    long timeoutMs = Math.max(1, operationTimeout.toMillis());
    this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    this.alwaysBounded = timeoutMs < DIRECT_CALLS_FROM_MS;
    this.bounded = new BoundedCalls("store-calls", MAX_STUCK_CALLS);
  }

  /** Tests: wraps every ABI call made after this (null: none). */
  void interceptCalls(UnaryOperator<LongClientCall> intercept) {
    this.intercept = intercept;
  }

  /** Tests: waits until the master probe sent last has answered ({@link MasterOutage}). */
  void awaitMasterProbe() {
    outage.awaitProbe();
  }

  /** Whether calls fail fast now (the breaker is open). */
  boolean failingFast() {
    return outage.isOpen();
  }

  /** The store's description, with the master's trouble when it has some. */
  String describe() {
    return description + outage.describeNote();
  }

  /** Refuses new bounded calls; idle threads end, calls given up on finish first. */
  void close() {
    bounded.close();
  }

  /**
   * One call that answers a status or a length; answers at once while the master is unreachable.
   */
  long call(Deadline operation, String op, String key, boolean write, LongClientCall call) {
    Deadline deadline = admit(operation);
    if (deadline == null) {
      return outage.failFastCode();
    }
    return run(op, key, write, deadline, bounded(), call, BufferStaging.NOTHING_HELD);
  }

  /**
   * One call on one caller buffer: a {@code write} (a put) reads the buffer, a read (a get) fills
   * it and answers the bytes read.
   */
  long transfer(
      Deadline operation,
      String op,
      String key,
      boolean write,
      ByteBuffer buffer,
      TransferCall call) {
    try (OneTransfer transfer = begin(operation, buffer, write)) {
      return transfer.run(op, key, call);
    }
  }

  /**
   * Begins one transfer on one caller buffer: admitted (or failed fast) and the buffer staged. When
   * it is {@link OneTransfer#direct} its caller makes the native call itself and hands the answer
   * to {@link OneTransfer#answered}: the hot path's put and get then reach the native call with no
   * frame of this class under them (CallPathToNativeTest); else {@link OneTransfer#run} makes it.
   */
  OneTransfer begin(Deadline operation, ByteBuffer buffer, boolean write) {
    Deadline deadline = admit(operation);
    if (deadline == null) {
      return new OneTransfer(null, write, buffer, false, null);
    }
    boolean bound = bounded();
    return new OneTransfer(
        deadline, write, buffer, bound, staging.stage(buffer, write, bound, operation));
  }

  /** A transfer begun by {@link #begin}; closing it releases its staging unless given up on. */
  final class OneTransfer implements AutoCloseable {
    private final Deadline deadline;
    private final boolean write;
    private final ByteBuffer caller;
    private final boolean bound;
    private final BufferStaging.Transfer staged; // null: failed fast, nothing to send
    private final Deadline slow; // null: not direct

    private OneTransfer(
        Deadline deadline,
        boolean write,
        ByteBuffer caller,
        boolean bound,
        BufferStaging.Transfer staged) {
      this.deadline = deadline;
      this.write = write;
      this.caller = caller;
      this.bound = bound;
      this.staged = staged;
      this.slow = staged != null && runsDirectHere(bound) ? slowCallBound() : null;
    }

    /** Whether the caller makes the call itself, now, on its own thread. */
    boolean direct() {
      return slow != null;
    }

    ByteBuffer buffer() {
      return staged.buffer;
    }

    int offset() {
      return staged.offset;
    }

    int length() {
      return staged.length;
    }

    /** The answer of the caller's own direct call: the outage told, a read's bytes delivered. */
    long answered(long result) {
      answeredDirect(result, slow);
      return delivered(result);
    }

    /** The closed-store exception for a native call made on a closed handle. */
    RuntimeException closed(ClosedHandleException e) {
      return gate.closedException(e);
    }

    /**
     * Makes the call through {@link StoreCallRunner#run} (direct, bounded, a virtual thread's, a
     * test's intercepted one), or answers the fail-fast code when it was not admitted. The hot put
     * and get make a direct call themselves instead, for the frames only.
     */
    long run(String op, String key, TransferCall call) {
      if (staged == null) {
        return outage.failFastCode();
      }
      long result =
          StoreCallRunner.this.run(
              op,
              key,
              write,
              deadline,
              bound,
              () -> call.call(staged.buffer, staged.offset, staged.length),
              staged);
      return delivered(result);
    }

    private long delivered(long result) {
      if (!write) {
        staged.deliver(caller, result); // on this thread: never after the caller gave up
      }
      return result;
    }

    @Override
    public void close() {
      if (staged != null) {
        staged.close();
      }
    }
  }

  /**
   * One batch call (named {@code what} in messages) on {@code keys} and their {@code buffers}
   * (null: none; a {@code write} reads them, a read fills them): an answer per key, the overall
   * status in each when the call failed as a whole, the fail-fast code in each while the master is
   * unreachable.
   */
  long[] batch(
      Deadline operation,
      String what,
      boolean write,
      byte[][] keys,
      ByteBuffer[] buffers,
      BatchCall call) {
    long[] answers = new long[keys.length];
    Deadline deadline = admit(operation);
    if (deadline == null) {
      Arrays.fill(answers, outage.failFastCode());
      return answers;
    }
    boolean bound = bounded();
    long[] own = bound ? new long[answers.length] : answers; // a given-up call's own
    try (BufferStaging.BatchTransfer staged =
        buffers == null ? null : staging.stage(buffers, write, bound, operation)) {
      long overall =
          run(
              what,
              null,
              write,
              deadline,
              bound,
              () -> call.call(keys, staged, own),
              staged == null ? BufferStaging.NOTHING_HELD : staged);
      if (overall != 0) {
        Arrays.fill(answers, overall);
      } else {
        if (own != answers) {
          System.arraycopy(own, 0, answers, 0, answers.length);
        }
        if (staged != null && !write) {
          staged.deliver(buffers, answers);
        }
      }
    }
    answered(answers);
    return answers;
  }

  /**
   * Whether the caller's wait must be bounded now: always below {@link #DIRECT_CALLS_FROM_MS}, else
   * while the master has been in trouble lately. Decided before buffers are prepared: a bounded
   * call stages every buffer through the region ({@link BufferStaging}).
   */
  private boolean bounded() {
    return alwaysBounded || outage.troubled();
  }

  /**
   * Admits a call ({@link MasterOutage#admit}, waiting for a probe at most the call's time) and
   * answers its deadline, or null when it must answer {@link MasterOutage#failFastCode} unsent. The
   * call's time is {@code operation_timeout_ms}, or what is left of its operation's deadline when
   * that comes first: after a lock acquisition, only the rest.
   */
  private Deadline admit(Deadline operation) {
    gate.ensureOpen();
    Deadline deadline = Deadline.afterNanos(timeoutNanos, CLOCK).earlier(operation);
    return outage.admit(deadline.remainingNanos()) ? deadline : null;
  }

  /** Whether a call goes straight from the caller's thread: unbounded, no hand-off, no hook. */
  private boolean runsDirectHere(boolean bound) {
    return !bound && intercept == null && !virtualThreads.handsOff();
  }

  /** A direct call slower than one RPC timeout notes trouble: the calls after it are bounded. */
  private Deadline slowCallBound() {
    return Deadline.afterNanos(timeoutNanos / MooncakeSetup.MAX_RPCS_PER_CALL, CLOCK);
  }

  private void answeredDirect(long result, Deadline slow) {
    outage.answered(result);
    if (slow.expired()) {
      outage.noteTrouble();
    }
  }

  /**
   * Makes one ABI call. Direct: on the caller's thread (the fast path; a call slower than one RPC
   * timeout notes trouble, so the calls after it are bounded), or for a virtual thread on {@link
   * VirtualThreadCalls}, the virtual thread parked until it returns. Bounded: on {@link #bounded},
   * the caller waiting until {@code deadline}; a call given up on goes on, {@code held} is released
   * when it returns, and the caller gets a {@link CallTimeoutException} naming the status.
   */
  private long run(
      String op,
      String key,
      boolean write,
      Deadline deadline,
      boolean bound,
      LongClientCall call,
      BufferStaging.Held held) {
    UnaryOperator<LongClientCall> wrap = intercept;
    LongClientCall made = wrap == null ? call : wrap.apply(call);
    try {
      if (!bound) {
        Deadline slow = slowCallBound();
        // a virtual thread's on a platform thread; a platform thread's here (one frame less)
        long result = virtualThreads.handsOff() ? virtualThreads.call(made) : made.call();
        answeredDirect(result, slow);
        return result;
      }
      boolean[] handedOver = new boolean[1];
      String what = key == null ? op : op + " of '" + key + "'";
      try {
        return bounded.call(
            what,
            deadline.remainingNanos(), // refused unsent when it has passed
            () -> {
              long result = made.call();
              outage.answered(result);
              return result;
            },
            () -> {
              handedOver[0] = true;
              return held.abandon();
            });
      } catch (CallTimeoutException e) {
        if (handedOver[0]) {
          outage.gaveUp(); // a probe asks the master; the calls after it wait for its answer
        }
        throw new CallTimeoutException(
            e.getMessage()
                + "; "
                + StoreStatus.describe(StoreStatus.RPC_TIMEOUT.code())
                + (!handedOver[0]
                    ? ", not sent"
                    : write
                        ? ", the outcome of this " + op + " is unknown (it may yet take effect)"
                        : "")
                + " (operation_timeout_ms "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                + ", "
                + describe()
                + ")");
      }
    } catch (ClosedHandleException e) {
      throw gate.closedException(e);
    }
  }

  /** Tells the outage about the first fail-fast answer of a batch. */
  private void answered(long[] results) {
    for (long result : results) {
      if (StoreStatus.isFailFast(result)) {
        outage.answered(result);
        return;
      }
    }
  }
}
