package dev.mooncake.jcache.internal.lock.cluster;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What the master's KV event stream tells a keeping JVM about wants (docs/lock-keeping.md, "The
 * wake-up"): a {@code stored} event of a want key wakes the sweep, which then asks the master about
 * that key's want alone, instead of polling every want every 10 ms. An event only says "ask now":
 * nothing is released on an event's word, so a stale or echoed event costs one {@code
 * batch_is_exist}, never a wrong release. While no feed is live (events off, the stream down, or
 * just flushed) the sweep polls every want as before.
 */
public final class WantEvents {
  /**
   * How long a heard want is remembered for a lock acquired after it: far above an acquisition's
   * usual time and the waiters' 50 ms re-put, and short enough to keep the map small.
   */
  static final long HEARD_FOR_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** Never asked yet: any heard want counts. */
  static final long NEVER = Long.MIN_VALUE;

  private final LongSupplier clock;
  private final Runnable wake;
  private final ConcurrentHashMap<String, Long> heard = new ConcurrentHashMap<>();
  private final Set<Feed> live = ConcurrentHashMap.newKeySet();
  private volatile boolean resync = true;

  /**
   * @param clock the locks' monotonic clock
   * @param wake wakes the sweep's thread
   */
  WantEvents(LongSupplier clock, Runnable wake) {
    this.clock = clock;
    this.wake = wake;
  }

  /** A new source of events (one per cache manager with {@code events_endpoint}); not yet live. */
  Feed open() {
    return new Feed();
  }

  /** Whether some feed is live now: the stream reaches this JVM and missed nothing since. */
  boolean live() {
    return !live.isEmpty();
  }

  /**
   * Whether every want must be asked for once (events may have been missed: a flush, a feed that
   * closed, a failed poll), and forgets the need: the caller asks now.
   */
  boolean takeResync() {
    if (!resync) {
      return false;
    }
    resync = false;
    return true;
  }

  /** A poll that was to resync failed: the next sweep asks every want again. */
  void resyncAgain() {
    resync = true;
  }

  /** Whether a {@code stored} of {@code wantKey} arrived at or after {@code since} (or ever). */
  boolean heardSince(String wantKey, long since) {
    Long at = heard.get(wantKey);
    return at != null && (since == NEVER || at - since >= 0);
  }

  /** Forgets wants heard more than {@link #HEARD_FOR_NANOS} ago. */
  void prune(long now) {
    heard.values().removeIf(at -> now - at > HEARD_FOR_NANOS);
  }

  /** How many heard wants are remembered (for tests). */
  int remembered() {
    return heard.size();
  }

  /**
   * One subscriber's view of the stream: the wiring hands it the {@code stored} events of keys
   * under {@link ClusterKeyLocks#WANT_KEY_PREFIX} and every flush. Called on the subscription's
   * thread: it records and wakes, and never calls the store.
   */
  public final class Feed implements AutoCloseable {
    private Feed() {}

    /** A {@code stored} event of an object under the want prefix. */
    public void stored(String objectKey) {
      if (objectKey == null || !objectKey.startsWith(LockNames.WANT_PREFIX)) {
        return;
      }
      heard.put(objectKey, clock.getAsLong());
      wake.run();
    }

    /**
     * The stream may have missed events (or just connected): every want is asked for once, and
     * while {@code isLive} is false the sweep polls.
     */
    public void flushed(boolean isLive) {
      resync = true;
      if (isLive) {
        live.add(this);
      } else {
        live.remove(this);
      }
      wake.run();
    }

    /** This feed ends (its manager closed): the sweep polls unless another feed is live. */
    @Override
    public void close() {
      live.remove(this);
      resync = true;
    }
  }
}
