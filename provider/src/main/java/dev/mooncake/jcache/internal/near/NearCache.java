package dev.mooncake.jcache.internal.near;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * A bounded on-heap copy of recently read entries of one cache, kept by store key. It is only as
 * good as the invalidations it is told about, so the rules are strict:
 *
 * <ul>
 *   <li>It serves and accepts entries only while it is <em>live</em> (the event stream is known to
 *       reach this JVM); every {@link #flush} empties it, and a flush that is not live keeps it
 *       empty until a live one.
 *   <li>A read of the store that is in flight when an invalidation of its key (or a flush) arrives
 *       must not install what it read: {@link #token} is taken before the read and {@link #install}
 *       refuses when the key's stripe moved since. Check and put are one atomic step on the key, so
 *       an invalidation racing with the install removes what it put before it returns.
 *   <li>An entry past its expiry time (from the value header) is a miss.
 * </ul>
 */
public final class NearCache<E> {
  /** A token that no stripe ever has: installs with it are refused. */
  public static final long REFUSED = -1;

  private static final int STRIPES = 1024;

  private final Cache<String, Held<E>> entries;

  /** Invalidation counters, one per stripe of keys; a flush moves them all. */
  private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);

  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder installs = new LongAdder();
  private final LongAdder refusedInstalls = new LongAdder();
  private final LongAdder invalidations = new LongAdder();
  private final LongAdder ownInvalidations = new LongAdder();
  private final LongAdder flushes = new LongAdder();
  private volatile boolean live;

  public NearCache(long maxEntries) {
    if (maxEntries <= 0) {
      throw new IllegalArgumentException("near_cache max_entries must be > 0, not " + maxEntries);
    }
    // Maintenance on the caller's thread: no pool threads, and sizes are exact for tests.
    this.entries = Caffeine.newBuilder().maximumSize(maxEntries).executor(Runnable::run).build();
  }

  /** The entry held for {@code key}, unless absent, expired at {@code nowMillis} or not live. */
  public E get(String key, long nowMillis) {
    if (!live) {
      misses.increment();
      return null;
    }
    Held<E> held = entries.getIfPresent(key);
    if (held == null) {
      misses.increment();
      return null;
    }
    if (held.expireAt <= nowMillis) {
      entries.asMap().remove(key, held);
      misses.increment();
      return null;
    }
    hits.increment();
    return held.value;
  }

  /** Take this before reading {@code key} from the store; hand it to {@link #install}. */
  public long token(String key) {
    return live ? stripes.get(stripe(key)) : REFUSED;
  }

  /**
   * Keeps what a read found, unless {@code key} was invalidated (or all flushed) since the token.
   */
  public void install(String key, E value, long expireAt, long token) {
    if (token == REFUSED || !live) {
      refusedInstalls.increment();
      return;
    }
    int stripe = stripe(key);
    if (stripes.get(stripe) != token) {
      refusedInstalls.increment();
      return;
    }
    Held<E> held = new Held<>(value, expireAt);
    boolean[] kept = new boolean[1];
    // the check and the put are one atomic step on the key: an invalidation that moved the stripe
    // after the check waits for this step and then removes what it put, so no reader sees the
    // stale copy once invalidate() has returned (a put-then-recheck let readers see it between)
    entries
        .asMap()
        .compute(
            key,
            (k, old) -> {
              kept[0] = stripes.get(stripe) == token && live;
              return kept[0] ? held : old;
            });
    (kept[0] ? installs : refusedInstalls).increment();
  }

  /** Forgets {@code key} (an event of the stream named it); reads in flight will not install. */
  public void invalidate(String key) {
    forget(key);
    invalidations.increment();
  }

  /** Forgets {@code key} because this JVM just changed it (counted apart from the events). */
  public void invalidateOwnWrite(String key) {
    forget(key);
    ownInvalidations.increment();
  }

  private void forget(String key) {
    stripes.incrementAndGet(stripe(key));
    entries.invalidate(key);
  }

  /** Forgets everything (this JVM removed the cache's entries in bulk); liveness is unchanged. */
  public void clear() {
    for (int i = 0; i < STRIPES; i++) {
      stripes.incrementAndGet(i);
    }
    entries.invalidateAll();
  }

  /** Forgets everything; {@code live} says whether entries may be kept again from now on. */
  public void flush(boolean live) {
    if (!live) {
      this.live = false;
    }
    for (int i = 0; i < STRIPES; i++) {
      stripes.incrementAndGet(i);
    }
    entries.invalidateAll();
    flushes.increment();
    if (live) {
      this.live = true;
    }
  }

  public boolean isLive() {
    return live;
  }

  public long size() {
    return entries.estimatedSize();
  }

  public long hits() {
    return hits.sum();
  }

  /** Gets that found nothing to serve (absent, expired or not live). */
  public long misses() {
    return misses.sum();
  }

  /** Store reads kept. */
  public long installs() {
    return installs.sum();
  }

  /** Store reads not kept: an invalidation or flush came while they were in flight, or not live. */
  public long refusedInstalls() {
    return refusedInstalls.sum();
  }

  /** Invalidations by the event stream's events (own writes' echoes included). */
  public long invalidations() {
    return invalidations.sum();
  }

  /** Invalidations by this JVM's own writes, at the write (before their echo arrives). */
  public long ownInvalidations() {
    return ownInvalidations.sum();
  }

  public long flushes() {
    return flushes.sum();
  }

  private static int stripe(String key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16)) & (STRIPES - 1);
  }

  private record Held<E>(E value, long expireAt) {}
}
