package dev.mooncake.jcache.internal.event.remote;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * The events this JVM's own writes will cause, so their echo on the stream is not delivered to this
 * JVM's listeners a second time (they were told already, synchronously if they asked).
 *
 * <p>A write records what it expects <em>before</em> it calls the store (the echo may arrive before
 * the call returns) and cancels it if the call fails. A replace is remove-then-put, so a write
 * expects {@code removed} then {@code stored}; an echo matches the first expectation of its kind
 * for that key and also retires the ones before it (a write over an absent key causes no {@code
 * removed}). Expectations older than {@code lifetimeMillis} (their echo was lost) and all of them
 * on a flush are forgotten: then an echo is delivered as a remote change instead, a duplicate
 * rather than a loss. Bulk removals ({@code remove_by_regex}) cannot list their keys: while one
 * runs and for as many removals as it reported, unmatched {@code removed} echoes are taken as its
 * own.
 *
 * <p>Limit: matching is by key and order only. If another JVM writes the same key between this
 * JVM's write and its echo without a cluster-wide lock, one of the two changes may be taken for the
 * other (the listener still sees the key's last state).
 */
public final class OwnWrites {
  private final ConcurrentMap<String, Deque<Expected>> expected = new ConcurrentHashMap<>();
  private final LongSupplier clock;
  private final long lifetimeMillis;
  private final Object bulkLock = new Object();
  private final java.util.concurrent.atomic.AtomicInteger writes =
      new java.util.concurrent.atomic.AtomicInteger();
  private int bulkRunning;
  private long bulkCredit;

  public OwnWrites(LongSupplier clockMillis, long lifetimeMillis) {
    this.clock = clockMillis;
    this.lifetimeMillis = lifetimeMillis;
  }

  /** Handle of recorded expectations, to cancel them when the store call failed. */
  public interface Pending {
    void cancel();
  }

  /** Records that a write of {@code storeKey} will cause these events, in this order. */
  public Pending expect(String storeKey, KvEvent.Kind... kinds) {
    long now = clock.getAsLong();
    if ((writes.incrementAndGet() & 1023) == 0) {
      purge(now); // keys whose echo never came (no subscription) must not pile up
    }
    long deadline = now + lifetimeMillis;
    Expected[] recorded = new Expected[kinds.length];
    for (int i = 0; i < kinds.length; i++) {
      recorded[i] = new Expected(kinds[i], deadline);
    }
    expected.compute(
        storeKey,
        (k, queue) -> {
          Deque<Expected> q = queue == null ? new ArrayDeque<>() : queue;
          for (Expected e : recorded) {
            q.addLast(e);
          }
          return q;
        });
    return () ->
        expected.computeIfPresent(
            storeKey,
            (k, queue) -> {
              for (Expected e : recorded) {
                queue.removeIf(x -> isSame(x, e));
              }
              return queue.isEmpty() ? null : queue;
            });
  }

  /** A bulk removal starts; call {@link #bulkEnded} with its count in a finally block. */
  public void bulkStarted() {
    synchronized (bulkLock) {
      bulkRunning++;
    }
  }

  /** A bulk removal ended having removed {@code count} objects (0 if it failed). */
  public void bulkEnded(long count) {
    synchronized (bulkLock) {
      bulkRunning--;
      bulkCredit = Math.max(0, bulkCredit + count);
    }
  }

  /** Whether this event is the echo of an own write (then it is used up). */
  public boolean consume(String storeKey, KvEvent.Kind kind) {
    long now = clock.getAsLong();
    boolean[] matched = new boolean[1];
    expected.computeIfPresent(
        storeKey,
        (k, queue) -> {
          queue.removeIf(e -> e.deadline < now);
          Iterator<Expected> it = queue.iterator();
          int upTo = 0;
          int i = 0;
          while (it.hasNext()) {
            i++;
            if (it.next().kind == kind) {
              upTo = i;
              break;
            }
          }
          for (int j = 0; j < upTo; j++) {
            queue.pollFirst();
          }
          matched[0] = upTo > 0;
          return queue.isEmpty() ? null : queue;
        });
    if (matched[0] || kind != KvEvent.Kind.REMOVED) {
      return matched[0];
    }
    synchronized (bulkLock) {
      if (bulkRunning > 0 || bulkCredit > 0) {
        bulkCredit--;
        return true;
      }
    }
    return false;
  }

  private void purge(long now) {
    for (String key : expected.keySet()) {
      expected.computeIfPresent(
          key,
          (k, queue) -> {
            queue.removeIf(e -> e.deadline < now);
            return queue.isEmpty() ? null : queue;
          });
    }
  }

  /** Forgets every expectation (the stream had a gap: their echoes may be lost). */
  public void clear() {
    expected.clear();
    synchronized (bulkLock) {
      bulkCredit = 0;
    }
  }

  /** Keys with expectations outstanding (for tests). */
  int size() {
    return expected.size();
  }

  /** The very expectation recorded (two equal ones of the same key are still two). */
  @SuppressWarnings("ReferenceEquality")
  private static boolean isSame(Expected a, Expected b) {
    return a == b;
  }

  private record Expected(KvEvent.Kind kind, long deadline) {}
}
