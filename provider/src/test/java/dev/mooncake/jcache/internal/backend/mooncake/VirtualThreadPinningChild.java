package dev.mooncake.jcache.internal.backend.mooncake;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JVM of Java 21 or later for {@link VirtualThreadPinningTest} (compiled for 17: virtual threads
 * are reached by reflection). Opens a cache on the config {@code args[0]} (the fake store, its
 * reads delayed by {@code MCJ_FAKE_READ_DELAY_US}); {@code args[1]} virtual threads, started at
 * once, each put one value and get it {@code args[2]} times (a first round, which loads the classes
 * of the path), then get it {@code args[2]} times again under a JFR recording of {@code
 * jdk.VirtualThreadPinned} with no threshold. Prints one line: {@code RESULT gets=<values found>
 * millis=<wall time of the recorded round> pinnedOurs=<pinned events with a frame of the provider>
 * pinnedControl=<those of the control> getInto=<its get_into calls> batchGetInto=<its
 * batch_get_into calls> calls=<all its calls>} (the calls of the recorded round, by {@link
 * StoreCallTally}, which names a call by its caller's frames: a bounded call's are another
 * thread's, so it counts only in {@code calls}). The control parks a virtual thread inside a class
 * initializer, which pins on every JDK: it shows the recording does see pinning.
 */
public final class VirtualThreadPinningChild {
  private VirtualThreadPinningChild() {}

  /** Parks a moment while initialized: a virtual thread initializing it pins. */
  static final class ParksWhileInitialized {
    static final long PARKED;

    static {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      PARKED = 1;
    }
  }

  public static void main(String[] args) throws Exception {
    URI config = URI.create(args[0]);
    int threads = Integer.parseInt(args[1]);
    int getsEach = Integer.parseInt(args[2]);
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(config, VirtualThreadPinningChild.class.getClassLoader());
    Cache<String, String> cache =
        manager.createCache(
            "vthreads",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    ExecutorService virtual =
        (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    // A first round loads and initializes the classes of the path: a virtual thread waiting for a
    // class another one loads pins once per class (the JDK's, the first use only).
    round(virtual, cache, threads, true, getsEach);
    Recording recording = new Recording();
    recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
    recording.start();
    virtual.submit(() -> ParksWhileInitialized.PARKED).get(60, TimeUnit.SECONDS);
    StoreCallTally tally =
        StoreCallTally.attach(config, VirtualThreadPinningChild.class.getClassLoader());
    long start = System.nanoTime();
    int found = round(virtual, cache, threads, false, getsEach);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    recording.stop();
    java.util.Map<String, Integer> calls = tally.takeCalls();
    tally.close();
    virtual.shutdown();
    manager.close();
    Path file = Files.createTempFile("vthreads-", ".jfr");
    recording.dump(file);
    recording.close();
    int ours = 0;
    int control = 0;
    for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
      if (!event.getEventType().getName().equals("jdk.VirtualThreadPinned")) {
        continue;
      }
      if (hasFrame(event, ParksWhileInitialized.class.getName())) {
        control++;
      } else if (hasFrame(event, "dev.mooncake.jcache.")) {
        ours++;
        System.out.println("PINNED " + event);
      }
    }
    Files.delete(file);
    System.out.println(
        "RESULT gets="
            + found
            + " millis="
            + millis
            + " pinnedOurs="
            + ours
            + " pinnedControl="
            + control
            + " getInto="
            + calls.getOrDefault("get_into", 0)
            + " batchGetInto="
            + calls.getOrDefault("batch_get_into", 0)
            + " calls="
            + calls.values().stream().mapToInt(Integer::intValue).sum());
    System.out.flush();
    System.exit(0);
  }

  /**
   * {@code threads} virtual threads, started at once, each (when {@code put}) putting its value and
   * getting it {@code gets} times: answers the values found.
   */
  private static int round(
      ExecutorService virtual, Cache<String, String> cache, int threads, boolean put, int gets)
      throws Exception {
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String key = "k" + t;
      done.add(
          virtual.submit(
              () -> {
                ready.countDown();
                go.await();
                if (put) {
                  cache.put(key, "value of " + key);
                }
                int found = 0;
                for (int i = 0; i < gets; i++) {
                  found += cache.get(key) != null ? 1 : 0;
                }
                return found;
              }));
    }
    ready.await();
    go.countDown();
    int found = 0;
    for (Future<Integer> each : done) {
      found += each.get(10, TimeUnit.MINUTES);
    }
    return found;
  }

  private static boolean hasFrame(RecordedEvent event, String classPrefix) {
    if (event.getStackTrace() == null) {
      return false;
    }
    for (RecordedFrame frame : event.getStackTrace().getFrames()) {
      if (frame.getMethod().getType().getName().startsWith(classPrefix)) {
        return true;
      }
    }
    return false;
  }
}
