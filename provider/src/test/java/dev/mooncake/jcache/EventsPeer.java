package dev.mooncake.jcache;

import dev.mooncake.jcache.internal.entry.StoredEntry;
import dev.mooncake.jcache.internal.near.NearCache;
import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;

/**
 * One JVM of the cluster-events tests: {@code EventsPeer <config> [<config of another tenant>…]}
 * opens one cache manager per config, prints {@code READY}, then answers one stdin line with one
 * line, {@code OK …} or {@code ERR …}. Caches are named in commands as {@code <manager
 * index>/<cache name>}; every config declares the caches the test uses (with their near caches).
 *
 * <p>Commands: {@code put c k v}, {@code remove c k}, {@code get c k} (answers the value and
 * whether the near cache served it: {@code v1 near=1}), {@code removeAll c}, {@code clear c},
 * {@code listen c} (records CREATED / UPDATED / REMOVED as {@code TYPE k=v}), {@code events n}
 * (waits up to 10 s for n recorded events and answers them, comma-separated), {@code queued}
 * (events recorded and not yet taken), {@code near c} (near-cache figures), {@code await c
 * <condition>} (waits up to 15 s: {@code live}, {@code notLive}, {@code empty}, {@code flushes>N},
 * {@code invalidations>N}), {@code within s c <condition>} (the same, at most s seconds, answering
 * yes or no), {@code settle c} (remote deliveries done), {@code write c k n} (puts k = 1, 2, … n in
 * turn), {@code watch c k n} / {@code watched} (see {@link #watch}), {@code ctl <library>
 * <assignment>} (a fake-library control).
 *
 * <p>The staleness probe, one round per write: B's {@code poll c k old} (see {@link #poll}), A's
 * {@code timedPut c k v} (puts, answers {@link System#nanoTime()} taken right after the put
 * returned), B's {@code polled <A's nanoTime>} (waits for the poller; answers {@code at=<nanoTime
 * of B's first read of the new value> reads=… nulls=…}). Both peers run on one Linux machine, where
 * {@code System.nanoTime()} is CLOCK_MONOTONIC, one clock for every process: the two times compare
 * across the JVMs, and no pipe latency of the test is part of their difference.
 */
public final class EventsPeer {
  /**
   * How long {@code await} waits for a near-cache condition: an event arrives in milliseconds, a
   * reconnect after the 3 s heartbeat timeout in a few seconds; the rest is slack for a loaded
   * machine.
   */
  private static final long WAIT_SECONDS = 15;

  private static final long POLL_NANOS = 10_000;

