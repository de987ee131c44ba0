package dev.mooncake.jcache.internal.lock.cluster;

import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that runs a keeping JVM's sweep (wants, lost lock objects, idle kept locks) every
 * period, and at once when {@link #wake woken} (a want's KV event). A daemon: it never keeps a JVM
 * alive, and closing the locks stops it.
 */
final class RevocationPoll implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RevocationPoll.class);
  private static final long JOIN_MILLIS = 200;

  private final Thread thread;
  private volatile boolean closed;

  RevocationPoll(Runnable sweep, long periodNanos) {
    thread =
        new Thread(
            () -> {
              while (!closed) {
                LockSupport.parkNanos(periodNanos);
                if (closed) {
                  return;
                }
                try {
                  sweep.run();
                } catch (RuntimeException e) {
                  // one failed round changes nothing: kept locks are renewed before their reuse
                  LOG.warn("a sweep of the kept cluster locks failed; the next one retries", e);
                }
              }
            },
            "mooncake-lock-keeper");
    thread.setDaemon(true);
    thread.start();
  }

  /** Runs the next sweep now (or right after the one in progress). */
  void wake() {
    LockSupport.unpark(thread);
  }

  /** Stops the thread, waiting at most {@value #JOIN_MILLIS} ms for a sweep in progress. */
  @Override
  public void close() {
    closed = true;
    LockSupport.unpark(thread);
    try {
      thread.join(JOIN_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
