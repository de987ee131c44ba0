package dev.mooncake.jcache.reliability;

import java.lang.reflect.Field;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * A JVM that exits while another shutdown hook (as Spring's graceful shutdown does) still serves
 * requests that use the cache, and closes the cache manager last. Prints "LATE OK n" when all n
 * late operations succeeded. The late requests start only once the provider's own hook has acted
 * (closed the client, or begun to wait for the managers): the order that failed before the fix,
 * made certain instead of timed. Needs {@code --add-opens java.base/java.lang=ALL-UNNAMED} to find
 * that hook.
 */
public final class ShutdownOrderChild {
  private static final String PROVIDER_HOOK = "mooncake-store-close";

  private ShutdownOrderChild() {}

  public static void main(String[] args) throws Exception {
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(URI.create(args[0]), ShutdownOrderChild.class.getClassLoader());
    Cache<String, String> cache =
        manager.createCache(
            "requests",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    cache.put("warm", "up");
    Thread providerHook = registeredHook(PROVIDER_HOOK);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  int ok = 0;
                  try {
                    awaitActed(providerHook);
                    for (int i = 0; i < 50; i++) {
                      cache.put("late-" + i, "v" + i);
                      if (("v" + i).equals(cache.get("late-" + i))) {
                        ok++;
                      }
                    }
                    System.out.println("LATE OK " + ok);
                  } catch (Throwable t) {
                    System.out.println("LATE FAILED after " + ok + ": " + t);
                  } finally {
                    manager.close(); // the application's context closes its cache manager last
                  }
                },
                "app-graceful-shutdown"));
    System.exit(0);
  }

  /** The registered (not yet started) shutdown hook of this name. */
  private static Thread registeredHook(String name) throws ReflectiveOperationException {
    Field hooks = Class.forName("java.lang.ApplicationShutdownHooks").getDeclaredField("hooks");
    hooks.setAccessible(true);
    synchronized (Class.forName("java.lang.ApplicationShutdownHooks")) {
      for (Thread hook : ((Map<?, ?>) hooks.get(null)).keySet().toArray(new Thread[0])) {
        if (hook.getName().equals(name)) {
          return hook;
        }
      }
    }
    throw new IllegalStateException("no shutdown hook named " + name);
  }

  /** Until the hook has ended or waits in its grace loop (bounded: 20 s). */
  private static void awaitActed(Thread hook) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      Thread.State state = hook.getState();
      if (state == Thread.State.TERMINATED
          || (state == Thread.State.TIMED_WAITING && inGraceLoop(hook))) {
        return;
      }
      Thread.onSpinWait();
    }
    throw new IllegalStateException("the provider's hook neither closed nor waited: " + hook);
  }

  private static boolean inGraceLoop(Thread hook) {
    for (StackTraceElement frame : hook.getStackTrace()) {
      if (frame.getMethodName().equals("closeFromHook")) {
        return true;
      }
    }
    return false;
  }
}
