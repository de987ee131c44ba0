package dev.mooncake.jcache.internal.expiry;

import java.util.Set;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.expiry.TouchedExpiryPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns an {@link ExpiryPolicy}'s durations into absolute expiry times (epoch millis) as stored in
 * the value header. The sentinels that travel in place of an expiry time are all defined here. A
 * policy that throws is logged and treated as "no change" (the spec leaves the entry's expiry as it
 * was; for a creation, eternal).
 */
public final class ExpiryTimes {
  /** The entry never expires. */
  public static final long ETERNAL = Long.MAX_VALUE;

  /** Keep the entry's current expiry time. */
  public static final long UNCHANGED = Long.MIN_VALUE;

  /** The entry is expired as of now (Duration.ZERO). */
  public static final long EXPIRED_NOW = 0L;

  /** A creation that expires at once: the entry is not stored at all. */
  public static final long NOT_STORED = Long.MIN_VALUE + 1;

  /** No entry: what a zero-copy read answers instead of an expiry time for a missing key. */
  public static final long ABSENT = Long.MIN_VALUE + 2;

  private static final Logger LOG = LoggerFactory.getLogger(ExpiryTimes.class);

  /**
   * JCache's own policies with one fixed duration each (final classes): their answers are constants
   * (final fields, no clock), so one look at them says what every call will answer. Any other
   * policy may answer differently per call, so only these classes are inspected.
   */
  private static final Set<Class<?>> FIXED_DURATION_POLICIES =
      Set.of(
          CreatedExpiryPolicy.class,
          ModifiedExpiryPolicy.class,
          AccessedExpiryPolicy.class,
          TouchedExpiryPolicy.class);

  private final ExpiryPolicy policy;
  private final boolean neverExpires;

  public ExpiryTimes(ExpiryPolicy policy) {
    this.policy = policy;
    this.neverExpires = neverExpires(policy);
  }

  public ExpiryPolicy policy() {
    return policy;
  }

  /**
   * Whether no entry written under this policy can ever expire, known without reading one: the
   * eternal policy, or one of JCache's fixed-duration policies whose every duration is {@link
   * Duration#ETERNAL} or "unchanged" (null), e.g. {@code CreatedExpiryPolicy.factoryOf(ETERNAL)}.
   * Then an entry's presence alone answers containsKey, and a put need not read the old entry's
   * expiry time.
   */
  public boolean neverExpires() {
    return neverExpires;
  }

  private static boolean neverExpires(ExpiryPolicy policy) {
    if (policy instanceof EternalExpiryPolicy) {
      return true;
    }
    if (!FIXED_DURATION_POLICIES.contains(policy.getClass())) {
      return false;
    }
    Duration creation = policy.getExpiryForCreation();
    return creation != null
        && creation.isEternal()
        && eternalOrUnchanged(policy.getExpiryForUpdate())
        && eternalOrUnchanged(policy.getExpiryForAccess());
  }

  private static boolean eternalOrUnchanged(Duration duration) {
    return duration == null || duration.isEternal();
  }

  // Each policy call is made here, not through a Supplier: a method reference per get allocated.

  /** The expiry time of an entry created now: never {@link #UNCHANGED}. */
  public long forCreation(long nowMillis) {
    Duration duration;
    try {
      duration = policy.getExpiryForCreation();
    } catch (RuntimeException e) {
      failed(e);
      return ETERNAL; // UNCHANGED here would read as an expiry time long past
    }
    long time = toTime(duration, nowMillis);
    return time == UNCHANGED ? ETERNAL : time;
  }

  /** The expiry time of an entry updated now, or {@link #UNCHANGED}. */
  public long forUpdate(long nowMillis) {
    try {
      return toTime(policy.getExpiryForUpdate(), nowMillis);
    } catch (RuntimeException e) {
      return failed(e);
    }
  }

  /** The expiry time of an entry read now, or {@link #UNCHANGED}. */
  public long forAccess(long nowMillis) {
    try {
      return toTime(policy.getExpiryForAccess(), nowMillis);
    } catch (RuntimeException e) {
      return failed(e);
    }
  }

  private static long failed(RuntimeException e) {
    LOG.warn("the expiry policy failed; keeping the entry's expiry time", e);
    return UNCHANGED;
  }

  private static long toTime(Duration duration, long nowMillis) {
    if (duration == null) {
      return UNCHANGED;
    }
    if (duration.isZero()) {
      return EXPIRED_NOW;
    }
    if (duration.isEternal()) {
      return ETERNAL;
    }
    // Not Duration.getAdjustedTime: it overflows to a time long past for a huge duration. A
    // finite duration must not read as eternal either, so it saturates one below.
    long millis = duration.getTimeUnit().toMillis(duration.getDurationAmount());
    return millis >= ETERNAL - 1 - nowMillis ? ETERNAL - 1 : nowMillis + millis;
  }
}
