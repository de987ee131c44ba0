package dev.mooncake.jcache.internal.expiry;

import dev.mooncake.jcache.internal.time.Ticker;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One background thread per cache manager that periodically asks each cache to remove its expired
 * entries. Mooncake keeps no per-object TTL, so without this an expired entry nobody reads again
 * would hold pool memory until evicted.
 */
public final class ExpirySweeper implements AutoCloseable {
  /** A cache whose expired entries can be swept. */
  public interface Sweepable {
    /** Removes expired entries whose deadline has passed; answers how many keys were examined. */
    int sweepExpired(long nowMillis);
  }

  private static final Logger LOG = LoggerFactory.getLogger(ExpirySweeper.class);

  private final Set<Sweepable> caches = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timer;
  private final Ticker ticker;

  /** Sweeps every {@code intervalMillis} of real time, asking {@code ticker} what time it is. */
  public ExpirySweeper(String threadName, long intervalMillis, Ticker ticker) {
    this.ticker = ticker;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, threadName);
              thread.setDaemon(true);
              return thread;
            });
    timer.scheduleWithFixedDelay(
        this::sweepNow, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
  }

  public void register(Sweepable cache) {
    caches.add(cache);
  }

  public void deregister(Sweepable cache) {
    caches.remove(cache);
  }

  /** One round over every cache, now (the timer runs it; tests with a fake ticker call it). */
  public void sweepNow() {
    long now = ticker.epochMillis();
    for (Sweepable cache : caches) {
      try {
        cache.sweepExpired(now);
      } catch (RuntimeException e) {
        // A store hiccup must not kill the timer; the next round tries again.
        LOG.warn("expiry sweep of {} failed", cache, e);
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
