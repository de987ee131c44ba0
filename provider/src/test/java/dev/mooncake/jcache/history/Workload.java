package dev.mooncake.jcache.history;

import dev.mooncake.jcache.MooncakeCacheAsync;
import dev.mooncake.jcache.ZeroCopyCache;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import javax.cache.Cache;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorResult;
import javax.cache.processor.MutableEntry;

/**
 * One thread's random mix of every per-key and multi-key JCache operation on a few contended keys,
 * each call recorded in the {@link PeerLog}: the synchronous calls, the multi-key ones ({@code
 * getAll}, {@code putAll}, {@code removeAll(keys)}, {@code invokeAll}: one recorded operation per
 * key, all with the call's invocation and completion times, as Jepsen checks independent keys), a
 * burst of several calls in flight at once through the async view, and on a second cache of {@code
 * byte[]} values (keys {@code z…}) the zero-copy get and put ({@link ZeroCopyCache}) mixed with
 * that cache's normal calls. Written values are unique ({@link Values}); a conditional replace or
 * remove expects the value this thread last saw for the key, so it sometimes succeeds.
 *
 * <p>The recorded process names the thread and the path, e.g. {@code p1/0:async} or {@code
 * p1/1v:zcGet} ({@code v}: a virtual thread), so a run can say how many calls took each path.
 */
final class Workload {
  /** The kinds drawn, each as often as it appears (reads and CAS a little more often). */
  private static final List<OpKind> MIX =
      List.of(
          OpKind.GET,
          OpKind.GET,
          OpKind.GET,
          OpKind.CONTAINS_KEY,
          OpKind.PUT,
          OpKind.PUT,
          OpKind.PUT_IF_ABSENT,
          OpKind.REPLACE,
          OpKind.REPLACE_IF_EQUALS,
          OpKind.REPLACE_IF_EQUALS,
          OpKind.REMOVE,
          OpKind.REMOVE_IF_EQUALS,
          OpKind.GET_AND_PUT,
          OpKind.GET_AND_REMOVE,
          OpKind.GET_AND_REPLACE,
          OpKind.INVOKE);

  /**
   * The byte[] cache's normal calls beside the zero-copy ones (no equality-based CAS: a byte[]
   * value's equals is identity; no entry processor).
   */
  private static final List<OpKind> BYTES_MIX =
      List.of(
          OpKind.GET,
          OpKind.CONTAINS_KEY,
          OpKind.PUT,
          OpKind.PUT_IF_ABSENT,
          OpKind.REPLACE,
          OpKind.REMOVE,
          OpKind.GET_AND_PUT,
          OpKind.GET_AND_REMOVE);

  /** How a step calls the cache; its label is the path part of the recorded process. */
  enum Path {
    SYNC("sync", 10),
    GET_ALL("getAll", 1),
    PUT_ALL("putAll", 1),
    REMOVE_ALL("removeAll", 1),
    INVOKE_ALL("invokeAll", 1),
    ASYNC("async", 4),
    ZERO_COPY_GET("zcGet", 3),
    ZERO_COPY_PUT("zcPut", 2),
    BYTES("bytes", 2);

    final String label;
    final int weight;

    Path(String label, int weight) {
      this.label = label;
      this.weight = weight;
    }
  }

  private static final List<Path> PATHS = weighted();

  /** The most calls in flight at once in an async burst, and keys in a multi-key call. */
  private static final int MAX_BURST = 4;

  private static final int MAX_KEYS_PER_CALL = 3;

  private final Cache<String, String> cache;
  private final MooncakeCacheAsync<String, String> async;
  private final Cache<String, byte[]> bytes;
  private final ZeroCopyCache<String> zeroCopy;
  private final PeerLog log;
  private final String segment;
  private final int thread;
  private final String threadName;
  private final int keys;
  private final int byteKeys;
  private final int valueBytes;
  private final Random random;
  private final Map<String, String> lastSeen = new HashMap<>();
  private ZeroCopyDestination destination;
  private ByteBuffer source;
  private long sequence;
  private long failed;

