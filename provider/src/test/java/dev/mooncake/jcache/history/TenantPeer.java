package dev.mooncake.jcache.history;

import dev.mooncake.jcache.ZeroCopyCache;
import dev.mooncake.jcache.internal.entry.IntegrityChecksForTests;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;

/**
 * One JVM of the tenant test: {@code TenantPeer name=value…} opens {@code config} (its {@code
 * tenant_id} is {@code tenant}), prints {@code READY}, and on {@code go} churns same-size values in
 * the caches {@code c0} and {@code c1}, keys k0…k{keys-1}, on {@code threads} threads: puts,
 * replaces and removes (so freed memory is reused by the next put), and reads (get, getAndPut) that
 * check every value they see names this tenant, this cache and this key ({@link Values}: the owner
 * {@code <tenant>/<cache>/<key>}). Prints {@code DONE ops=… checked=… foreign=… torn=… failed=…}
 * after up to 5 examples of each of {@code FOREIGN …}, {@code TORN …} and {@code FAILED …}, and
 * stays until {@code exit}. With {@code zeroCopy=true} the caches hold byte[] values, written by
 * zero-copy and normal puts and read by zero-copy gets whose destination is checked after every
 * call ({@link #churnZeroCopy}); DONE then adds {@code misses=…} and {@code destination=…} (calls
 * that left a byte neither the value's nor the caller's).
 */
public final class TenantPeer {
  private static final int EXAMPLES = 5;

  private final String tenant;
  private final String process;
  private final int keys;
  private final int valueBytes;
  private final List<Cache<String, String>> caches = new ArrayList<>();
  private final List<Cache<String, byte[]>> byteCaches = new ArrayList<>();
  private final boolean zeroCopy;
  private final LongAdder misses = new LongAdder();
  private final LongAdder destination = new LongAdder();
  private final LongAdder ops = new LongAdder();
  private final LongAdder checked = new LongAdder();
  private final LongAdder foreign = new LongAdder();
  private final LongAdder torn = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final ConcurrentLinkedQueue<String> examples = new ConcurrentLinkedQueue<>();
  private final Map<String, AtomicLong> exampleCounts = new ConcurrentHashMap<>();

  private TenantPeer(Map<String, String> a, CacheManager manager) {
    this.tenant = a.get("tenant");
    this.process = a.get("process");
    this.keys = Integer.parseInt(a.getOrDefault("keys", "5"));
    this.valueBytes = Integer.parseInt(a.getOrDefault("valueBytes", "256"));
    this.zeroCopy = a.getOrDefault("zeroCopy", "false").equals("true");
    for (String name : List.of("c0", "c1")) {
      if (zeroCopy) {
        byteCaches.add(HistoryPeer.bytesCache(manager, name));
      } else {
        caches.add(HistoryPeer.cache(manager, name));
      }
    }
  }

