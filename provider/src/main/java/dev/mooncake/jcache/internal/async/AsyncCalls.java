package dev.mooncake.jcache.internal.async;

import dev.mooncake.jcache.internal.calls.CallTimeoutException;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the asynchronous API's operations of one cache manager: each is a synchronous cache call
 * handed to the provider's {@code async} threads, and its stage is completed there.
 *
 * <ul>
 *   <li><b>Back-pressure.</b> At most {@code maxInFlight} operations are issued and not yet
 *       completed; a caller beyond that waits for one to complete, at most {@code permitWait}, then
 *       gets an {@link AsyncOverloadException}. A provider thread (a dependent stage issuing a new
 *       operation) does not wait: it could be the very thread the others wait for.
 *   <li><b>Order per key.</b> Within one cache, an operation starts only after every earlier
 *       operation on any of its keys has completed, and its stage's own dependents have run. So
 *       {@code putAsync(k, 1); putAsync(k, 2)} leaves 2, and their stages complete in that order.
 *       Different keys run in parallel.
 *   <li><b>Deadline.</b> An operation's {@link Deadline} ({@code operation_timeout_ms}) starts when
 *       it is issued. One still queued (behind its keys or for a thread) when it passes fails with
 *       a {@link CallTimeoutException} without running, at once ({@link DeadlineTimer}) and again
 *       checked as it leaves each queue; one that runs gets what is left of it.
 *   <li><b>Cancel.</b> Cancelling a stage whose operation has not started withdraws it: it never
 *       runs and gives its room back. A running one finishes its store work; only its stage is
 *       cancelled.
 *   <li><b>Closing.</b> {@link Scope#end} fails the cache's queued operations at once and awaits
 *       the running ones (bounded), as closing ends background loads.
 *   <li><b>Reads ready together run as one batch.</b> A plain read ({@link Scope#submitRead}) whose
 *       keys are free joins its cache's queue of ready reads. One read runner per cache drains that
 *       queue: it takes the reads queued, up to {@value #MAX_BATCHED_READS} on distinct keys, runs
 *       them as one {@link BatchRead} (one store round trip instead of one each), completes them,
 *       and takes what queued meanwhile, until the queue is empty. A read that finds no runner
 *       starts one, so an idle cache reads alone at once; reads arriving during a round trip go
 *       together in the next. A runner that has not started a batch for {@link
 *       #READ_RUNNER_STALL_NANOS} (a stuck read, a slow dependent) no longer holds the others back:
 *       the next read, or a timer check, starts another. Why: on a real Mooncake a get's cost is
 *       mostly its round trip's (the master's RPC, the transfer, 8-10 context switches, measured in
 *       docs/performance.md), which a batch pays once. A second read runner starts beside a working
 *       one when reads wait and the CPU has room ({@link CpuRoom}): then the two overlap their
 *       round trips instead of the queue waiting for one.
 *   <li><b>Writes ready together run as one batch.</b> A plain write ({@link Scope#submitWrite}) is
 *       batched the same way by the cache's one write runner ({@link BatchWrite}); the order per
 *       key still holds, as a key has at most one call ready at a time.
 * </ul>
 */
public final class AsyncCalls implements AutoCloseable {
  /** At most this many reads (or writes) run as one batch. */
  public static final int MAX_BATCHED_READS = 64;

  /**
   * A read runner that has not started a batch for this long counts as stuck (a read of a paused
   * peer's segment, a slow dependent stage), and ready reads get a runner of their own: far above a
   * round trip (0.1-0.3 ms), far below an operation's deadline.
   */
  static final long READ_RUNNER_STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  /**
   * Plain reads of distinct keys run as one: answers in the keys' order, each what the read alone
   * would have answered. It throws only when nothing was answered yet (the batch's store read
   * failed): each read then runs alone, on what is left of its own deadline.
   */
  @FunctionalInterface
  public interface BatchRead<T> extends Batch<T> {
    List<Answer<T>> read(List<Object> keys, Deadline deadline);

    @Override
    default List<Answer<T>> run(List<Object> keys, List<Object> arguments, Deadline deadline) {
      return read(keys, deadline);
    }
  }

  /**
   * Writes of distinct keys run as one: {@code values.get(i)} goes to {@code keys.get(i)}; answers
   * in the keys' order, each what the write alone would have answered (its writer call, its
   * statistics, its exception). It throws only before any write has had an effect (its writer
   * called, its store touched): each write then runs alone. A failure after that (one key's, or the
   * batch put's) is that key's answer, so no write runs twice.
   */
  @FunctionalInterface
  public interface BatchWrite<T> extends Batch<T> {
    List<Answer<T>> write(List<Object> keys, List<Object> values, Deadline deadline);

    @Override
    default List<Answer<T>> run(List<Object> keys, List<Object> arguments, Deadline deadline) {
      return write(keys, arguments, deadline);
    }
  }

  /** A batch of one kind: {@link BatchRead} or {@link BatchWrite}. */
  public interface Batch<T> {
    /** Runs the calls of {@code keys} (with their {@code arguments}) as one. */
    List<Answer<T>> run(List<Object> keys, List<Object> arguments, Deadline deadline);
  }

  /** One read's answer in a batch: its value, or the exception the read alone would have thrown. */
  public record Answer<T>(T value, RuntimeException failure) {
    public static <T> Answer<T> of(T value) {
      return new Answer<>(value, null);
    }

    public static <T> Answer<T> failed(RuntimeException failure) {
      return new Answer<>(null, failure);
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(AsyncCalls.class);
  private static final Ticker CLOCK = Ticker.system(); // end() waits for real threads: real time

  private final int maxInFlight;
  private final Semaphore permits;
  private final long permitWaitNanos;
  private final Duration operationTimeout;
  private final Ticker ticker;
  private final Consumer<Runnable> workers;
  private final BooleanSupplier onWorker;
  private final DeadlineTimer timer;
  private final String owner;
  private final BooleanSupplier cpuRoom;

  /**
   * @param maxInFlight {@code async_max_in_flight}
   * @param operationTimeout {@code operation_timeout_ms}: each operation's deadline from its issue,
   *     and how long a caller waits for room
   * @param ticker what deadlines are read on
   * @param workers queues an operation on the provider's threads (throws when they are closed)
   * @param onWorker whether the current thread is one of them
   * @param timerThread the name of the deadline timer's thread, e.g. {@code
   *     mooncake-m1-async-timer}
   * @param owner names the cache manager in messages
   * @param cpuRoom whether the process has CPU to spare for a second read runner (see {@link
   *     CpuRoom}); asked only while one runner is at work and reads wait
   */
  public AsyncCalls(
      int maxInFlight,
      Duration operationTimeout,
      Ticker ticker,
      Consumer<Runnable> workers,
      BooleanSupplier onWorker,
      String timerThread,
      String owner,
      BooleanSupplier cpuRoom) {
    this.cpuRoom = Objects.requireNonNull(cpuRoom, "cpuRoom");
    if (maxInFlight <= 0) {
      throw new IllegalArgumentException("async_max_in_flight must be > 0, got " + maxInFlight);
    }
    this.maxInFlight = maxInFlight;
    this.permits = new Semaphore(maxInFlight);
    this.permitWaitNanos = operationTimeout.toNanos();
    this.operationTimeout = operationTimeout;
    this.ticker = ticker;
    this.workers = workers;
    this.onWorker = onWorker;
    this.timer = new DeadlineTimer(timerThread);
    this.owner = owner;
  }

  /**
   * Stops the deadline timer. The manager calls it once its caches have ended their operations
   * (docs/architecture.md, the order of closing).
   */
  @Override
  public void close() {
    timer.close();
  }

  /** Operations issued and not yet completed, across the manager's caches. */
  public int inFlight() {
    return maxInFlight - permits.availablePermits();
  }

  /** The operations of one cache: their order per key, and their end when the cache closes. */
  public Scope scope(String cacheName) {
    return new Scope(cacheName);
  }

  private void acquire(String cacheName, String operation) {
    if (permits.tryAcquire()) {
      return;
    }
    // The timer thread completes expired stages, whose dependents may issue operations.
    boolean provider = onWorker.getAsBoolean() || timer.onThread();
    if (!provider) {
      try {
        if (permits.tryAcquire(permitWaitNanos, TimeUnit.NANOSECONDS)) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AsyncOverloadException(
            operation + " on cache '" + cacheName + "': interrupted while waiting for room");
      }
    }
    throw new AsyncOverloadException(
        operation
            + " on cache '"
            + cacheName
            + "' refused: "
            + owner
            + " already has "
            + maxInFlight
            + " asynchronous operations in flight (async_max_in_flight)"
            + (provider
                ? "; issued from a provider thread, which does not wait"
                : " and none completed within " + TimeUnit.NANOSECONDS.toMillis(permitWaitNanos))
            + (provider ? "" : " ms (operation_timeout_ms)"));
  }

  /** One cache's operations. */
  public final class Scope {
    private final String cacheName;

    /** Per key, the completion of the last operation issued on it that has not completed. */
    private final ConcurrentHashMap<Object, CompletableFuture<Void>> tails =
        new ConcurrentHashMap<>();

    /** Batches register their keys one at a time; one at once, so two never wait for each other. */
    private final Object batchOrder = new Object();

    private final Set<Call<?>> calls = ConcurrentHashMap.newKeySet();

    /** Runs the plain reads ready together as batches; a second one where the CPU has room. */
    private final Runner reads = new Runner(2);

    /** Runs the plain writes ready together as batches, one runner at a time. */
    private final Runner writes = new Runner(1);

    private volatile boolean ended;

    private Scope(String cacheName) {
      this.cacheName = cacheName;
    }

    /**
     * Issues {@code work} (a synchronous cache call on {@code keys}, given the operation's
     * deadline): it runs on a provider thread once the earlier operations on its keys have
     * completed, and the returned future completes there with its result or exception. Throws
     * {@link AsyncOverloadException} when there is no room, and an {@link IllegalStateException}
     * when the cache has closed or the threads are gone. Cancelling the future before the work
     * starts withdraws it.
     */
    public <T> CompletableFuture<T> submit(
        String operation, Collection<?> keys, Function<Deadline, T> work) {
      return submit(operation, keys, work, null, null, null);
    }

    /**
     * As {@link #submit} for a plain read of one key: {@code work} reads it alone; {@code batch}
     * reads it with others ready at the same time (see the class comment). Reads are batched only
     * with reads submitted with the same {@code batch}.
     */
    public <T> CompletableFuture<T> submitRead(
        String operation, Object key, Function<Deadline, T> work, BatchRead<T> batch) {
      return submit(
          operation, List.of(key), work, Objects.requireNonNull(batch, "batch"), null, reads);
    }

    /**
     * As {@link #submit} for a plain write of {@code value} to one key: {@code work} writes it
     * alone; {@code batch} writes it with other writes ready at the same time (same {@code batch}),
     * as reads are batched, by this cache's one write runner.
     */
    public <T> CompletableFuture<T> submitWrite(
        String operation,
        Object key,
        Object value,
        Function<Deadline, T> work,
        BatchWrite<T> batch) {
      return submit(
          operation, List.of(key), work, Objects.requireNonNull(batch, "batch"), value, writes);
    }

    private <T> CompletableFuture<T> submit(
        String operation,
        Collection<?> keys,
        Function<Deadline, T> work,
        Batch<T> batch,
        Object argument,
        Runner runner) {
      if (ended) {
        throw closed();
      }
      // From the issue on, as a synchronous call's: the wait for room, its keys and a thread count.
      Deadline deadline = Deadline.after(operationTimeout, ticker);
      acquire(cacheName, operation);
      CompletableFuture<Void> slot = new CompletableFuture<>();
      CompletableFuture<Void> before = enter(keys, slot);
      Call<T> call =
          new Call<>(operation, keys, work, batch, argument, runner, deadline, slot, before);
      calls.add(call);
      if (ended && call.endUnstarted()) { // end() may have missed it
        throw closed();
      }
      call.arm();
      if (before == null) {
        call.dispatch("room (async_max_in_flight)");
      } else {
        before.whenComplete((ignored, failure) -> call.dispatch("earlier operations on its keys"));
      }
      return call.result;
    }

    /**
     * Ends the cache's operations (idempotent): later calls are refused, queued ones fail with an
     * {@link IllegalStateException} now, running ones are awaited up to {@code bound} in all (one
     * stuck longer is logged and left running). An operation that closes its own cache does not
     * wait for itself.
     */
    public void end(Duration bound) {
      ended = true;
      List<Call<?>> running = new ArrayList<>();
      for (Call<?> call : calls) {
        if (!call.endUnstarted() && call.runsOn != Thread.currentThread()) {
          running.add(call);
        }
      }
      Call<?> late = Deadline.after(bound, CLOCK).awaitEach(running, call -> call.finished);
      if (late != null) {
        LOG.warn(
            "cache '{}' closed while its {} was still running after {} ms",
            cacheName,
            late.operation,
            bound.toMillis());
      }
    }

    /** Entries in the queue of ready reads (tests: it must not grow with reads run alone). */
    public int readyReads() {
      return reads.ready.size();
    }

    /**
     * Drains the calls of one batch kind that are ready (their keys free): a batch at a time, on a
     * provider thread; see the class comment.
     */
    private final class Runner {
      /**
       * Calls whose keys are free, in the order they became so. Entries of calls that ended
       * otherwise (expired, withdrawn) are dropped by the next runner.
       */
      final ConcurrentLinkedQueue<Call<?>> ready = new ConcurrentLinkedQueue<>();

      /**
       * At most this many run at once while none is stuck (a second only where the CPU has room).
       */
      final int maxRunning;

      /** Whether a runner is handed to a thread and has not started yet. */
      final AtomicBoolean pending = new AtomicBoolean();

      /** Runners running. */
      final AtomicInteger running = new AtomicInteger();

      /** When a runner last started a batch ({@link Ticker#nanos}). */
      volatile long progressAt;

      /** Whether a timer check for a stuck runner is scheduled. */
      final AtomicBoolean stallCheck = new AtomicBoolean();

      Runner(int maxRunning) {
        this.maxRunning = maxRunning;
      }

      /** A ready call joins the queue; a runner is started unless one is on its way or at work. */
      void ready(Call<?> call) {
        ready.offer(call);
        schedule();
      }

      /**
       * Starts a runner unless one is about to start, or one runs and is not stuck (it takes the
       * queue before it ends: it looks again after leaving) and there is no room for another. A
       * queue left to a running runner gets a timer check, in case that runner turns out stuck.
       */
      void schedule() {
        int now = running.get();
        if (now > 0 && ticker.nanos() - progressAt < READ_RUNNER_STALL_NANOS) {
          if (now >= maxRunning || !cpuRoom.getAsBoolean()) {
            checkForStuckRunner();
            return;
          }
        }
        if (!pending.compareAndSet(false, true)) {
          return;
        }
        try {
          workers.accept(this::runReady);
        } catch (RuntimeException e) {
          pending.set(false);
          Call<?> call;
          while ((call = ready.poll()) != null) {
            call.fail(e); // the threads are closed: the stages fail rather than hang
          }
        }
      }

      private void checkForStuckRunner() {
        if (stallCheck.compareAndSet(false, true)) {
          Future<?> check =
              timer.schedule(
                  () -> {
                    stallCheck.set(false);
                    if (!ready.isEmpty()) {
                      schedule();
                    }
                  },
                  READ_RUNNER_STALL_NANOS);
          if (check == null) {
            stallCheck.set(false); // closing: the queued calls end with their cache
          }
        }
      }

      /**
       * A runner, on a provider thread: runs the ready calls, a batch at a time, until the queue is
       * empty; then looks once more after leaving, as a call that came meanwhile may have counted
       * on it.
       */
      private void runReady() {
        running.incrementAndGet();
        pending.set(false);
        try {
          Call<?> call;
          while ((call = ready.poll()) != null) {
            progressAt = ticker.nanos();
            call.runBatched();
          }
        } finally {
          running.decrementAndGet();
        }
        if (!ready.isEmpty()) {
          schedule();
        }
      }
    }

    /** Operations issued on this cache and not yet completed (tests). */
    public int pending() {
      return calls.size();
    }

    private IllegalStateException closed() {
      return new IllegalStateException("cache '" + cacheName + "' is closed");
    }

    /**
     * Makes {@code slot} the tail of each key and answers what it must wait for: the tails it
     * replaced, or null. A single key needs no lock (it cannot wait in a cycle); batches take
     * {@link #batchOrder}, so of two overlapping batches one is wholly before the other.
     */
    private CompletableFuture<Void> enter(Collection<?> keys, CompletableFuture<Void> slot) {
      if (keys.size() == 1) {
        return tails.put(keys.iterator().next(), slot);
      }
      List<CompletableFuture<Void>> before = new ArrayList<>();
      synchronized (batchOrder) {
        for (Object key : keys) {
          CompletableFuture<Void> previous = tails.put(key, slot);
          if (previous != null && !previous.isDone()) {
            before.add(previous);
          }
        }
      }
      if (before.isEmpty()) {
        return null;
      }
      return before.size() == 1
          ? before.get(0)
          : CompletableFuture.allOf(before.toArray(new CompletableFuture<?>[0]));
    }

    /** Keys with an operation in flight, or behind one that ended unstarted (tests). */
    public int orderedKeys() {
      return tails.size();
    }

    /** Lets the operations behind {@code slot} on its keys start. */
    private void open(Collection<?> keys, CompletableFuture<Void> slot) {
      slot.complete(null);
      for (Object key : keys) {
        tails.remove(key, slot);
      }
    }

    /** One operation: queued, running, or done. */
    private final class Call<T> implements Runnable {
      final String operation;
      final Collection<?> keys;
      Function<Deadline, T> work; // dropped when it ends unstarted: a queue may still hold the call
      final Batch<T> batch; // null: not a plain read or write
      final Object argument; // a write's value
      final Runner runner; // the batch's runner, or null
      final Deadline deadline;
      final Stage result = new Stage();

      /** Completes after {@link #result}: what later operations on the same keys wait for. */
      final CompletableFuture<Void> slot;

      /** The earlier operations on its keys, or null. */
      final CompletableFuture<Void> before;

      /** Taken by whichever comes first: a worker running the call, its end, expiry or cancel. */
      final AtomicBoolean claimed = new AtomicBoolean();

      final CountDownLatch finished = new CountDownLatch(1);
      volatile Thread runsOn;
      volatile Future<?> expiry;

      Call(
          String operation,
          Collection<?> keys,
          Function<Deadline, T> work,
          Batch<T> batch,
          Object argument,
          Runner runner,
          Deadline deadline,
          CompletableFuture<Void> slot,
          CompletableFuture<Void> before) {
        this.operation = operation;
        this.keys = keys;
        this.work = work;
        this.batch = batch;
        this.argument = argument;
        this.runner = runner;
        this.deadline = deadline;
        this.slot = slot;
        this.before = before;
      }

      /** Its predecessors are done (or {@code waited} for room): to a provider thread. */
      void dispatch(String waited) {
        if (claimed.get()) {
          return;
        }
        if (deadline.expired()) {
          expire(waited); // checked at dequeue too: a fake ticker moves no timer
          return;
        }
        if (runner != null) {
          runner.ready(this);
          return;
        }
        try {
          workers.accept(this);
        } catch (RuntimeException e) {
          fail(e); // the threads are closed: the stage fails rather than hangs
        }
      }

      @Override
      public void run() {
        if (claimToRun()) {
          runAlone();
        }
      }

      /**
       * Whether this thread may run the call: not if its deadline passed (then it fails unstarted)
       * or it has ended, expired, been withdrawn or taken along by a batch while queued.
       */
      private boolean claimToRun() {
        if (deadline.expired()) {
          expire("a thread of the async pool");
          return false;
        }
        return claimed.compareAndSet(false, true);
      }

      /**
       * A runner's: runs this call with the ready calls of its batch it takes along, unless it has
       * ended or expired meanwhile.
       */
      void runBatched() {
        if (!claimToRun()) {
          return;
        }
        List<Call<T>> together = callsToRunWith();
        if (together.size() == 1) {
          runAlone();
        } else {
          runBatch(together);
        }
      }

      /** Runs the claimed call by itself. */
      private void runAlone() {
        runsOn = Thread.currentThread();
        T value = null;
        Throwable failure = null;
        try {
          value = work.apply(deadline); // what is left of it, not a fresh one
        } catch (Throwable t) {
          failure = t;
        }
        runsOn = null;
        finish(value, failure);
      }

      /**
       * This claimed call and the ready calls it takes along (claimed here): those of the same
       * batch on other keys, not started; one whose deadline passed fails unstarted. A call of
       * another batch (or, which the order per key rules out, of a key already taken) goes back to
       * the queue for the next runner.
       */
      @SuppressWarnings("unchecked") // same batch object, so the same T
      private List<Call<T>> callsToRunWith() {
        List<Call<T>> together = new ArrayList<>();
        together.add(this);
        Set<Object> taken = new HashSet<>(keys);
        List<Call<?>> later = new ArrayList<>();
        Call<?> other;
        while (together.size() < MAX_BATCHED_READS && (other = runner.ready.poll()) != null) {
          if (other.claimed.get()) {
            continue;
          }
          if (other.deadline.expired()) {
            other.expire("a thread of the async pool");
          } else if (other.batch != batch || !taken.addAll(other.keys)) {
            later.add(other);
          } else if (other.claimed.compareAndSet(false, true)) {
            together.add((Call<T>) other);
          }
        }
        runner.ready.addAll(later);
        return together;
      }

      /**
       * Runs claimed calls as one batch, under the earliest of their deadlines. If the batch itself
       * fails before any call had an effect (it throws), each runs alone on what is left of its
       * own.
       */
      private void runBatch(List<Call<T>> together) {
        List<Object> batchKeys = new ArrayList<>(together.size());
        List<Object> arguments = new ArrayList<>(together.size());
        Deadline earliest = deadline;
        for (Call<T> call : together) {
          call.runsOn = Thread.currentThread();
          batchKeys.add(call.keys.iterator().next());
          arguments.add(call.argument);
          if (call.deadline.remainingNanos() < earliest.remainingNanos()) {
            earliest = call.deadline;
          }
        }
        List<Answer<T>> answers;
        try {
          answers = batch.run(batchKeys, arguments, earliest);
          if (answers.size() != together.size()) {
            throw new IllegalStateException(
                "a batch answered " + answers.size() + " of " + together.size() + " calls");
          }
        } catch (RuntimeException e) {
          together.forEach(Call::runAlone);
          return;
        } catch (Throwable t) {
          for (Call<T> call : together) {
            call.runsOn = null;
            call.finish(null, t); // an Error: no stage may hang
          }
          return;
        }
        for (int i = 0; i < together.size(); i++) {
          Call<T> call = together.get(i);
          call.runsOn = null;
          call.finish(answers.get(i).value(), answers.get(i).failure());
        }
      }

      /** Fails the call when its deadline passes, unless it has started or ended by then. */
      void arm() {
        Future<?> task = timer.schedule(this::onTimer, deadline.remainingNanos());
        expiry = task;
        if (task != null && claimed.get()) {
          task.cancel(false); // ended meanwhile
        }
      }

      private void onTimer() {
        if (claimed.get()) {
          return;
        }
        if (deadline.expired()) {
          expire(
              before != null && !before.isDone()
                  ? "earlier operations on its keys"
                  : "a thread of the async pool");
        } else {
          arm(); // its ticker (a test's fake one) says not yet: look again when it could be
        }
      }

      /** Fails it unstarted with the synchronous call's time-out: the bound, and the time spent. */
      private void expire(String waited) {
        fail(
            new CallTimeoutException(
                operation
                    + " on cache '"
                    + cacheName
                    + "': not started, the operation's time had run out while it waited for "
                    + waited
                    + "; the operation's deadline: "
                    + deadline.describe()));
      }

      /** Whether this ended the call (it had not started); then its stage has failed. */
      boolean endUnstarted() {
        return fail(
            new IllegalStateException(
                "cache '" + cacheName + "' was closed before this " + operation + " started"));
      }

      private boolean fail(RuntimeException failure) {
        if (!claimed.compareAndSet(false, true)) {
          return false;
        }
        work = null; // never to run: its arguments can go even while a thread's queue holds it
        finish(null, failure);
        return true;
      }

      /**
       * Room first (a dependent may issue the next operation), then the stage, then the keys: the
       * next operation on them starts after this one's dependents ran.
       */
      private void finish(T value, Throwable failure) {
        calls.remove(this);
        Future<?> task = expiry;
        if (task != null) {
          task.cancel(false);
        }
        permits.release();
        finished.countDown();
        try {
          if (failure == null) {
            result.complete(value);
          } else {
            result.completeExceptionally(failure);
          }
        } finally {
          passKeysOn();
        }
      }

      /**
       * Lets the next operations on its keys start: now, or, for one that ended without running
       * (expired, withdrawn, closed) while earlier ones still run, once those have ended, so that
       * one never runs beside the other.
       */
      private void passKeysOn() {
        if (before == null || before.isDone()) {
          open(keys, slot);
          return;
        }
        if (keys.size() == 1) {
          Object key = keys.iterator().next();
          if (tails.replace(key, slot, before)) {
            // Still the key's last: nobody waits for it, the next one waits for its predecessors
            // directly. Issuing and cancelling behind a long operation then leaves nothing behind.
            slot.complete(null);
            if (before.isDone()) {
              tails.remove(key, before); // ended meanwhile: its owner's removal may have come first
            }
            return;
          }
        }
        Collection<?> queuedKeys = keys;
        CompletableFuture<Void> queuedSlot = slot;
        // Holds the keys and the slot, not the call: its arguments (values) can go.
        before.whenComplete((ignored, failure) -> open(queuedKeys, queuedSlot));
      }

      /** The caller's stage: its {@link #cancel} withdraws the operation if it has not started. */
      private final class Stage extends CompletableFuture<T> {
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
          if (fail(
              new CancellationException(
                  operation + " on cache '" + cacheName + "' cancelled before it started"))) {
            return true; // withdrawn: it never runs, its room is given back
          }
          // Running (or done): the stage is cancelled, the store work goes on to its end, as a
          // cache operation cannot stop half done; it keeps its room until then.
          return super.cancel(mayInterruptIfRunning);
        }

        /** Dependents are plain futures: cancelling them withdraws nothing. */
        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
          return new CompletableFuture<>();
        }
      }
    }
  }
}
