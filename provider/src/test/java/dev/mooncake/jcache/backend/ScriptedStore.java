package dev.mooncake.jcache.backend;

import dev.mooncake.jcache.time.FakeTicker;
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
 * getSize}), in which case that answer is returned instead and the real store is not touched
 * ({@link #DROP} for a put: answer OK, store nothing, as a dropped Mooncake put does). Every call
 * is recorded, and each can move a fake ticker, so retry deadlines pass without sleeps.
 */
public final class ScriptedStore implements ObjectStore {
  /** A scripted put answer: OK, but nothing is stored. */
  public static final long DROP = Long.MAX_VALUE;

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

  private synchronized Long next(String operation) {
    calls.add(operation);
    if (ticker != null) {
      ticker.advanceMillis(millisPerCall);
    }
    Deque<Long> queue = scripts.get(operation);
    return queue == null ? null : queue.poll();
  }

  @Override
  public int put(String key, ByteBuffer value) {
    Long scripted = next("put");
    if (scripted == null) {
      return delegate.put(key, value);
    }
    return scripted == DROP ? 0 : (int) (long) scripted;
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values) {
    next("batchPut");
    recordBatch("batchPut", keys.length);
    return delegate.batchPut(keys, values);
  }

  @Override
  public long getInto(String key, ByteBuffer destination) {
    Long scripted = next("getInto");
    byte[] object = nextObject("getInto");
    if (object != null) {
      return copy(object, destination);
    }
    return scripted == null ? delegate.getInto(key, destination) : scripted;
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations) {
    next("batchGetInto");
    recordBatch("batchGetInto", keys.length);
    long[] results = delegate.batchGetInto(keys, destinations);
    byte[] object = nextObject("batchGetInto");
    if (object != null && keys.length > 0) {
      results[0] = copy(object, destinations[0]);
    }
    return results;
  }

  @Override
  public int isExist(String key) {
    Long scripted = next("isExist");
    return scripted == null ? delegate.isExist(key) : (int) (long) scripted;
  }

  @Override
  public int[] batchIsExist(String[] keys) {
    Long scripted = next("batchIsExist");
    if (scripted == null) {
      return delegate.batchIsExist(keys);
    }
    int[] answers = new int[keys.length];
    java.util.Arrays.fill(answers, (int) (long) scripted);
    return answers;
  }

  @Override
  public long getSize(String key) {
    Long scripted = next("getSize");
    return scripted == null ? delegate.getSize(key) : scripted;
  }

  @Override
  public int remove(String key, boolean force) {
    Long scripted = next("remove");
    return scripted == null ? delegate.remove(key, force) : (int) (long) scripted;
  }

  @Override
  public long removeByRegex(String pattern, boolean force) {
    next("removeByRegex");
    return delegate.removeByRegex(pattern, force);
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
