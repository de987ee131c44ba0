package dev.mooncake.jcache.history;

import dev.mooncake.jcache.internal.entry.IntegrityChecksForTests;
import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * One JVM of the history tests: {@code HistoryPeer name=value…} opens {@code config}, creates (or
 * gets) {@code cache} and its byte[] sibling {@code <cache>-bytes}, prints {@code THREADS …} (how
 * many workers are virtual threads) and {@code READY}, and on stdin's {@code go} runs {@code
 * threads} {@link Workload}s (every odd one on a virtual thread where the JVM has them) for {@code
 * ops} recorded operations in all, recording every call in {@code out} (a {@link PeerLog}). Every
 * 100 operations it prints {@code PROGRESS n}; at the end {@code DONE ops=… failed=…}. It then
 * stays (its segment holds values the other JVMs read) until {@code exit}. {@code stop} ends the
 * workload early; {@code stat name} answers {@code OK <value>} of a statistic of the fake library
 * named by {@code fake} (its live clients, for the harness's conditions).
 *
 * <p>Arguments: {@code config}, {@code process} (this JVM's id and segment name in values: p0, p1,
 * a replacement p0b), {@code out}, {@code ops}, {@code threads} (2), {@code keys} (5), {@code
 * valueBytes} (256), {@code seed}, {@code cache}, {@code fake} (optional).
 */
public final class HistoryPeer {
  private HistoryPeer() {}

  public static void main(String[] args) throws Exception {
    IntegrityChecksForTests.applyEnvironment(); // the negative control's switch, before any cache
    Map<String, String> a = arguments(args);
    String process = a.get("process");
    int ops = Integer.parseInt(a.get("ops"));
    int threads = Integer.parseInt(a.getOrDefault("threads", "2"));
    int keys = Integer.parseInt(a.getOrDefault("keys", "5"));
    int valueBytes = Integer.parseInt(a.getOrDefault("valueBytes", "256"));
    long seed = Long.parseLong(a.getOrDefault("seed", "1"));
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(Path.of(a.get("config")).toUri(), HistoryPeer.class.getClassLoader());
    Cache<String, String> cache = cache(manager, a.get("cache"));
    Cache<String, byte[]> bytes = bytesCache(manager, a.get("cache") + "-bytes");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong done = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    List<Thread> workers = new ArrayList<>();
    try (PeerLog log = new PeerLog(Path.of(a.get("out")))) {
      for (int t = 0; t < threads; t++) {
        int share = ops / threads + (t < ops % threads ? 1 : 0);
        boolean virtual = t % 2 == 1 && VirtualThreads.available();
        Workload work =
            new Workload(
                cache, bytes, log, process, t, virtual, keys, valueBytes, seed * 1_000_003L + t);
        Runnable run =
            () -> {
              try {
                for (long recorded = 0; recorded < share && !stop.get(); ) {
                  long failedBefore = work.failed();
                  int k = work.step();
                  if (work.failed() > failedBefore) {
                    backOffAfterFailure();
                  }
                  recorded += k;
                  long n = done.addAndGet(k);
                  if (n / 100 != (n - k) / 100) {
                    answer("PROGRESS " + n);
                  }
                }
              } finally {
                work.close();
                failed.addAndGet(work.failed());
              }
            };
        String name = "history-" + process + "-" + t;
        workers.add(virtual ? VirtualThreads.unstarted(name, run) : new Thread(run, name));
      }
      answer(
          "THREADS "
              + workers.stream().filter(VirtualThreads::isVirtual).count()
              + " of "
              + threads
              + " virtual (Java "
              + Runtime.version().feature()
              + ")");
      answer("READY");
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
                answer("DONE ops=" + done.get() + " failed=" + failed.get());
              },
              "history-" + process + "-done");
      for (String line; (line = in.readLine()) != null && !line.equals("exit"); ) {
        if (line.equals("go")) {
          workers.forEach(Thread::start);
          reporter.start();
        } else if (line.equals("stop")) {
          stop.set(true);
        } else if (line.startsWith("stat ")) {
          answer(stat(a.get("fake"), line.substring(5)));
        } else {
          answer("ERR unknown command " + line);
        }
      }
      stop.set(true);
      for (Thread worker : workers) {
        if (worker.isAlive()) {
          worker.join();
        }
      }
    }
    manager.close();
  }

  static Map<String, String> arguments(String[] args) {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    return a;
  }

  static Cache<String, String> cache(CacheManager manager, String name) {
    Cache<String, String> cache = manager.getCache(name, String.class, String.class);
    return cache != null
        ? cache
        : manager.createCache(
            name, new MutableConfiguration<String, String>().setTypes(String.class, String.class));
  }

  static Cache<String, byte[]> bytesCache(CacheManager manager, String name) {
    Cache<String, byte[]> cache = manager.getCache(name, String.class, byte[].class);
    return cache != null
        ? cache
        : manager.createCache(
            name, new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
  }

  /** A statistic of the fake library's shared table ({@code clients}: live clients). */
  static String stat(String fakeLibrary, String name) {
    if (fakeLibrary == null) {
      return "ERR no fake library";
    }
    try (MooncakeClient probe = MooncakeClient.create(MooncakeLibrary.open(fakeLibrary, null))) {
      return "OK " + probe.getSize(MooncakeClient.key("__fake_mc__/stat/" + name));
    }
  }

  static synchronized void answer(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /**
   * How long a worker waits after a call that failed, as a production client backs off: without it
   * a fault's window fills the history with calls of unknown outcome (691 in one real pool restart,
   * ~86 a key), each open to the end of the run, and the checker's search cannot decide a key
   * within its budget. The fault is still met by every worker; only its retry rate drops.
   */
  static final long FAILURE_BACKOFF_MILLIS = 1000;

  private static void backOffAfterFailure() {
    try {
      Thread.sleep(FAILURE_BACKOFF_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
