package dev.mooncake.jcache;

import dev.mooncake.jcache.entry.StoredEntry;
import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import dev.mooncake.jcache.near.NearCache;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
 */
public final class EventsPeer {
  private static final long WAIT_SECONDS = 15;
  private static final BlockingQueue<String> EVENTS = new LinkedBlockingQueue<>();

  private final List<CacheManager> managers = new ArrayList<>();
  private CompletableFuture<String> watching;

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

  private static String ctl(String library, String assignment) {
    try (MooncakeClient client = MooncakeClient.create(MooncakeLibrary.open(library, null))) {
      int rc = client.remove(MooncakeClient.key("__fake_mc__/ctl/" + assignment), true);
      if (rc != 0) {
        throw new IllegalStateException("ctl " + assignment + " answered " + rc);
      }
    }
    return "set " + assignment;
  }

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
