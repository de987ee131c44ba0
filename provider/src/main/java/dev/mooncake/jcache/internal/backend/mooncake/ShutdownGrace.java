package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a store's JVM shutdown hook still waits for before it closes the client. The JVM must exit
 * within its grace period ({@code docker stop} sends SIGKILL after 10 s; a killed JVM's segment
 * stays on the master until {@code client_ttl}), yet a framework that closes its cache managers in
 * a shutdown hook of its own, Spring's among them, must still find the store open.
 *
 * <p>So the hook never waits for a manager merely being open: nobody may ever close it. It waits
 * only while the store is leased and a manager is being closed right now, or a thread named in
 * {@code mooncake.jcache.shutdownAwaitThreads} is alive (default: Spring's two shutdown hooks,
 * which close the application context and its cache managers). The JVM joins every shutdown hook
 * before it exits, so waiting beside such a hook adds nothing to the exit. The wait is bounded by
 * {@code mooncake.jcache.shutdownGraceMillis} (default 10 s, 0: close at once) in case such a
 * thread waits for something else.
 */
final class ShutdownGrace {
  private static final Logger LOG = LoggerFactory.getLogger(ShutdownGrace.class);

  static final String GRACE_PROPERTY = "mooncake.jcache.shutdownGraceMillis";
  static final String AWAIT_PROPERTY = "mooncake.jcache.shutdownAwaitThreads";

  /** Spring Boot's hook, and Spring Framework's {@code registerShutdownHook()} thread. */
  static final String SPRING_HOOKS = "SpringApplicationShutdownHook,SpringContextShutdownHook";

  static final long DEFAULT_GRACE_MILLIS = 10_000;

  /**
   * The JVM starts every hook, then joins them; this hook may run before the others are started,
   * and only a started thread can be found by its name. Bounded, since it reads the JVM's own
   * frames ({@code ApplicationShutdownHooks.runHooks}), which a later JDK may name otherwise.
   */
  private static final long HOOKS_START_MILLIS = 1_000;

  private static final long POLL_MILLIS = 10;

  /** What the leases on a store say. */
  enum Use {
    /** No manager holds the store. */
    IDLE,
    /** Managers hold it; none is closing. */
    OPEN,
    /** A manager holding it is closing right now. */
    CLOSING
  }

  private ShutdownGrace() {}

  /** Returns once the store may close: nothing that closes its managers is still at work. */
  static void await(Supplier<Use> use, String description) {
    long grace = Long.getLong(GRACE_PROPERTY, DEFAULT_GRACE_MILLIS);
    if (grace <= 0 || use.get() == Use.IDLE) {
      return;
    }
    Deadline deadline = Deadline.after(Duration.ofMillis(grace), Ticker.system());
    try {
      awaitHooksStarted(
          deadline.earlier(Deadline.after(Duration.ofMillis(HOOKS_START_MILLIS), Ticker.system())));
      awaitClosers(use, awaitedThreads(), deadline, grace, description);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitClosers(
      Supplier<Use> use, Set<String> awaited, Deadline deadline, long grace, String description)
      throws InterruptedException {
    String closer = closer(use.get(), awaited);
    if (closer == null) {
      return; // the managers still open are ones nobody closes
    }
    LOG.info(
        "JVM shutdown: waiting up to {} ms while {} before closing {}", grace, closer, description);
    while (closer != null && !deadline.expired()) {
      Thread.sleep(POLL_MILLIS);
      closer = closer(use.get(), awaited);
    }
    if (closer != null) {
      LOG.warn(
          "JVM shutdown: {} ms passed ({}) and {} still; closing it under them",
          grace,
          GRACE_PROPERTY,
          closer);
    }
  }

  /** What still closes managers on the store, or null: nothing, or nothing holds the store. */
  private static String closer(Use use, Set<String> awaited) {
    if (use == Use.IDLE) {
      return null;
    }
    if (use == Use.CLOSING) {
      return "a cache manager is closing";
    }
    for (Thread thread : liveThreads()) {
      if (thread != Thread.currentThread() && awaited.contains(thread.getName())) {
        return "thread " + thread.getName() + " runs";
      }
    }
    return null;
  }

  /** Every started, not yet ended thread (the root group's, without their stacks). */
  private static Thread[] liveThreads() {
    ThreadGroup root = Thread.currentThread().getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread[] threads = new Thread[root.activeCount() + 16];
    int count;
    while ((count = root.enumerate(threads, true)) == threads.length) {
      threads = new Thread[threads.length * 2];
    }
    return Arrays.copyOf(threads, count);
  }

  /** Until the JVM has started every shutdown hook (its hook runner joins them). */
  private static void awaitHooksStarted(Deadline deadline) throws InterruptedException {
    while (startingHooks() && !deadline.expired()) {
      Thread.sleep(1);
    }
  }

  private static boolean startingHooks() {
    for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
      StackTraceElement[] frames = thread.getValue();
      for (int i = 0; i < frames.length; i++) {
        if (is(frames[i], "java.lang.ApplicationShutdownHooks", "runHooks")) {
          return Arrays.stream(frames, 0, i).noneMatch(f -> is(f, "java.lang.Thread", "join"));
        }
      }
    }
    return false;
  }

  private static boolean is(StackTraceElement frame, String className, String method) {
    return frame.getClassName().equals(className) && frame.getMethodName().equals(method);
  }

  private static Set<String> awaitedThreads() {
    return Arrays.stream(System.getProperty(AWAIT_PROPERTY, SPRING_HOOKS).split(","))
        .map(String::trim)
        .filter(name -> !name.isEmpty())
        .collect(Collectors.toSet());
  }
}
