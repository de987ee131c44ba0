package dev.mooncake.jcache.internal.expiry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;
import org.junit.jupiter.api.Test;

/** Policy durations turned into absolute expiry times, and the sentinels that stand for none. */
class ExpiryTimesTest {
  private static final long NOW = 1_700_000_000_000L;
  private static final Duration SECOND = new Duration(TimeUnit.SECONDS, 1);

  @Test
  void theSentinelsAreDistinct() {
    long[] all = {
      ExpiryTimes.ETERNAL,
      ExpiryTimes.UNCHANGED,
      ExpiryTimes.EXPIRED_NOW,
      ExpiryTimes.NOT_STORED,
      ExpiryTimes.ABSENT
    };
    for (int i = 0; i < all.length; i++) {
      for (int j = i + 1; j < all.length; j++) {
        assertEquals(false, all[i] == all[j], i + " and " + j + " are the same value");
      }
    }
  }

  @Test
  void onlyPoliciesWhoseEveryDurationIsEternalOrUnchangedNeverExpire() {
    assertEquals(true, new ExpiryTimes(new EternalExpiryPolicy()).neverExpires());
    for (ExpiryPolicy eternal :
        new ExpiryPolicy[] {
          new CreatedExpiryPolicy(Duration.ETERNAL),
          new ModifiedExpiryPolicy(Duration.ETERNAL),
          new AccessedExpiryPolicy(Duration.ETERNAL),
          new javax.cache.expiry.TouchedExpiryPolicy(Duration.ETERNAL)
        }) {
      assertEquals(true, new ExpiryTimes(eternal).neverExpires(), eternal.getClass().getName());
    }
    for (ExpiryPolicy expiring :
        new ExpiryPolicy[] {
          new CreatedExpiryPolicy(SECOND),
          new ModifiedExpiryPolicy(Duration.ZERO),
          new AccessedExpiryPolicy(SECOND),
          new javax.cache.expiry.TouchedExpiryPolicy(SECOND)
        }) {
      assertEquals(false, new ExpiryTimes(expiring).neverExpires(), expiring.getClass().getName());
    }
    // nor is any other policy, even one that answers ETERNAL now
    ExpiryPolicy custom =
        new ExpiryPolicy() {
          @Override
          public Duration getExpiryForCreation() {
            return Duration.ETERNAL;
          }

          @Override
          public Duration getExpiryForAccess() {
            return null;
          }

          @Override
          public Duration getExpiryForUpdate() {
            return null;
          }
        };
    assertEquals(false, new ExpiryTimes(custom).neverExpires());
  }

  @Test
  void createdExpiryCountsFromCreationOnly() {
    ExpiryTimes times = new ExpiryTimes(new CreatedExpiryPolicy(SECOND));
    assertEquals(NOW + 1000, times.forCreation(NOW));
    assertEquals(ExpiryTimes.UNCHANGED, times.forUpdate(NOW));
    assertEquals(ExpiryTimes.UNCHANGED, times.forAccess(NOW));
  }

  @Test
  void modifiedAndAccessedExpiry() {
    ExpiryTimes modified = new ExpiryTimes(new ModifiedExpiryPolicy(SECOND));
    assertEquals(NOW + 1000, modified.forUpdate(NOW));
    assertEquals(ExpiryTimes.UNCHANGED, modified.forAccess(NOW));
    ExpiryTimes accessed = new ExpiryTimes(new AccessedExpiryPolicy(SECOND));
    assertEquals(NOW + 1000, accessed.forAccess(NOW));
  }

  @Test
  void eternalZeroAndNull() {
    ExpiryTimes eternal = new ExpiryTimes(new EternalExpiryPolicy());
    assertEquals(ExpiryTimes.ETERNAL, eternal.forCreation(NOW));
    ExpiryTimes zero = new ExpiryTimes(new CreatedExpiryPolicy(Duration.ZERO));
    assertEquals(ExpiryTimes.EXPIRED_NOW, zero.forCreation(NOW));
    ExpiryTimes none = new ExpiryTimes(policy(null, null, null));
    assertEquals(ExpiryTimes.ETERNAL, none.forCreation(NOW), "a null creation duration");
    assertEquals(ExpiryTimes.UNCHANGED, none.forUpdate(NOW));
  }

  @Test
  void aFiniteDurationNeverReadsAsEternal() {
    ExpiryTimes huge =
        new ExpiryTimes(
            new CreatedExpiryPolicy(new Duration(TimeUnit.DAYS, Long.MAX_VALUE / 1000)));
    assertEquals(ExpiryTimes.ETERNAL - 1, huge.forCreation(NOW));
  }

  @Test
  void aPolicyThatThrowsKeepsTheEntryAsItIsAndACreationEternal() {
    ExpiryPolicy failing =
        new ExpiryPolicy() {
          @Override
          public Duration getExpiryForCreation() {
            throw new IllegalStateException("boom");
          }

          @Override
          public Duration getExpiryForAccess() {
            throw new IllegalStateException("boom");
          }

          @Override
          public Duration getExpiryForUpdate() {
            throw new IllegalStateException("boom");
          }
        };
    ExpiryTimes times = new ExpiryTimes(failing);
    assertEquals(ExpiryTimes.ETERNAL, times.forCreation(NOW), "a creation is then eternal");
    assertEquals(ExpiryTimes.UNCHANGED, times.forUpdate(NOW));
    assertEquals(ExpiryTimes.UNCHANGED, times.forAccess(NOW));
  }

  private static ExpiryPolicy policy(Duration creation, Duration access, Duration update) {
    return new ExpiryPolicy() {
      @Override
      public Duration getExpiryForCreation() {
        return creation;
      }

      @Override
      public Duration getExpiryForAccess() {
        return access;
      }

      @Override
      public Duration getExpiryForUpdate() {
        return update;
      }
    };
  }
}
