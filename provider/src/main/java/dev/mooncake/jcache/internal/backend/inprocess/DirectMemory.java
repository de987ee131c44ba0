package dev.mooncake.jcache.internal.backend.inprocess;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Allocates direct buffers and frees them at once, rather than when the garbage collector gets to
 * their cleaners: a cache that evicts gigabytes must hand the memory back when it says so.
 *
 * <p>Freeing goes through {@code sun.misc.Unsafe#invokeCleaner} (module {@code jdk.unsupported},
 * open to every class path code without JVM flags). When it is missing the buffer is left to the
 * garbage collector, with a warning once.
 */
final class DirectMemory {
  private static final Logger LOG = LoggerFactory.getLogger(DirectMemory.class);
  private static final MethodHandle INVOKE_CLEANER = findInvokeCleaner();

  private DirectMemory() {}

  /** A new zeroed direct buffer; {@link OutOfMemoryError} past {@code -XX:MaxDirectMemorySize}. */
  static ByteBuffer allocate(int size) {
    return ByteBuffer.allocateDirect(size);
  }

  /**
   * Frees a buffer obtained from {@link #allocate}. The caller guarantees that nobody touches the
   * buffer (or a view of it) afterwards: the memory is gone.
   */
  static void free(ByteBuffer buffer) {
    if (INVOKE_CLEANER == null) {
      return;
    }
    try {
      INVOKE_CLEANER.invokeExact(buffer);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("freeing a direct buffer failed", e);
    }
  }

  /** Whether {@link #free} really frees (false: the garbage collector will). */
  static boolean freesPromptly() {
    return INVOKE_CLEANER != null;
  }

  private static MethodHandle findInvokeCleaner() {
    try {
      Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
      Field field = unsafeClass.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      Object unsafe = field.get(null);
      return MethodHandles.lookup()
          .findVirtual(
              unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
          .bindTo(unsafe);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "sun.misc.Unsafe#invokeCleaner is not available ({}); the in-process store's direct"
              + " memory is returned only when the garbage collector runs",
          e.toString());
      return null;
    }
  }
}