  @SuppressWarnings("unchecked")
  Workload(
      Cache<String, String> cache,
      Cache<String, byte[]> bytes,
      PeerLog log,
      String segment,
      int thread,
      boolean virtual,
      int keys,
      int valueBytes,
      long seed) {
    this.cache = cache;
    this.async = cache.unwrap(MooncakeCacheAsync.class);
    this.bytes = bytes;
    this.zeroCopy = bytes.unwrap(ZeroCopyCache.class);
    this.log = log;
    this.segment = segment;
    this.thread = thread;
    this.threadName = segment + "/" + thread + (virtual ? "v" : "");
    this.keys = keys;
    this.byteKeys = Math.max(1, (keys + 1) / 2);
    this.valueBytes = valueBytes;
    this.random = new Random(seed);
  }

  private static List<Path> weighted() {
    List<Path> paths = new ArrayList<>();
    for (Path path : Path.values()) {
      for (int i = 0; i < path.weight; i++) {
        paths.add(path);
      }
    }
    return List.copyOf(paths);
  }

  long failed() {
    return failed;
  }

  /** Runs one random call (a burst: several) and records it; answers the operations recorded. */
  int step() {
    Path path = PATHS.get(random.nextInt(PATHS.size()));
    return switch (path) {
      case SYNC -> single(path, draw(key(), MIX), false);
      case BYTES -> single(path, draw(byteKey(), BYTES_MIX), false);
      case ASYNC -> burst();
      case ZERO_COPY_GET -> zeroCopyGet();
      case ZERO_COPY_PUT -> {
        String key = byteKey();
        yield single(path, new PeerLog.Part(OpKind.PUT, key, value(key), null), true);
      }
      case GET_ALL, PUT_ALL, REMOVE_ALL, INVOKE_ALL -> multi(path);
    };
  }

  private String key() {
    return "k" + random.nextInt(keys);
  }

  private String byteKey() {
    return "z" + random.nextInt(byteKeys);
  }

  /** A new unique value id for {@code key}. */
  private String value(String key) {
    return Values.id(key, segment, thread, ++sequence);
  }

  /** A random single-key call on {@code key} from {@code mix}, with its arguments. */
  private PeerLog.Part draw(String key, List<OpKind> mix) {
    OpKind kind = mix.get(random.nextInt(mix.size()));
    String expected = lastSeen.get(key);
    if ((kind == OpKind.REPLACE_IF_EQUALS || kind == OpKind.REMOVE_IF_EQUALS) && expected == null) {
      kind = OpKind.GET; // nothing seen to compare with yet
    }
    return switch (kind) {
      case REPLACE_IF_EQUALS -> new PeerLog.Part(kind, key, expected, value(key));
      case REMOVE_IF_EQUALS -> new PeerLog.Part(kind, key, expected, null);
      case GET, CONTAINS_KEY, REMOVE, GET_AND_REMOVE -> new PeerLog.Part(kind, key, null, null);
      default -> new PeerLog.Part(kind, key, value(key), null);
    };
  }

  private String process(Path path) {
    return threadName + ":" + path.label;
  }

  /** One synchronous call (on the byte[] cache for z keys; zero-copy for a zero-copy put). */
  private int single(Path path, PeerLog.Part part, boolean zeroCopyPut) {
    long n = log.invokeAll(process(path), List.of(part));
    Object result;
    try {
      result =
          zeroCopyPut
              ? zeroCopyPut(part)
              : part.key().startsWith("z") ? callBytes(part) : callSync(part);
    } catch (RuntimeException | Error e) {
      fail(n, System.nanoTime(), e);
      return 1;
    }
    complete(n, System.nanoTime(), part, result);
    return 1;
  }