  public static void main(String[] args) throws Exception {
    IntegrityChecksForTests.applyEnvironment(); // the negative control's switch, before any cache
    Map<String, String> a = HistoryPeer.arguments(args);
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(Path.of(a.get("config")).toUri(), TenantPeer.class.getClassLoader());
    TenantPeer peer = new TenantPeer(a, manager);
    int ops = Integer.parseInt(a.get("ops"));
    int threads = Integer.parseInt(a.getOrDefault("threads", "2"));
    long seed = Long.parseLong(a.getOrDefault("seed", "1"));
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      int share = ops / threads + (t < ops % threads ? 1 : 0);
      workers.add(
          new Thread(
              () -> {
                Random random = new Random(seed * 1_000_003L + thread);
                if (peer.zeroCopy) {
                  peer.churnZeroCopy(thread, share, random);
                } else {
                  peer.churn(thread, share, random);
                }
              },
              "tenant-" + peer.process + "-" + t));
    }
    HistoryPeer.answer("READY");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null && !line.equals("exit"); ) {
      if (line.equals("go")) {
        workers.forEach(Thread::start);
        Thread reporter =
            new Thread(
                () -> {
                  try {
                    for (Thread worker : workers) {
                      worker.join();
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                  }
                  peer.examples.forEach(HistoryPeer::answer);
                  HistoryPeer.answer(peer.done());
                });
        reporter.start();
      } else if (line.startsWith("stat ")) {
        HistoryPeer.answer(HistoryPeer.stat(a.get("fake"), line.substring(5)));
      }
    }
    for (Thread worker : workers) {
      worker.join();
    }
    manager.close();
  }

  private String done() {
    return "DONE ops="
        + ops.sum()
        + " checked="
        + checked.sum()
        + " foreign="
        + foreign.sum()
        + " torn="
        + torn.sum()
        + " failed="
        + failed.sum()
        + (zeroCopy ? " misses=" + misses.sum() + " destination=" + destination.sum() : "");
  }

  /**
   * The zero-copy churn: zero-copy puts, removes and normal puts of same-size byte[] values, and
   * zero-copy gets into a destination of the caller's bytes, checked after every call whatever its
   * outcome ({@link ZeroCopyDestination}): a hit must be the reader's tenant's, cache's and key's
   * whole value, and no outcome may leave a byte in the destination that is neither that value nor
   * the caller's (or zero).
   */
  @SuppressWarnings("unchecked")
  private void churnZeroCopy(int thread, int count, Random random) {
    List<ZeroCopyCache<String>> zc = new ArrayList<>();
    byteCaches.forEach(c -> zc.add(c.unwrap(ZeroCopyCache.class)));
    ZeroCopyDestination[] destinations = new ZeroCopyDestination[zc.size()];
    ByteBuffer[] sources = new ByteBuffer[zc.size()];
    for (int c = 0; c < zc.size(); c++) {
      destinations[c] = new ZeroCopyDestination(zc.get(c), valueBytes);
      sources[c] = zc.get(c).allocate(valueBytes);
    }
    try {
      for (long i = 0; i < count; i++) {
        int c = random.nextInt(zc.size());
        String key = "k" + random.nextInt(keys);
        String owner = tenant + "/c" + c + "/" + key;
        byte[] value =
            Values.stored(Values.id(owner, process, thread, i), valueBytes)
                .getBytes(StandardCharsets.ISO_8859_1);
        int draw = random.nextInt(20);
        try {
          if (draw < 10) {
            readZeroCopy(zc.get(c), destinations[c], owner, key);
          } else if (draw < 15) {
            ByteBuffer source = sources[c].clear().position(ZeroCopyCache.HEADER_BYTES);
            source.put(value).flip().position(ZeroCopyCache.HEADER_BYTES);
            zc.get(c).put(key, source);
          } else if (draw < 18) {
            byteCaches.get(c).remove(key);
          } else {
            byteCaches.get(c).put(key, value);
          }
        } catch (RuntimeException e) {
          failed.increment();
          example("FAILED " + owner + ": " + PeerLog.oneLine(e));
        }
        ops.increment();
      }
    } finally {
      for (int c = 0; c < zc.size(); c++) {
        destinations[c].release();
        zc.get(c).release(sources[c]);
      }
    }
  }

  private void readZeroCopy(
      ZeroCopyCache<String> cache, ZeroCopyDestination into, String owner, String key) {
    ByteBuffer buffer = into.prepare();
    StringBuilder problem = new StringBuilder();
    int length;
    try {
      length = cache.get(key, buffer);
    } catch (RuntimeException e) {
      into.afterNoValue("an exception", problem);
      countDestination(owner, problem);
      throw e;
    }
    if (length < 0) {
      misses.increment();
      into.afterNoValue("a miss", problem);
    } else {
      String value = into.afterHit(length, problem);
      if (value != null) {
        check(owner, value);
      }
    }
    countDestination(owner, problem);
  }

  private void countDestination(String owner, StringBuilder problem) {
    if (problem.length() > 0) {
      destination.increment();
      example("DESTINATION " + owner + ": " + problem);
    }
  }

  private void churn(int thread, int count, Random random) {
    for (long i = 0; i < count; i++) {
      int c = random.nextInt(caches.size());
      Cache<String, String> cache = caches.get(c);
      String key = "k" + random.nextInt(keys);
      String owner = tenant + "/c" + c + "/" + key;
      String value = Values.stored(Values.id(owner, process, thread, i), valueBytes);
      int draw = random.nextInt(20);
      try {
        if (draw < 8) {
          check(owner, cache.get(key));
        } else if (draw < 12) {
          cache.put(key, value);
        } else if (draw < 15) {
          cache.replace(key, value);
        } else if (draw < 18) {
          cache.remove(key);
        } else {
          check(owner, cache.getAndPut(key, value));
        }
      } catch (RuntimeException e) {
        failed.increment();
        example("FAILED " + owner + ": " + PeerLog.oneLine(e));
      }
      ops.increment();
    }
  }

  /** Counts a value read for owner: checked, and foreign or torn when it is not owner's whole. */
  private void check(String owner, String stored) {
    if (stored == null) {
      return;
    }
    checked.increment();
    Values.Read read = Values.read(stored);
    if (!owner.equals(Values.ownerOf(read.id()))) {
      foreign.increment();
      example("FOREIGN " + owner + " read " + read.id());
    } else if (!read.intact()) {
      torn.increment();
      example("TORN " + owner + " read " + Values.clip(stored));
    }
  }

  /** Keeps the first few lines of each kind (the line's first word). */
  private void example(String line) {
    String kind = line.substring(0, line.indexOf(' '));
    if (exampleCounts.computeIfAbsent(kind, k -> new AtomicLong()).getAndIncrement() < EXAMPLES) {
      examples.add(line);
    }
  }
}
