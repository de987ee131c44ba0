package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.internal.calls.Causes;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Moves the direct store calls of virtual threads onto platform threads. A JNI call pins its
 * virtual thread to its carrier for the whole round trip (JEP 491 unpinned {@code synchronized},
 * not native frames), so virtual threads calling the store inline get no more calls in flight than
 * there are carriers. Here a virtual thread hands its call to a thread of this pool and parks on a
 * {@link CompletableFuture} (a j.u.c wait: it unmounts, its carrier runs other virtual threads). A
 * platform thread still calls inline: for it the hop would be pure cost.
 *
 * <p>The call is still direct: the virtual thread waits for its end however long it takes, as it
 * would inline (an interrupt is kept for after), so buffers staged for a direct call stay valid.
 *
 * <p>One pool per JVM ({@link #shared}), never closed: it has no thread while no virtual thread
 * calls (idle ones end), and one cap bounds the platform threads of every client.
 */
final class VirtualThreadCalls {
  /**
   * Threads at most: calls beyond wait in the queue. Far above the carriers (the cores) that bound
   * inline calls, and a cap on the platform threads a burst of virtual threads can make.
   */
  static final int MAX_THREADS = 128;

  /** An idle thread ends after this, as {@code BoundedCalls}' do. */
  static final long IDLE_THREAD_SECONDS = 2;

  /**
   * {@code -Dmooncake.jcache.virtualThreadHandOff=false} makes virtual threads call inline, as
   * before: only for the test that shows what the hand-off saves.
   */
  static final String SWITCH = "mooncake.jcache.virtualThreadHandOff";

  /** {@code Thread.isVirtual()}, looked up once; null before Java 21 (no virtual threads). */
  private static final MethodHandle IS_VIRTUAL = lookUpIsVirtual();

  /** Made on first use (a class of its own): a JVM without Mooncake clients never makes it. */
  private static final class Shared {
    static final VirtualThreadCalls CALLS = new VirtualThreadCalls();
  }

  private final BooleanSupplier onVirtualThread;
  private final ThreadPoolExecutor pool;

  /** Hands off on virtual threads, unless the test switch turns it off. */
  VirtualThreadCalls() {
    this(
        Boolean.parseBoolean(System.getProperty(SWITCH, "true"))
            ? VirtualThreadCalls::currentIsVirtual
            : () -> false);
  }

  /** Tests: {@code onVirtualThread} answers whether the calling thread hands off. */
  VirtualThreadCalls(BooleanSupplier onVirtualThread) {
    this.onVirtualThread = onVirtualThread;
    AtomicInteger counter = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            MAX_THREADS,
            MAX_THREADS,
            IDLE_THREAD_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            work -> {
              Thread thread =
                  new Thread(work, "mooncake-vthread-calls-" + counter.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    pool.allowCoreThreadTimeOut(true); // no thread while no virtual thread calls
  }

  /** The pool of the JVM's Mooncake calls. */
  static VirtualThreadCalls shared() {
    return Shared.CALLS;
  }

  /** Whether the current thread is a virtual one (always false before Java 21). */
  static boolean currentIsVirtual() {
    if (IS_VIRTUAL == null) {
      return false;
    }
    try {
      return (boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
    } catch (Throwable e) {
      throw new IllegalStateException("Thread.isVirtual() failed", e);
    }
  }

  /** Whether a call made now on this thread is handed off. */
  boolean handsOff() {
    return onVirtualThread.getAsBoolean();
  }

  /**
   * Makes {@code call}: on a thread of this pool when the caller is a virtual thread (it parks
   * until the answer), else on the caller's thread. What the call throws is thrown as is. After
   * {@link #close} a virtual thread calls inline again.
   */
  long call(StoreCallRunner.LongClientCall call) {
    if (!handsOff()) {
      return call.call();
    }
    CompletableFuture<Long> answer = new CompletableFuture<>();
    try {
      pool.execute(
          () -> {
            try {
              answer.complete(call.call());
            } catch (Throwable e) {
              answer.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException closed) {
      return call.call(); // closing: the gate decides what the call answers
    }
    try {
      return answer.join(); // uninterruptible, as the inline call is
    } catch (CompletionException e) {
      throw Causes.unwrapped(e.getCause(), RuntimeException.class, checked -> e);
    }
  }

  /**
   * Runs {@code work} on a thread of this pool ({@link ReadCoalescer}'s drainers: platform threads
   * that make the calls of virtual threads). Throws {@link RejectedExecutionException} after {@link
   * #close}.
   */
  void execute(Runnable work) {
    pool.execute(work);
  }

  /**
   * Tests: refuses new hand-offs (later calls run inline); calls handed off finish; idle threads
   * end.
   */
  void close() {
    pool.shutdown();
  }

  private static MethodHandle lookUpIsVirtual() {
    try {
      return MethodHandles.publicLookup()
          .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
    } catch (NoSuchMethodException | IllegalAccessException e) {
      return null; // Java 17-20
    }
  }
}