  private Object callSync(PeerLog.Part p) {
    String key = p.key();
    String stored = stored(p.kind() == OpKind.REPLACE_IF_EQUALS ? p.arg2() : p.arg());
    return switch (p.kind()) {
      case GET -> cache.get(key);
      case CONTAINS_KEY -> cache.containsKey(key);
      case PUT -> {
        cache.put(key, stored);
        yield null;
      }
      case PUT_IF_ABSENT -> cache.putIfAbsent(key, stored);
      case REPLACE -> cache.replace(key, stored);
      case REPLACE_IF_EQUALS -> cache.replace(key, stored(p.arg()), stored);
      case REMOVE -> cache.remove(key);
      case REMOVE_IF_EQUALS -> cache.remove(key, stored(p.arg()));
      case GET_AND_PUT -> cache.getAndPut(key, stored);
      case GET_AND_REMOVE -> cache.getAndRemove(key);
      case GET_AND_REPLACE -> cache.getAndReplace(key, stored);
      case INVOKE -> cache.invoke(key, new Swap(), stored);
      default -> throw new IllegalArgumentException(p.kind().toString());
    };
  }

  private CompletionStage<?> callAsync(PeerLog.Part p) {
    String key = p.key();
    String stored = stored(p.kind() == OpKind.REPLACE_IF_EQUALS ? p.arg2() : p.arg());
    return switch (p.kind()) {
      case GET -> async.getAsync(key);
      case CONTAINS_KEY -> async.containsKeyAsync(key);
      case PUT -> async.putAsync(key, stored);
      case PUT_IF_ABSENT -> async.putIfAbsentAsync(key, stored);
      case REPLACE -> async.replaceAsync(key, stored);
      case REPLACE_IF_EQUALS -> async.replaceAsync(key, stored(p.arg()), stored);
      case REMOVE -> async.removeAsync(key);
      case REMOVE_IF_EQUALS -> async.removeAsync(key, stored(p.arg()));
      case GET_AND_PUT -> async.getAndPutAsync(key, stored);
      case GET_AND_REMOVE -> async.getAndRemoveAsync(key);
      case GET_AND_REPLACE -> async.getAndReplaceAsync(key, stored);
      case INVOKE -> async.invokeAsync(key, new Swap(), stored);
      default -> throw new IllegalArgumentException(p.kind().toString());
    };
  }

  /** The byte[] cache's normal calls; values travel as the ASCII bytes of their stored text. */
  private Object callBytes(PeerLog.Part p) {
    String key = p.key();
    byte[] stored = p.arg() == null ? null : stored(p.arg()).getBytes(StandardCharsets.ISO_8859_1);
    Object result =
        switch (p.kind()) {
          case GET -> bytes.get(key);
          case CONTAINS_KEY -> bytes.containsKey(key);
          case PUT -> {
            bytes.put(key, stored);
            yield null;
          }
          case PUT_IF_ABSENT -> bytes.putIfAbsent(key, stored);
          case REPLACE -> bytes.replace(key, stored);
          case REMOVE -> bytes.remove(key);
          case GET_AND_PUT -> bytes.getAndPut(key, stored);
          case GET_AND_REMOVE -> bytes.getAndRemove(key);
          default -> throw new IllegalArgumentException(p.kind().toString());
        };
    return result instanceof byte[] value ? new String(value, StandardCharsets.ISO_8859_1) : result;
  }

  private Object zeroCopyPut(PeerLog.Part p) {
    if (source == null) {
      source = zeroCopy.allocate(valueBytes);
    }
    byte[] value = stored(p.arg()).getBytes(StandardCharsets.ISO_8859_1);
    source.clear().position(ZeroCopyCache.HEADER_BYTES);
    source.put(value).flip().position(ZeroCopyCache.HEADER_BYTES);
    zeroCopy.put(p.key(), source);
    return null;
  }

