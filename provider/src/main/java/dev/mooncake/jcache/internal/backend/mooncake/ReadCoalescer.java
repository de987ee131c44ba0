package dev.mooncake.jcache.internal.backend.mooncake;

import dev.mooncake.jcache.internal.calls.Causes;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Makes the {@code get_into} calls of virtual threads that are ready together one {@code
 * batch_get_into}, as the async view's read runner does for {@code getAsync} (docs/async.md). A
 * virtual thread's call is handed to a platform thread anyway ({@link VirtualThreadCalls}); a
 * thousand virtual threads reading at once then made a thousand round trips, each with its context
 * switches and the master's RPC. Here a read joins a queue and parks; a drainer on a platform
 * thread takes up to {@link #MAX_BATCH} reads of distinct keys, makes them one call, and takes what
 * queued meanwhile, until the queue is empty.
 *
 * <p>Each read answers what it would alone: its key's code or byte count, in its own buffer. The
 * batch runs under the earliest deadline of its reads; when the batch call throws (a time-out on
 * that deadline, a closed store), each of its reads is told to make its own call, on what is left
 * of its own deadline, so no read fails for another's. A read waits for nothing to be batched: one
 * that finds no drainer starts one, so a lone read goes at once. A drainer that has not started a
 * batch for {@link #STUCK_NANOS} (a call held up by a paused master) no longer holds the queue: the
 * next read starts another drainer. A read still queued when its own bound passes (what is left of
 * its deadline, at most one call's time) leaves the queue and makes its own call, which answers as
 * that bound says: the deadlines of reads hold as they do alone.
 */
final class ReadCoalescer {
  /** Reads per batch call at most, as the async view's read runner. */
  static final int MAX_BATCH = 64;

  /** A drainer that has not started a batch for this long no longer holds the queue. */
  static final long STUCK_NANOS = 5_000_000;

  /** A read's answer when the batch could not give one: make the call alone. */
  private static final long ALONE = Long.MIN_VALUE;

  /** One read: its own call ({@code get_into}), made on a platform thread. */
  interface Single {
    long getInto(String key, ByteBuffer destination, Deadline deadline);
  }

  /** The batch call ({@code batch_get_into}): an answer per key, in order. */
  interface Batch {
    long[] batchGetInto(String[] keys, ByteBuffer[] destinations, Deadline deadline);
  }

  private final Single single;
  private final Batch batch;
  private final Executor drainers;
  private final LongSupplier nanoTime;
  private final long callTimeoutNanos;
  private final ConcurrentLinkedQueue<Read> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger draining = new AtomicInteger();
  private final AtomicLong lastBatchStart = new AtomicLong();

  /**
   * @param drainers where drainers run: platform threads (a virtual thread's JNI call pins it)
   * @param callTimeoutNanos one call's time ({@code operation_timeout_ms}): a queued read waits at
   *     most this long, or what is left of its deadline if less, before it goes alone
   */
  ReadCoalescer(
      Single single, Batch batch, Executor drainers, LongSupplier nanoTime, long callTimeoutNanos) {
    this.single = single;
    this.batch = batch;
    this.drainers = drainers;
    this.nanoTime = nanoTime;
    this.callTimeoutNanos = callTimeoutNanos;
  }

  /**
   * Reads {@code key} into {@code destination}, in a batch with the reads ready with it, or alone
   * (on this thread, through {@code single}) when the batch could not answer it. Waits for the
   * answer however long it takes, as a handed-off call does: the buffer is the call's until then.
   */
  long getInto(String key, ByteBuffer destination, Deadline deadline) {
    Read read = new Read(key, destination, deadline);
    queue.add(read);
    startDrainerIfNeeded();
    Long answer = await(read.answer, Math.min(deadline.remainingNanos(), callTimeoutNanos));
    if (answer == null && !queue.remove(read)) {
      // a drainer took it: its batch runs under a deadline no later than this read's, and the
      // buffer is the call's until it returns
      answer = await(read.answer, Long.MAX_VALUE);
    }
    return answer == null || answer == ALONE ? single.getInto(key, destination, deadline) : answer;
  }

  /**
   * The answer, or null if none came within {@code nanos}; uninterruptible, as the call alone is
   * (an interrupt is kept for after).
   */
  private static Long await(CompletableFuture<Long> answer, long nanos) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return nanos == Long.MAX_VALUE
              ? answer.get()
              : answer.get(Math.max(0, nanos), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException e) {
          return null;
        } catch (ExecutionException e) {
          throw Causes.unwrapped(
              e.getCause(), RuntimeException.class, checked -> new CompletionException(checked));
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Reads waiting for a drainer now (tests). */
  int queued() {
    return queue.size();
  }

  private void startDrainerIfNeeded() {
    if (!claim()) {
      return; // a drainer takes the read in its next batch
    }
    try {
      drainers.execute(this::drain);
    } catch (RejectedExecutionException closed) {
      draining.decrementAndGet();
      answerAllAlone(); // closing: each read makes its own call, which the gate answers
    }
  }

  /**
   * Counts one more drainer, unless one runs that is not stuck; true when the caller is to drain.
   */
  private boolean claim() {
    while (true) {
      int running = draining.get();
      boolean stuck = running > 0 && nanoTime.getAsLong() - lastBatchStart.get() > STUCK_NANOS;
      if (running > 0 && !stuck) {
        return false;
      }
      if (draining.compareAndSet(running, running + 1)) {
        lastBatchStart.set(nanoTime.getAsLong());
        return true;
      }
    }
  }

  private void drain() {
    while (true) {
      List<Read> reads = take();
      if (reads.isEmpty()) {
        draining.decrementAndGet();
        // a read queued after take() and before the decrement saw a drainer: serve it
        if (queue.isEmpty() || !claim()) {
          return;
        }
        continue;
      }
      lastBatchStart.set(nanoTime.getAsLong());
      run(reads);
    }
  }

  /** Up to {@link #MAX_BATCH} queued reads of distinct keys; a key's second read waits. */
  private List<Read> take() {
    List<Read> reads = new ArrayList<>();
    Set<String> keys = new HashSet<>();
    List<Read> later = null;
    Read read;
    while (reads.size() < MAX_BATCH && (read = queue.poll()) != null) {
      if (keys.add(read.key)) {
        reads.add(read);
      } else {
        if (later == null) {
          later = new ArrayList<>();
        }
        later.add(read);
      }
    }
    if (later != null) {
      queue.addAll(later);
    }
    return reads;
  }

  private void run(List<Read> reads) {
    if (reads.size() == 1) {
      Read read = reads.get(0);
      try {
        read.answer.complete(single.getInto(read.key, read.destination, read.deadline));
      } catch (RuntimeException | Error e) {
        read.answer.completeExceptionally(e);
      }
      return;
    }
    int n = reads.size();
    String[] keys = new String[n];
    ByteBuffer[] destinations = new ByteBuffer[n];
    Deadline earliest = reads.get(0).deadline;
    for (int i = 0; i < n; i++) {
      Read read = reads.get(i);
      keys[i] = read.key;
      destinations[i] = read.destination;
      earliest = earliest.earlier(read.deadline);
    }
    long[] answers;
    try {
      answers = batch.batchGetInto(keys, destinations, earliest);
    } catch (RuntimeException | Error e) {
      for (Read read : reads) {
        read.answer.complete(ALONE);
      }
      return;
    }
    for (int i = 0; i < n; i++) {
      reads.get(i).answer.complete(answers[i]);
    }
  }

  private void answerAllAlone() {
    Read read;
    while ((read = queue.poll()) != null) {
      read.answer.complete(ALONE);
    }
  }

  /** A queued read and where its answer goes. */
  private static final class Read {
    final String key;
    final ByteBuffer destination;
    final Deadline deadline;
    final CompletableFuture<Long> answer = new CompletableFuture<>();

    Read(String key, ByteBuffer destination, Deadline deadline) {
      this.key = key;
      this.destination = destination;
      this.deadline = deadline;
    }
  }
}
