package dev.mooncake.jcache.internal.lock;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The key locks of each store connection in this JVM. Two cache managers on one connection (two
 * class loaders of an application server, a Spring DevTools restart, a second URI naming the same
 * cluster) write the same store keys, so they must take the same locks: locks owned by a manager
 * would let their writers interleave. A connection is known by identity (the shared store object);
 * its locks live while some manager holds a lease on them.
 */
public final class KeyLockRegistry {
  private static final Map<Object, Shared> BY_CONNECTION = new IdentityHashMap<>();

  private KeyLockRegistry() {}

  /**
   * A lease on the key locks of {@code connection}, made by {@code create} for its first user.
   * Close the lease when the manager closes.
   */
  public static Lease acquire(Object connection, Supplier<? extends KeyLocks> create) {
    Objects.requireNonNull(connection, "connection");
    synchronized (BY_CONNECTION) {
      Shared shared = BY_CONNECTION.get(connection);
      if (shared == null) {
        shared = new Shared(Objects.requireNonNull(create.get(), "created locks"));
        BY_CONNECTION.put(connection, shared);
      }
      shared.users++;
      return new Lease(connection, shared.locks);
    }
  }

  /** How many connections have locks right now (for tests). */
  static int connections() {
    synchronized (BY_CONNECTION) {
      return BY_CONNECTION.size();
    }
  }

  private static void release(Object connection, KeyLocks locks) {
    boolean last = false;
    synchronized (BY_CONNECTION) {
      Shared shared = BY_CONNECTION.get(connection);
      if (shared != null && shared.locks == locks && --shared.users == 0) {
        BY_CONNECTION.remove(connection);
        last = true;
      }
    }
    if (last && locks instanceof AutoCloseable closeable) {
      closeQuietly(closeable); // e.g. cluster locks kept after their operations: released now
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      throw new IllegalStateException("closing the key locks failed", e);
    }
  }

  private static final class Shared {
    final KeyLocks locks;
    int users; // guarded by BY_CONNECTION

    Shared(KeyLocks locks) {
      this.locks = locks;
    }
  }

  /** One manager's use of a connection's locks; closing it twice is harmless. */
  public static final class Lease implements AutoCloseable {
    private final Object connection;
    private final KeyLocks locks;
    private final AtomicBoolean closed = new AtomicBoolean();

    Lease(Object connection, KeyLocks locks) {
      this.connection = connection;
      this.locks = locks;
    }

    public KeyLocks locks() {
      return locks;
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        release(connection, locks);
      }
    }
  }
}