  /**
   * A zero-copy get into a destination of the caller's bytes, checked after the call whatever its
   * outcome ({@link ZeroCopyDestination}): a broken promise is recorded as a torn read.
   */
  private int zeroCopyGet() {
    if (destination == null) {
      destination = new ZeroCopyDestination(zeroCopy, valueBytes);
    }
    PeerLog.Part part = new PeerLog.Part(OpKind.GET, byteKey(), null, null);
    ByteBuffer buffer = destination.prepare();
    long n = log.invokeAll(process(Path.ZERO_COPY_GET), List.of(part));
    int length;
    try {
      length = zeroCopy.get(part.key(), buffer);
    } catch (RuntimeException | Error e) {
      long completed = System.nanoTime();
      StringBuilder problem = new StringBuilder();
      destination.afterNoValue("an exception", problem);
      tornIf(n, problem);
      fail(n, completed, e);
      return 1;
    }
    long completed = System.nanoTime();
    StringBuilder problem = new StringBuilder();
    String value = null;
    if (length < 0) {
      destination.afterNoValue("a miss", problem);
    } else {
      value = destination.afterHit(length, problem);
    }
    tornIf(n, problem);
    if (length >= 0 && value == null) {
      fail(n, completed, new IllegalStateException("zero-copy get: " + problem));
    } else {
      complete(n, completed, part, value);
    }
    return 1;
  }

  private void tornIf(long n, StringBuilder problem) {
    if (problem.length() > 0) {
      log.torn(n, "destination:" + problem.toString().replace(' ', '_'));
    }
  }

