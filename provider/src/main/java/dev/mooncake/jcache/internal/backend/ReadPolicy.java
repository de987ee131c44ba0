package dev.mooncake.jcache.internal.backend;

import dev.mooncake.jcache.internal.time.Deadline;
import java.util.EnumMap;

/**
 * What a read does with each answer of the store: the one table every read path follows, so that no
 * caller above {@code backend} compares codes of its own. A rule says how often the read is
 * repeated on that answer, how it pauses in between, and what it ends with once the repeats are
 * spent or the operation's deadline has passed (whichever comes first).
 *
 * <p>Two columns ({@link #forEntryRead}, {@link #forLockRead}), because a cluster lock's read of
 * its lock object is a wait with a deadline anyway: it waits out what a data read cannot
 * (docs/architecture.md, "Store codes", gives the table and the reasons).
 *
 * <ul>
 *   <li>Entry reads: the plain {@code get} ({@code EntryStorage.readNow}), the zero-copy {@code
 *       get} ({@code readInPlace}), and the batch and lock-riding reads, which take a value or -704
 *       from their batch answer and read any other answer again singly, by this table.
 *   <li>Lock reads: {@code ClusterKeyLocks} reading its lock objects (alone, with a ride, in a
 *       batch).
 * </ul>
 *
 * <p>An enum, so that callers compare rules by identity and switch on them; its fields, constructor
 * and accessors are the usual boilerplate of an enum with data ({@code duplicates} pairs them with
 * other such classes).
 */
public enum ReadPolicy {
  /** A byte count: check the bytes and use them. */
  VALUE(0, Pause.NONE, End.VALUE),
  /** -704: nothing is stored under the key. */
  ABSENT(0, Pause.NONE, End.ABSENT),
  /**
   * -703, entry reads: a put of the key is in flight; it lands within moments (or never: its writer
   * died), so the read spins briefly, then answers absent (the put is not visible yet).
   */
  PUT_IN_FLIGHT(50, Pause.SPIN, End.ABSENT),
  /**
   * -707, entry reads: the read's lease ran out before its transfer finished (a paused reader, a
   * loaded machine): a new read takes a new lease, until the deadline; then it fails.
   */
  LEASE_RAN_OUT(Integer.MAX_VALUE, Pause.BACK_OFF, End.FAIL),
  /**
   * -800, entry reads: the object is listed but its segment cannot be reached. {@link
   * StoreStatus#TRANSFER_FAIL} is PERMANENT for retry loops (the master drops a dead segment only
   * at client_ttl, too long for a read to wait), but one failed transfer does not prove the segment
   * gone, so a read repeats it a few times (1 + 2 + 4 ms), then answers absent, counted as an
   * unreachable read (docs/deviations.md).
   */
  UNREACHABLE(3, Pause.BACK_OFF, End.UNREACHABLE),
  /**
   * Lock reads of every code {@link StoreStatus#isTransientForLockCalls} names (-703, -706, -707,
   * -714, -800, -200, -900, -901): the acquisition watches the object's size and reads again until
   * its deadline, then reports the lock not acquired with the last answer.
   */
  WAIT(Integer.MAX_VALUE, Pause.WATCH, End.FAIL),
  /** Any other code (and codes Mooncake has no name for): the read fails, naming the status. */
  FAIL(0, Pause.NONE, End.FAIL);

  /** How a read pauses before it repeats. */
  public enum Pause {
    NONE,
    /** A spin-wait hint only: a put in flight lands in microseconds in process. */
    SPIN,
    /** 1, 2, 4 … 16 ms: another client's work (a transfer, a lease) takes milliseconds. */
    BACK_OFF,
    /** A lock acquisition's own wait: the master's size of the object says when to read again. */
    WATCH
  }

  /** What the read answers once its repeats are spent (or at once, for a rule without any). */
  public enum End {
    VALUE,
    ABSENT,
    /** Absent, counted and logged as a read of an unreachable segment. */
    UNREACHABLE,
    FAIL
  }

  private final int retries;
  private final Pause pause;
  private final End end;

  ReadPolicy(int retries, Pause pause, End end) {
    this.retries = retries;
    this.pause = pause;
    this.end = end;
  }

  /** How often a read repeats on this answer, at most ({@link Integer#MAX_VALUE}: the deadline). */
  public int retries() {
    return retries;
  }

  public Pause pause() {
    return pause;
  }

  public End end() {
    return end;
  }

  /** The rule of an entry read's answer (a byte count or a code). */
  public static ReadPolicy forEntryRead(long answer) {
    if (answer >= 0) {
      return VALUE;
    }
    StoreStatus status = StoreStatus.of(answer);
    if (status == null) {
      return FAIL;
    }
    return switch (status) {
      case OBJECT_NOT_FOUND -> ABSENT;
      case REPLICA_IS_NOT_READY -> PUT_IN_FLIGHT;
      case LEASE_EXPIRED -> LEASE_RAN_OUT;
      case TRANSFER_FAIL -> UNREACHABLE;
      default -> FAIL;
    };
  }

  /** The rule of a lock read's answer (a byte count or a code). */
  public static ReadPolicy forLockRead(long answer) {
    if (answer >= 0) {
      return VALUE;
    }
    if (StoreStatus.of(answer) == StoreStatus.OBJECT_NOT_FOUND) {
      return ABSENT;
    }
    return StoreStatus.isTransientForLockCalls(answer) ? WAIT : FAIL;
  }

  /**
   * The repeats one read has made, per rule: each rule's count is its own (a -703 spin does not
   * spend the -800 repeats).
   */
  public static final class Tries {
    private EnumMap<ReadPolicy, Integer> made; // made on the first repeat: most reads make none

    /**
     * Whether the read repeats after an answer of {@code rule}: its repeats are not spent and the
     * {@code deadline} has not passed. When it does, the repeat is counted; {@link #made} tells the
     * pause's step.
     */
    public boolean again(ReadPolicy rule, Deadline deadline) {
      if (made(rule) >= rule.retries || deadline.expired()) {
        return false;
      }
      if (made == null) {
        made = new EnumMap<>(ReadPolicy.class);
      }
      made.merge(rule, 1, Integer::sum);
      return true;
    }

    /** The repeats made so far on {@code rule}'s answers. */
    public int made(ReadPolicy rule) {
      return made == null ? 0 : made.getOrDefault(rule, 0);
    }
  }
}