  /**
   * How long after A's put returned B may still serve the old value before the round fails: a lost
   * invalidation leaves it in the near cache for ever (no time-to-live of its own), so any bound
   * catches that; 10 s is far above the worst staleness seen here on an overloaded machine (137 ms
   * in one JVM) and above the subscription's 3 s heartbeat timeout.
   */
  private static final long STALE_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);

  private static final BlockingQueue<String> EVENTS = new LinkedBlockingQueue<>();

  private final List<CacheManager> managers = new ArrayList<>();
  private CompletableFuture<String> watching;
  private Probe probe;

  public static void main(String[] args) throws Exception {
    EventsPeer peer = new EventsPeer();
    for (String config : args) {
      peer.managers.add(
          Caching.getCachingProvider()
              .getCacheManager(Path.of(config).toUri(), EventsPeer.class.getClassLoader()));
    }
    answer("READY");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null && !line.equals("exit"); ) {
      String reply;
      try {
        reply = "OK " + peer.run(line.split(" "));
      } catch (Exception | AssertionError e) {
        reply = "ERR " + e;
      }
      answer(reply.replace('\n', ' '));
    }
    for (CacheManager manager : peer.managers) {
      manager.close();
    }
  }

  private static void answer(String line) {
    System.out.println(line);
    System.out.flush();
  }

  @SuppressWarnings("unchecked")
  private MooncakeCache<String, String> cache(String name) {
    int slash = name.indexOf('/');
    CacheManager manager = managers.get(Integer.parseInt(name.substring(0, slash)));
    Cache<String, String> cache =
        manager.getCache(name.substring(slash + 1), String.class, String.class);
    if (cache == null) {
      throw new IllegalArgumentException("no cache " + name + " (declare it in the config)");
    }
    return cache.unwrap(MooncakeCache.class);
  }

  private static NearCache<StoredEntry> near(MooncakeCache<String, String> cache) {
    NearCache<StoredEntry> near = cache.nearCache();
    if (near == null) {
      throw new IllegalArgumentException(cache.getName() + " has no near cache");
    }
    return near;
  }

  private String run(String[] c) throws Exception {
    return switch (c[0]) {
      case "put" -> {
        cache(c[1]).put(c[2], c[3]);
        yield "done";
      }
      case "remove" -> String.valueOf(cache(c[1]).remove(c[2]));
      case "get" -> get(cache(c[1]), c[2]);
      case "removeAll" -> {
        cache(c[1]).removeAll();
        yield "done";
      }
      case "clear" -> {
        cache(c[1]).clear();
        yield "done";
      }
      case "listen" -> {
        cache(c[1])
            .registerCacheEntryListener(
                new MutableCacheEntryListenerConfiguration<>(
                    FactoryBuilder.factoryOf(new Recorder()), null, false, false));
        yield "listening";
      }
      case "events" -> events(Integer.parseInt(c[1]));
      case "queued" -> String.join(",", drain());
      case "near" -> figures(near(cache(c[1])));
      case "await" -> await(near(cache(c[1])), c[2], WAIT_SECONDS, true);
      case "within" -> await(near(cache(c[2])), c[3], Long.parseLong(c[1]), false);
      case "settle" -> settle(cache(c[1]));
      case "write" -> write(cache(c[1]), c[2], Integer.parseInt(c[3]));
      case "watch" -> watch(cache(c[1]), c[2], Long.parseLong(c[3]));
      case "watched" -> watching.get(60, TimeUnit.SECONDS);
      case "timedPut" -> {
        cache(c[1]).put(c[2], c[3]);
        yield Long.toString(System.nanoTime()); // CLOCK_MONOTONIC: compared with B's (see above)
      }
      case "poll" -> poll(cache(c[1]), c[2], Long.parseLong(c[3]));
      case "polled" -> {
        if (probe == null) {
          throw new IllegalStateException("polled before any poll");
        }
        yield probe.polled(Long.parseLong(c[1]));
      }
      case "ctl" -> ctl(c[1], c[2]);
      default -> throw new IllegalArgumentException("unknown command " + c[0]);
    };
  }

  private static String get(MooncakeCache<String, String> cache, String key) {
    NearCache<StoredEntry> near = cache.nearCache();
    long hits = near == null ? 0 : near.hits();
    String value = cache.get(key);
    return value + " near=" + (near == null ? 0 : near.hits() - hits);
  }

  private static String figures(NearCache<StoredEntry> near) {
    return "live="
        + near.isLive()
        + " size="
        + near.size()
        + " hits="
        + near.hits()
        + " invalidations="
        + near.invalidations()
        + " flushes="
        + near.flushes();
  }

  private static String events(int n) throws InterruptedException {
    List<String> taken = new ArrayList<>();
    // as STALE_LIMIT_NANOS: events take milliseconds, 10 s only catches a lost one
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (taken.size() < n) {
      String event = EVENTS.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (event == null) {
        throw new AssertionError("only " + taken + " of " + n + " events within 10 s");
      }
      taken.add(event);
    }
    return String.join(",", taken);
  }

  private static List<String> drain() {
    List<String> rest = new ArrayList<>();
    EVENTS.drainTo(rest);
    return rest;
  }

  /**
   * Waits up to {@code seconds} for the condition; then fails ({@code required}) or answers {@code
   * no …} (else {@code yes …}), with the near cache's figures.
   */
  private static String await(
      NearCache<StoredEntry> near, String condition, long seconds, boolean required) {
    BooleanSupplier test =
        switch (condition.replaceAll(">.*", "")) {
          case "live" -> near::isLive;
          case "notLive" -> () -> !near.isLive();
          case "empty" -> () -> near.size() == 0;
          case "flushes" -> () -> near.flushes() > over(condition);
          case "invalidations" -> () -> near.invalidations() > over(condition);
          default -> throw new IllegalArgumentException("unknown condition " + condition);
        };
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!test.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        if (!required) {
          return "no " + figures(near);
        }
        throw new AssertionError(
            "not " + condition + " within " + seconds + " s: " + figures(near));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    return (required ? "" : "yes ") + figures(near);
  }

  private static long over(String condition) {
    return Long.parseLong(condition.substring(condition.indexOf('>') + 1));
  }

  /** Waits until every remote event handed to the cache's deliveries has been delivered. */
  private static String settle(MooncakeCache<String, String> cache) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!cache.remoteEvents().idle()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("deliveries still running after " + WAIT_SECONDS + " s");
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    return "idle";
  }

  private static String write(MooncakeCache<String, String> cache, String key, int n) {
    for (int i = 1; i <= n; i++) {
      cache.put(key, Integer.toString(i));
    }
    return "done";
  }

  /**
   * Starts a reader of {@code key} that checks what the near cache must never do: serve a value the
   * cluster replaced once this JVM received the event. Precondition: {@code key} holds "0", its
   * event has arrived, and one other JVM then writes it 1, 2, … {@code last}, one put at a time
   * (each a Mooncake remove then put: a {@code removed} and a {@code stored} event). Nothing else
   * invalidates the cache, so after c invalidations counted from now (c = 2i - 1: value i - 1
   * removed; c = 2i: value i stored) every read must answer null (between a remove and its put) or
   * at least (c + 1) / 2. The counter moves after the invalidation is done, so a read that starts
   * after seeing c is bound by it. Reads until it has seen all 2 × last invalidations and then read
   * {@code last}, or for 60 s; {@code watched} answers the figures.
   */
  private String watch(MooncakeCache<String, String> cache, String key, long last) {
    NearCache<StoredEntry> near = near(cache);
    long base = near.invalidations();
    long hitsBefore = near.hits();
    watching =
        CompletableFuture.supplyAsync(
            () -> {
              long reads = 0;
              long violations = 0;
              long seen = 0;
              long value = -1;
              String first = "-";
              long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
              while (System.nanoTime() < deadline && !(seen >= 2 * last && value == last)) {
                seen = near.invalidations() - base;
                String read = cache.get(key);
                reads++;
                value = read == null ? -1 : Long.parseLong(read);
                if (read != null && value < (seen + 1) / 2 && violations++ == 0) {
                  first = "read_" + value + "_after_" + seen + "_invalidations";
                }
              }
              return "reads="
                  + reads
                  + " nearHits="
                  + (near.hits() - hitsBefore)
                  + " lastRead="
                  + value
                  + " invalidations="
                  + seen
                  + " violations="
                  + violations
                  + " first="
                  + first;
            });
    return "watching " + key + " from invalidations=" + base;
  }

  /**
   * B's half of a staleness round: {@code key} holds {@code old} and one other JVM is about to put
   * {@code old + 1} (nothing else changes it). Reads {@code key} until the near cache serves {@code
   * old} (a hit: the copy whose staleness is measured), then starts a poller that reads it every
   * ~10 µs (a busy loop would starve the subscription's thread on a small machine) and records the
   * nanoTime taken just before its first read that answers {@code old + 1}: at that instant the
   * near cache no longer served {@code old} (a hit would have answered it), so the figure is exact
   * to one poll interval. Every read must answer null (between the store's remove and put of the
   * replace) or a value no older than the last one seen.
   */
  private String poll(MooncakeCache<String, String> cache, String key, long old) {
    NearCache<StoredEntry> near = near(cache);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    for (long hits = near.hits(); ; hits = near.hits()) {
      String read = cache.get(key);
      if (!Long.toString(old).equals(read)) {
        throw new AssertionError("B read " + read + " while " + key + " holds " + old);
      }
      if (near.hits() > hits) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the near cache did not serve " + key + " within 15 s");
      }
      LockSupport.parkNanos(POLL_NANOS);
    }
    Probe started =
        new Probe(near, near.invalidations(), near.flushes(), new CompletableFuture<>());
    probe = started;
    Thread poller = new Thread(() -> started.run(cache, key, old), "staleness-poller");
    poller.setDaemon(true);
    poller.start();
    return "polling " + key + " from " + old;
  }

  private static String ctl(String library, String assignment) {
    try (MooncakeClient client = MooncakeClient.create(MooncakeLibrary.open(library, null))) {
      int rc = client.remove(MooncakeClient.key("__fake_mc__/ctl/" + assignment), true);
      if (rc != 0) {
        throw new IllegalStateException("ctl " + assignment + " answered " + rc);
      }
    }
    return "set " + assignment;
  }

  /**
   * One staleness round in B: the near cache, its counters when the poller started, and what the
   * poller found.
   */
  private record Probe(
      NearCache<StoredEntry> near, long invalidations, long flushes, CompletableFuture<Seen> seen) {

    void run(MooncakeCache<String, String> cache, String key, long old) {
      long reads = 0;
      long nulls = 0;
      long last = old;
      try {
        while (!seen.isDone()) { // completed by polled() when it gives up
          long at = System.nanoTime();
          String read = cache.get(key);
          reads++;
          if (read == null) {
            nulls++;
          } else {
            long value = Long.parseLong(read);
            if (value < last || value > old + 1) {
              throw new AssertionError(
                  "B read " + value + " after " + last + " (A wrote " + (old + 1) + ")");
            }
            last = value;
            if (value == old + 1) {
              seen.complete(new Seen(at, reads, nulls));
              return;
            }
          }
          LockSupport.parkNanos(POLL_NANOS);
        }
      } catch (RuntimeException | AssertionError e) {
        seen.completeExceptionally(e);
      }
    }

    /**
     * Waits until the poller read the new value, at most {@code STALE_LIMIT_NANOS} after {@code
     * returned} (A's nanoTime after its put), then until both events of A's put (its remove and its
     * store) invalidated the near cache, or it flushed: the next round starts on a quiet stream.
     */
    String polled(long returned) throws InterruptedException {
      long deadline = returned + STALE_LIMIT_NANOS;
      Seen found;
      try {
        found = seen.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        seen.completeExceptionally(e);
        throw new AssertionError("B still served the old value 10 s after A's put returned");
      } catch (ExecutionException e) {
        throw new AssertionError("the poller failed: " + e.getCause(), e.getCause());
      }
      while (near.invalidations() < invalidations + 2 && near.flushes() == flushes) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("A's two events did not reach B within 10 s: " + figures(near));
        }
        LockSupport.parkNanos(POLL_NANOS);
      }
      return "at="
          + found.at()
          + " reads="
          + found.reads()
          + " nulls="
          + found.nulls()
          + " flushes="
          + (near.flushes() - flushes);
    }
  }

  /** The nanoTime before the poller's first read of the new value; its reads; those of null. */
  private record Seen(long at, long reads, long nulls) {}

  /** Records the events of one cache as "TYPE k=v" for the {@code events} command. */
  static final class Recorder
      implements CacheEntryCreatedListener<String, String>,
          CacheEntryUpdatedListener<String, String>,
          CacheEntryRemovedListener<String, String>,
          Serializable {
    private static final long serialVersionUID = 1L;

    private static void record(
        Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
      for (CacheEntryEvent<? extends String, ? extends String> e : batch) {
        EVENTS.add(e.getEventType() + " " + e.getKey() + "=" + e.getValue());
      }
    }

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
      record(batch);
    }

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
      record(batch);
    }

    @Override
    public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
      record(batch);
    }
  }
}
