package dev.mooncake.jcache.internal.backend;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Mooncake Store's result codes, with their names as Mooncake spells them, but for -1: its C ABI
 * answers -1 both for a bad argument or an exception caught in the C layer and for the C++ {@code
 * INTERNAL_ERROR}, and nothing tells the two apart, so the name says both.
 *
 * <p>Each code carries its {@link Retry} class, the one classification every retry loop reads
 * (docs/architecture.md, "Store codes"). Where a caller's context changes the answer, it asks a
 * named question defined here ({@link #isTransientForWrites}, {@link #isTransientForLockCalls},
 * {@link #isFailFast}, {@link #provesMasterUnreachable}), never a list of its own.
 */
public enum StoreStatus {
  OK(0, Retry.NONE),
  INTERNAL_ERROR_OR_INVALID_ARGUMENT(-1, Retry.PERMANENT),
  BUFFER_OVERFLOW(-10, Retry.PERMANENT),
  SEGMENT_NOT_FOUND(-101, Retry.PERMANENT),
  /** The pool is full and nothing can be evicted now; lock calls wait it out, writes fail. */
  NO_AVAILABLE_HANDLE(-200, Retry.PERMANENT),
  INVALID_PARAMS(-600, Retry.PERMANENT),
  ILLEGAL_CLIENT(-601, Retry.PERMANENT),
  /** Another put of the object is in flight: it lands or is revoked within moments. */
  REPLICA_IS_NOT_READY(-703, Retry.TRANSIENT),
  /** An answer, not a failure: every caller tests for it before asking the class. */
  OBJECT_NOT_FOUND(-704, Retry.PERMANENT),
  OBJECT_ALREADY_EXISTS(-705, Retry.PERMANENT),
  /** A read lease holds the object (a non-forced remove): it runs out. */
  OBJECT_HAS_LEASE(-706, Retry.TRANSIENT),
  /** A read's lease ran out before its transfer completed (seen under load): read again. */
  LEASE_EXPIRED(-707, Retry.TRANSIENT),
  OBJECT_HAS_REPLICATION_TASK(-708, Retry.PERMANENT),
  /** Readers hold the object an upsert would overwrite: they finish. */
  REPLICA_IS_BUSY(-714, Retry.TRANSIENT),
  /**
   * The object is listed but its segment cannot be reached (its JVM died or is paused) until the
   * master drops the segment at client_ttl; plain reads read it as absent, lock calls wait it out.
   */
  TRANSFER_FAIL(-800, Retry.PERMANENT),
  CHECKSUM_MISMATCH(-801, Retry.PERMANENT),
  /**
   * No connection to the master (a killed one: after Mooncake's reconnect loop): {@code
   * MasterOutage}'s breaker fails later calls fast.
   */
  RPC_FAIL(-900, Retry.FAIL_FAST),
  /**
   * An RPC that got no answer in time: a stopped master, but also seen from a read stuck on a
   * stopped or killed peer's segment with the master fine; also what a store call given up on
   * answers. {@code MasterOutage} sends a probe, and fails calls fast only if the probe fails too.
   */
  RPC_TIMEOUT(-901, Retry.FAIL_FAST),
  UNAVAILABLE_IN_CURRENT_STATUS(-1010, Retry.PERMANENT),
  UNAVAILABLE_IN_CURRENT_MODE(-1011, Retry.PERMANENT),
  NOT_SUPPORTED(-1012, Retry.PERMANENT),
  TENANT_QUOTA_EXCEEDED(-1700, Retry.PERMANENT),
  TENANT_NOT_REGISTERED(-1701, Retry.PERMANENT);

  /** What a retry loop does with a code, before its caller's context (the named questions). */
  public enum Retry {
    /** Not a failure: OK, and the byte counts and counts calls answer. */
    NONE,
    /** Another client is working on the object right now: retry within the deadline. */
    TRANSIENT,
    /** The master is unreachable: the breaker answers later calls at once until it is back. */
    FAIL_FAST,
    /** Asking again will not change the answer soon; also every code Mooncake has no name for. */
    PERMANENT
  }

  private static final Map<Long, StoreStatus> BY_CODE = new HashMap<>();

  static {
    for (StoreStatus status : values()) {
      BY_CODE.put((long) status.code, status);
    }
  }

  private final int code;
  private final Retry retry;

  StoreStatus(int code, Retry retry) {
    this.code = code;
    this.retry = retry;
  }

  public int code() {
    return code;
  }

  public Retry retry() {
    return retry;
  }

  /** The status for a code, or {@code null} when Mooncake's table has no such code. */
  public static StoreStatus of(long code) {
    return BY_CODE.get(code);
  }

  /**
   * The class of any answer: {@link Retry#NONE} for 0 and above (sizes, counts), {@link
   * Retry#PERMANENT} for a negative code not in the table.
   */
  public static Retry retryOf(long code) {
    if (code >= 0) {
      return Retry.NONE;
    }
    StoreStatus status = of(code);
    return status == null ? Retry.PERMANENT : status.retry;
  }

  /**
   * Whether the master could not be reached ({@link Retry#FAIL_FAST}): from a data call, the
   * breaker opens on {@link #provesMasterUnreachable} and probes on the rest; from its probe, it
   * opens.
   */
  public static boolean isFailFast(long code) {
    return retryOf(code) == Retry.FAIL_FAST;
  }

  /**
   * Whether a data call's answer alone proves the master unreachable, so {@code MasterOutage} opens
   * its breaker without a probe: -900 only (Mooncake found no connection to the master). A -901 may
   * be a peer's transfer (see {@link #RPC_TIMEOUT}): a probe decides.
   */
  public static boolean provesMasterUnreachable(long code) {
    return code == RPC_FAIL.code;
  }

  /**
   * Whether a data put or remove retries {@code code} until the operation's deadline: the TRANSIENT
   * codes but -707 and -714, which answer reads and upserts (calls a data write does not make), so
   * from a write they are unexplained and reported at once, as FAIL_FAST is.
   */
  public static boolean isTransientForWrites(long code) {
    return retryOf(code) == Retry.TRANSIENT
        && code != LEASE_EXPIRED.code
        && code != REPLICA_IS_BUSY.code;
  }

  /**
   * Whether a call on a cluster lock object (put, read, size, remove) is retried until the
   * acquisition's or release's deadline: an acquisition is a wait with a deadline anyway, so it
   * waits out FAIL_FAST too (a master restarted within it serves the lock), -800 (a dead or paused
   * holder's segment, until the master drops it: seen on a real Mooncake) and -200 (a full pool
   * being evicted: a lock record is a few dozen bytes).
   */
  public static boolean isTransientForLockCalls(long code) {
    Retry retry = retryOf(code);
    return retry == Retry.TRANSIENT
        || retry == Retry.FAIL_FAST
        || code == TRANSFER_FAIL.code
        || code == NO_AVAILABLE_HANDLE.code;
  }

  /**
   * How long a put in flight (-703) is waited for before it counts as one that never lands: its
   * writer was killed, or lost its lock, between Mooncake's PutStart and PutEnd (a live put lands
   * within milliseconds). Mooncake removes such a put only at a later PutStart of the key made
   * {@code put_start_discard_timeout} (30 s at 3b5a594) after it began, never at a remove, which
   * answers -703 for ever: so a caller that has waited this long puts again (a write, a lock
   * acquisition) or reports nothing removed (a remove).
   */
  public static final long STUCK_PUT_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** {@link #describe(long)} of this status's code. */
  public String describe() {
    return describe(code);
  }

  /** {@code "-200 NO_AVAILABLE_HANDLE"}, or {@code "-42 UNKNOWN"} for a code not in the table. */
  public static String describe(long code) {
    StoreStatus status = of(code);
    if (status == INTERNAL_ERROR_OR_INVALID_ARGUMENT) {
      return "-1 INTERNAL_ERROR_OR_INVALID_ARGUMENT (Mooncake's C ABI answers -1 for an invalid"
          + " argument, an exception inside the library, and an internal error alike)";
    }
    return code + " " + (status == null ? "UNKNOWN" : status.name());
  }
}