  /** Several calls in flight at once through the async view, each recorded when it completes. */
  private int burst() {
    int count = 2 + random.nextInt(MAX_BURST - 1);
    List<PeerLog.Part> parts = new ArrayList<>(count);
    List<Long> numbers = new ArrayList<>(count);
    List<CompletableFuture<?>> calls = new ArrayList<>(count);
    List<CompletableFuture<Long>> completions = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      PeerLog.Part part = draw(key(), MIX);
      long n = log.invokeAll(process(Path.ASYNC), List.of(part));
      CompletableFuture<?> call;
      try {
        call = callAsync(part).toCompletableFuture();
      } catch (RuntimeException | Error e) {
        call = CompletableFuture.failedFuture(e); // refused at issue (overload, say)
      }
      parts.add(part);
      numbers.add(n);
      calls.add(call);
      completions.add(call.handle((r, e) -> System.nanoTime()));
    }
    for (int i = 0; i < count; i++) {
      long completed = completions.get(i).join();
      CompletableFuture<?> call = calls.get(i);
      if (call.isCompletedExceptionally()) {
        fail(numbers.get(i), completed, cause(call));
      } else {
        complete(numbers.get(i), completed, parts.get(i), call.join());
      }
    }
    return count;
  }

  private static Throwable cause(CompletableFuture<?> failed) {
    try {
      failed.join();
      throw new AssertionError("not failed");
    } catch (java.util.concurrent.CompletionException e) {
      return e.getCause() != null ? e.getCause() : e;
    } catch (java.util.concurrent.CancellationException e) {
      return e;
    }
  }

  /** A multi-key call on 1-3 distinct keys: one recorded operation per key. */
  private int multi(Path path) {
    Set<String> keySet = new LinkedHashSet<>();
    int wanted = 1 + random.nextInt(MAX_KEYS_PER_CALL);
    while (keySet.size() < wanted) {
      keySet.add(key());
    }
    List<PeerLog.Part> parts = new ArrayList<>();
    for (String key : keySet) {
      parts.add(
          switch (path) {
            case GET_ALL -> new PeerLog.Part(OpKind.GET, key, null, null);
            case PUT_ALL -> new PeerLog.Part(OpKind.PUT, key, value(key), null);
            case REMOVE_ALL -> new PeerLog.Part(OpKind.REMOVE_BLIND, key, null, null);
            case INVOKE_ALL -> new PeerLog.Part(OpKind.INVOKE, key, value(key), null);
            default -> throw new IllegalArgumentException(path.toString());
          });
    }
    long first = log.invokeAll(process(path), parts);
    Map<String, ?> results;
    try {
      results = callMulti(path, keySet, parts);
    } catch (RuntimeException | Error e) {
      long completed = System.nanoTime();
      for (int i = 0; i < parts.size(); i++) {
        fail(first + i, completed, e);
      }
      return parts.size();
    }
    long completed = System.nanoTime();
    for (int i = 0; i < parts.size(); i++) {
      PeerLog.Part part = parts.get(i);
      Object result = results.get(part.key());
      if (result instanceof EntryProcessorResult<?> processed) {
        try {
          result = processed.get();
        } catch (RuntimeException e) {
          fail(first + i, completed, e);
          continue;
        }
      }
      complete(first + i, completed, part, result);
    }
    return parts.size();
  }

  private Map<String, ?> callMulti(Path path, Set<String> keySet, List<PeerLog.Part> parts) {
    return switch (path) {
      case GET_ALL -> cache.getAll(keySet);
      case PUT_ALL -> {
        Map<String, String> values = new HashMap<>();
        parts.forEach(p -> values.put(p.key(), stored(p.arg())));
        cache.putAll(values);
        yield Map.of();
      }
      case REMOVE_ALL -> {
        cache.removeAll(keySet);
        yield Map.of();
      }
      case INVOKE_ALL -> {
        HashMap<String, String> values = new HashMap<>();
        parts.forEach(p -> values.put(p.key(), stored(p.arg())));
        yield cache.invokeAll(keySet, new SwapEach(), values);
      }
      default -> throw new IllegalArgumentException(path.toString());
    };
  }

  private String stored(String id) {
    return id == null ? null : Values.stored(id, valueBytes);
  }

  /** Records the call's result as text and remembers what it saw. */
  private void complete(long n, long completed, PeerLog.Part part, Object result) {
    String text = text(n, part.kind(), result);
    log.completed(n, completed, text);
    remember(part, text);
  }

  private void fail(long n, long completed, Throwable e) {
    log.failed(n, completed, e);
    failed++;
  }

  /** A result as the history's text: a value's id ("null" when absent), a boolean, "ok". */
  private String text(long n, OpKind kind, Object result) {
    return switch (kind) {
      case PUT, REMOVE_BLIND -> "ok";
      case GET, GET_AND_PUT, GET_AND_REMOVE, GET_AND_REPLACE, INVOKE -> read(n, (String) result);
      default -> Boolean.toString((Boolean) result);
    };
  }

  /** A value result as its id ("null" when absent); a torn or foreign one is noted in the log. */
  private String read(long n, String stored) {
    if (stored == null) {
      return Operation.ABSENT;
    }
    Values.Read read = Values.read(stored);
    if (!read.intact()) {
      log.torn(n, stored);
    }
    return read.id();
  }

  private void remember(PeerLog.Part part, String result) {
    String written = part.kind() == OpKind.REPLACE_IF_EQUALS ? part.arg2() : part.arg();
    boolean wrote =
        switch (part.kind()) {
          case PUT, GET_AND_PUT, INVOKE -> true;
          case PUT_IF_ABSENT, REPLACE, REPLACE_IF_EQUALS -> result.equals("true");
          case GET_AND_REPLACE -> !result.equals(Operation.ABSENT);
          default -> false;
        };
    if (wrote) {
      lastSeen.put(part.key(), written);
    } else if (!result.equals(Operation.ABSENT) && Values.ownerOf(result) != null) {
      lastSeen.put(part.key(), result);
    }
  }

  /** Gives back the zero-copy buffers. */
  void close() {
    if (destination != null) {
      destination.release();
    }
    if (source != null) {
      zeroCopy.release(source);
    }
  }

  /** The entry processor: answers the old value (or null) and sets the argument. */
  static final class Swap implements EntryProcessor<String, String, String> {
    @Override
    public String process(MutableEntry<String, String> entry, Object... arguments) {
      String old = entry.exists() ? entry.getValue() : null;
      entry.setValue((String) arguments[0]);
      return old;
    }
  }

  /** invokeAll's processor: as {@link Swap}, with each key's new value from a map argument. */
  static final class SwapEach implements EntryProcessor<String, String, String> {
    @Override
    public String process(MutableEntry<String, String> entry, Object... arguments) {
      String old = entry.exists() ? entry.getValue() : null;
      entry.setValue(((Map<?, ?>) arguments[0]).get(entry.getKey()).toString());
      return old;
    }
  }
}
