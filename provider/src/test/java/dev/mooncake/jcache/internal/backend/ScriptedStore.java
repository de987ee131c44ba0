package dev.mooncake.jcache.internal.backend;

import dev.mooncake.jcache.internal.calls.CallTimeoutException;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A store double for the entry layer's failure paths: calls go to a real store underneath, unless a
 * scripted answer is queued for the operation ({@code put}, {@code remove}, {@code getInto}, {@code
 * getSize}; {@code batchGetInto}: its first key's answer), in which case that answer is returned
 * instead and the real store is not touched ({@link #DROP} for a put: answer OK, store nothing, as
 * a dropped Mooncake put does). Every call is recorded, and each can move a fake ticker, so retry
 * deadlines pass without sleeps.
 */
public final class ScriptedStore implements ObjectStore {
  /** A scripted put answer: OK, but nothing is stored. */
  public static final long DROP = Long.MAX_VALUE;

  /**
   * A scripted answer: the call times out ({@link CallTimeoutException}), as a bounded call does.
   */
  public static final long TIME_OUT = Long.MIN_VALUE;

  private final ObjectStore delegate;
  private final Map<String, Deque<Long>> scripts = new HashMap<>();
  private final Map<String, Deque<byte[]>> objects = new HashMap<>();
  private final List<String> calls = new ArrayList<>();
  private final Map<String, List<Integer>> batchKeys = new HashMap<>();
  private boolean remote;
  private FakeTicker ticker;
  private long millisPerCall;

  public ScriptedStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  /** Queues answers for the next calls of {@code operation}, in order. */
  public synchronized ScriptedStore script(String operation, long... answers) {
    Deque<Long> queue = scripts.computeIfAbsent(operation, o -> new ArrayDeque<>());
    for (long answer : answers) {
      queue.add(answer);
    }
    return this;
  }

  /**
   * Queues objects for the next calls of {@code operation} ({@code getInto}, or {@code
   * batchGetInto} for its first key): the bytes are copied to the destination at its position and
   * their length answered, as if the store held them (a torn read, built by the test).
   */
  public synchronized ScriptedStore scriptBytes(String operation, byte[]... answers) {
    Deque<byte[]> queue = objects.computeIfAbsent(operation, o -> new ArrayDeque<>());
    for (byte[] answer : answers) {
      queue.add(answer.clone());
    }
    return this;
  }

  /** Forgets the calls recorded so far. */
  public synchronized void clearCalls() {
    calls.clear();
    remaining.clear();
    batchKeys.clear();
  }

  /** Answers {@link #inProcess} false from now on, as a store with round trips does. */
  public synchronized ScriptedStore actingRemote() {
    remote = true;
    return this;
  }

  /** How many keys each call of the batch {@code operation} carried, in order. */
  public synchronized List<Integer> batchKeys(String operation) {
    return List.copyOf(batchKeys.getOrDefault(operation, List.of()));
  }

  private synchronized void recordBatch(String operation, int keys) {
    batchKeys.computeIfAbsent(operation, o -> new ArrayList<>()).add(keys);
  }

  private synchronized byte[] nextObject(String operation) {
    Deque<byte[]> queue = objects.get(operation);
    return queue == null ? null : queue.poll();
  }

  private static long copy(byte[] object, ByteBuffer destination) {
    destination.put(destination.position(), object);
    return object.length;
  }

  /** Moves {@code ticker} by {@code millis} on every call (a store that takes time). */
  public synchronized ScriptedStore advancing(FakeTicker ticker, long millis) {
    this.ticker = ticker;
    this.millisPerCall = millis;
    return this;
  }

  /** The operations called so far, in order. */
  public synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  /** How often {@code operation} was called. */
  public synchronized long count(String operation) {
    return calls.stream().filter(operation::equals).count();
  }

  /** What each call of {@code operation} had left of its operation's deadline, in ms, in order. */
  public synchronized List<Long> remainingMillis(String operation) {
    return remaining.stream()
        .filter(r -> r.operation.equals(operation))
        .map(r -> r.millis)
        .toList();
  }

  private record Remaining(String operation, long millis) {}

  private final List<Remaining> remaining = new ArrayList<>();

  private synchronized Long next(String operation, Deadline deadline) {
    calls.add(operation);
    remaining.add(
        new Remaining(
            operation, deadline.isNone() ? Long.MAX_VALUE : deadline.remainingNanos() / 1_000_000));
    if (ticker != null) {
      ticker.advanceMillis(millisPerCall);
    }
    Deque<Long> queue = scripts.get(operation);
    return queue == null ? null : queue.poll();
  }

  @Override
  public int put(String key, ByteBuffer value, Deadline deadline) {
    Long scripted = next("put", deadline);
    if (scripted == null) {
      return delegate.put(key, value, deadline);
    }
    return scripted == DROP ? 0 : (int) (long) scripted;
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline) {
    next("batchPut", deadline);
    recordBatch("batchPut", keys.length);
    return delegate.batchPut(keys, values, deadline);
  }

  @Override
  public long getInto(String key, ByteBuffer destination, Deadline deadline) {
    Long scripted = next("getInto", deadline);
    byte[] object = nextObject("getInto");
    if (object != null) {
      return copy(object, destination);
    }
    if (scripted != null && scripted == TIME_OUT) {
      throw new CallTimeoutException("a scripted time-out of getInto(" + key + ")");
    }
    return scripted == null ? delegate.getInto(key, destination, deadline) : scripted;
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
    Long scripted = next("batchGetInto", deadline);
    recordBatch("batchGetInto", keys.length);
    long[] results = delegate.batchGetInto(keys, destinations, deadline);
    byte[] object = nextObject("batchGetInto");
    if (object != null && keys.length > 0) {
      results[0] = copy(object, destinations[0]);
    } else if (scripted != null && keys.length > 0) {
      results[0] = scripted; // a scripted code answers for the first key
    }
    return results;
  }

  @Override
  public int isExist(String key, Deadline deadline) {
    Long scripted = next("isExist", deadline);
    return scripted == null ? delegate.isExist(key, deadline) : (int) (long) scripted;
  }

  @Override
  public int[] batchIsExist(String[] keys, Deadline deadline) {
    Long scripted = next("batchIsExist", deadline);
    if (scripted == null) {
      return delegate.batchIsExist(keys, deadline);
    }
    int[] answers = new int[keys.length];
    java.util.Arrays.fill(answers, (int) (long) scripted);
    return answers;
  }

  @Override
  public long getSize(String key, Deadline deadline) {
    Long scripted = next("getSize", deadline);
    return scripted == null ? delegate.getSize(key, deadline) : scripted;
  }

  @Override
  public int remove(String key, boolean force, Deadline deadline) {
    Long scripted = next("remove", deadline);
    return scripted == null ? delegate.remove(key, force, deadline) : (int) (long) scripted;
  }

  @Override
  public long removeByRegex(String pattern, boolean force, Deadline deadline) {
    next("removeByRegex", deadline);
    return delegate.removeByRegex(pattern, force, deadline);
  }

  @Override
  public BufferPool buffers() {
    return delegate.buffers();
  }

  @Override
  public synchronized boolean inProcess() {
    return !remote && delegate.inProcess();
  }

  @Override
  public String describe() {
    return "scripted " + delegate.describe();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
