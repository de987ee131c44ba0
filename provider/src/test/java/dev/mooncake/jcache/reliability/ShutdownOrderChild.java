package dev.mooncake.jcache.reliability;

import java.io.Closeable;
import java.lang.reflect.Field;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheLoader;

/**
 * A JVM that exits while its cache manager is still in use, for {@link ShutdownOrderTest}. Needs
 * {@code --add-opens java.base/java.lang=ALL-UNNAMED} to find the provider's hook. Modes:
 *
 * <ul>
 *   <li>{@code hook}: a shutdown hook of the application's own, named {@value #APP_HOOK} (as
 *       Spring's graceful shutdown), serves 50 cache puts and gets, then closes the manager. Prints
 *       "LATE OK n" when all n late operations succeeded. The late requests start only once the
 *       provider's hook has acted (closed the client, or begun to wait for a closer): the order
 *       that fails without the wait, made certain instead of timed.
 *   <li>{@code closing}: a thread closes the manager, and the JVM exits while that close runs (a
 *       closeable loader's close, called by the manager's, holds it until the provider's hook has
 *       acted). Prints from inside that close whether the provider's hook waits for it.
 * </ul>
 */
public final class ShutdownOrderChild {
  private static final String PROVIDER_HOOK = "mooncake-store-close";
  static final String APP_HOOK = "app-graceful-shutdown";

  private ShutdownOrderChild() {}

  public static void main(String[] args) throws Exception {
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(URI.create(args[0]), ShutdownOrderChild.class.getClassLoader());
    Thread providerHook = registeredHook(PROVIDER_HOOK);
    if (args[1].equals("closing")) {
      exitWhileClosing(manager, providerHook);
    }
    Cache<String, String> cache =
        manager.createCache(
            "requests",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    cache.put("warm", "up");
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
                APP_HOOK));
    System.exit(0);
  }

  /** Set by the loader's close: the manager's close has begun (and waits in it). */
  static final CountDownLatch CLOSE_BEGAN = new CountDownLatch(1);

  static volatile Thread providerHookToAwait;

  private static void exitWhileClosing(CacheManager manager, Thread providerHook)
      throws InterruptedException {
    providerHookToAwait = providerHook;
    Cache<String, String> cache =
        manager.createCache(
            "loaded",
            new MutableConfiguration<String, String>()
                .setTypes(String.class, String.class)
                .setReadThrough(true)
                .setCacheLoaderFactory(FactoryBuilder.factoryOf(HoldingLoader.class)));
    cache.put("k", "v");
    Thread closer = new Thread(manager::close, "app-closer");
    closer.start();
    // keeps the JVM up until the close ended, so its line is printed whatever the provider does
    Runtime.getRuntime().addShutdownHook(new Thread(() -> joinQuietly(closer), "app-join"));
    CLOSE_BEGAN.await();
    System.exit(0);
  }

  private static void joinQuietly(Thread thread) {
    try {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A loader whose close (inside the manager's) lasts until the provider's hook has acted. */
  public static final class HoldingLoader implements CacheLoader<String, String>, Closeable {
    @Override
    public String load(String key) {
      return null;
    }

    @Override
    public Map<String, String> loadAll(Iterable<? extends String> keys) {
      return Map.of();
    }

    @Override
    public void close() {
      CLOSE_BEGAN.countDown();
      try {
        awaitActed(providerHookToAwait);
        // still inside the manager's close: the hook must not have closed the client
        System.out.println(
            providerHookToAwait.isAlive()
                ? "HOOK WAITS FOR THE CLOSE"
                : "HOOK CLOSED THE CLIENT UNDER THE CLOSE");
        System.out.flush();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
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

  /**
   * Until the hook has ended or waits for a closer (bounded: 20 s). Before the JVM's shutdown the
   * hook is not started (state NEW): this waits for the shutdown too.
   */
  private static void awaitActed(Thread hook) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      Thread.State state = hook.getState();
      if (state == Thread.State.TERMINATED
          || (state == Thread.State.TIMED_WAITING && awaitingClosers(hook))) {
        return;
      }
      Thread.onSpinWait();
    }
    throw new IllegalStateException("the provider's hook neither closed nor waited: " + hook);
  }

  private static boolean awaitingClosers(Thread hook) {
    for (StackTraceElement frame : hook.getStackTrace()) {
      if (frame.getMethodName().equals("awaitClosers")) {
        return true;
      }
    }
    return false;
  }
}
