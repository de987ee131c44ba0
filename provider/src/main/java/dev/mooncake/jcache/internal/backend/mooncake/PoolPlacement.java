package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.internal.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicate config of value puts ({@code C}: a native {@code ReplicaConfig} in production),
 * kept pointing at the live pool. A pool process restarted under P2PHANDSHAKE mounts its segment
 * under a new name (its port is chosen at start), and a put that prefers the old name still answers
 * 0: Mooncake skips a preferred segment that does not exist and places the value at random, in an
 * app JVM's lock segment too (docs/cluster-consistency.md). No answer says so, so waiting for a
 * failure would wait forever; instead the master's segment list is read again every {@code
 * interval} (a bounded HTTP request on a daemon thread, never on a put's path) and a new config is
 * made when the pools differ.
 *
 * <p>A config given up is closed only after {@code retireAfter} (longer than any put that read it
 * can still be running), or when this closes: a put that read it just before the swap still uses a
 * live config. Closing a native config also waits for calls inside it.
 */
final class PoolPlacement<C extends AutoCloseable> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PoolPlacement.class);

  /** JVM property: how often the pools are listed again (default 5 s; tests shorten it). */
  static final String INTERVAL_PROPERTY = "mooncake.jcache.poolRefreshMillis";

  static final long DEFAULT_INTERVAL_MS = 5_000;

  private record Current<C>(List<String> segments, C config) {}

  private record Retired<C>(C config, long since) {}

  private final Function<List<String>, C> make;
  private final Callable<List<String>> discover;
  private final LongSupplier nanoClock;
  private final long retireAfterNanos;
  private final ScheduledExecutorService refresher;
  private volatile Current<C> current;

  // guarded by this
  private final List<Retired<C>> retired = new ArrayList<>();
  private boolean closed;
  private String problem; // the last problem logged, so that a lasting one is logged once

  /**
   * {@code refresher} null: no thread (tests call {@link #refresh} themselves, on their clock);
   * otherwise closed with the placement.
   */
  PoolPlacement(
      List<String> initial,
      Function<List<String>, C> make,
      Callable<List<String>> discover,
      LongSupplier nanoClock,
      Duration retireAfter,
      ScheduledExecutorService refresher) {
    this.make = make;
    this.discover = discover;
    this.nanoClock = nanoClock;
    this.retireAfterNanos = retireAfter.toNanos();
    this.refresher = refresher;
    this.current = new Current<>(List.copyOf(initial), make.apply(initial));
  }

  /** A placement that never changes (configured {@code preferred_segments}, or none). */
  static <C extends AutoCloseable> PoolPlacement<C> fixed(
      List<String> segments, Function<List<String>, C> make) {
    return new PoolPlacement<>(
        segments, make, () -> segments, Ticker.system()::nanos, Duration.ZERO, null);
  }

  /**
   * A placement that lists the pools again every {@code interval} on a daemon thread of its own;
   * {@code discover} answers the pools now (possibly none) or throws.
   */
  static <C extends AutoCloseable> PoolPlacement<C> rediscovering(
      List<String> initial,
      Function<List<String>, C> make,
      Callable<List<String>> discover,
      Duration interval,
      Duration retireAfter) {
    ScheduledExecutorService refresher =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "mooncake-pool-discovery");
              thread.setDaemon(true);
              return thread;
            });
    PoolPlacement<C> placement =
        new PoolPlacement<>(
            initial, make, discover, Ticker.system()::nanos, retireAfter, refresher);
    long ms = interval.toMillis();
    refresher.scheduleWithFixedDelay(placement::refresh, ms, ms, TimeUnit.MILLISECONDS);
    return placement;
  }

  /** The interval of {@link #INTERVAL_PROPERTY}. */
  static Duration interval() {
    return Duration.ofMillis(Math.max(100, Long.getLong(INTERVAL_PROPERTY, DEFAULT_INTERVAL_MS)));
  }

  /** The config a value put carries now. */
  C config() {
    return current.config();
  }

  /** The pools value puts prefer now. */
  List<String> segments() {
    return current.segments();
  }

  /**
   * Lists the pools once; when they differ from the current ones (and some are mounted), makes a
   * config for them and puts it in place. Answers whether it did. Never throws: a failed listing
   * keeps the current pools and is logged (once while it lasts).
   */
  boolean refresh() {
    List<String> found;
    try {
      found = discover.call();
    } catch (Exception e) {
      report("cannot list the pools, value puts keep preferring " + segments() + ": " + e);
      return false;
    }
    if (found.isEmpty()) {
      report(
          "no pool segment is mounted; value puts keep preferring "
              + segments()
              + " and land in any segment while it is missing");
      return false;
    }
    List<String> was;
    synchronized (this) {
      report(null);
      closeRetired(false);
      was = current.segments();
      if (closed || found.equals(was)) {
        return false;
      }
      C fresh;
      try {
        fresh = make.apply(found);
      } catch (RuntimeException e) { // the client is closing, say: keep the current config
        LOG.warn("cannot make a replicate config for the pools {}: {}", found, e.toString());
        return false;
      }
      retired.add(new Retired<>(current.config(), nanoClock.getAsLong()));
      current = new Current<>(List.copyOf(found), fresh);
    }
    LOG.info("the pool's segments are now {} (were {}): value puts go there", found, was);
    return true;
  }

  /** Logs a problem when it is new; {@code null}: none now (a later one is logged again). */
  private synchronized void report(String now) {
    if (now != null && !now.equals(problem)) {
      LOG.warn(now);
    }
    problem = now;
  }

  private synchronized void closeRetired(boolean all) {
    long now = nanoClock.getAsLong();
    for (Iterator<Retired<C>> it = retired.iterator(); it.hasNext(); ) {
      Retired<C> r = it.next();
      if (all || now - r.since() >= retireAfterNanos) {
        it.remove();
        closeQuietly(r.config());
      }
    }
  }

  /** How many configs given up are still open (tests). */
  synchronized int retiredOpen() {
    return retired.size();
  }

  private static void closeQuietly(AutoCloseable config) {
    try {
      config.close();
    } catch (Exception e) {
      LOG.warn("closing a replicate config given up failed: {}", e.toString());
    }
  }

  /**
   * Stops listing and closes every config; puts must have ended (the store closes its client
   * first).
   */
  @Override
  public void close() {
    if (refresher != null) {
      refresher.shutdownNow();
    }
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      closeRetired(true);
    }
    closeQuietly(Objects.requireNonNull(current.config()));
  }

  @Override
  public String toString() {
    return current.config().toString() + (refresher == null ? "" : " (pools re-listed)");
  }
}
