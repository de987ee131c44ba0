package dev.mooncake.jcache.history;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.cache.Cache;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;

/**
 * One thread's random mix of every per-key JCache operation on a few contended keys, each call
 * recorded in the {@link PeerLog}. Written values are unique ({@link Values}); a conditional
 * replace or remove expects the value this thread last saw for the key, so it sometimes succeeds.
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

  private final Cache<String, String> cache;
  private final PeerLog log;
  private final String segment;
  private final int thread;
  private final String process;
  private final int keys;
  private final int valueBytes;
  private final Random random;
  private final Map<String, String> lastSeen = new HashMap<>();
  private long sequence;
  private long failed;

  Workload(
      Cache<String, String> cache,
      PeerLog log,
      String segment,
      int thread,
      int keys,
      int valueBytes,
      long seed) {
    this.cache = cache;
    this.log = log;
    this.segment = segment;
    this.thread = thread;
    this.process = segment + "/" + thread;
    this.keys = keys;
    this.valueBytes = valueBytes;
    this.random = new Random(seed);
  }

  long failed() {
    return failed;
  }

  /** Runs one random operation and records it. */
  void step() {
    String key = "k" + random.nextInt(keys);
    OpKind kind = MIX.get(random.nextInt(MIX.size()));
    String expected = lastSeen.get(key);
    if ((kind == OpKind.REPLACE_IF_EQUALS || kind == OpKind.REMOVE_IF_EQUALS) && expected == null) {
      kind = OpKind.GET; // nothing seen to compare with yet
    }
    String value =
        kind.isRead() || kind == OpKind.REMOVE || kind == OpKind.GET_AND_REMOVE
            ? null
            : Values.id(key, segment, thread, ++sequence);
    String arg =
        kind == OpKind.REPLACE_IF_EQUALS || kind == OpKind.REMOVE_IF_EQUALS ? expected : value;
    String arg2 = kind == OpKind.REPLACE_IF_EQUALS ? value : null;
    if (kind == OpKind.REMOVE_IF_EQUALS) {
      value = null;
    }
    long n = log.invoke(process, kind, key, arg, arg2);
    String result;
    try {
      result = call(n, kind, key, value, expected);
    } catch (RuntimeException | Error e) {
      log.failed(n, System.nanoTime(), e);
      failed++;
      return;
    }
    long completed = System.nanoTime();
    log.completed(n, completed, result);
    remember(kind, key, value, result);
  }

  private String call(long n, OpKind kind, String key, String value, String expected) {
    String stored = value == null ? null : Values.stored(value, valueBytes);
    return switch (kind) {
      case GET -> read(n, cache.get(key));
      case CONTAINS_KEY -> Boolean.toString(cache.containsKey(key));
      case PUT -> {
        cache.put(key, stored);
        yield "ok";
      }
      case PUT_IF_ABSENT -> Boolean.toString(cache.putIfAbsent(key, stored));
      case REPLACE -> Boolean.toString(cache.replace(key, stored));
      case REPLACE_IF_EQUALS ->
          Boolean.toString(cache.replace(key, Values.stored(expected, valueBytes), stored));
      case REMOVE -> Boolean.toString(cache.remove(key));
      case REMOVE_IF_EQUALS ->
          Boolean.toString(cache.remove(key, Values.stored(expected, valueBytes)));
      case GET_AND_PUT -> read(n, cache.getAndPut(key, stored));
      case GET_AND_REMOVE -> read(n, cache.getAndRemove(key));
      case GET_AND_REPLACE -> read(n, cache.getAndReplace(key, stored));
      case INVOKE -> read(n, cache.invoke(key, new Swap(), stored));
      default -> throw new IllegalArgumentException(kind.toString());
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

  private void remember(OpKind kind, String key, String written, String result) {
    boolean wrote =
        switch (kind) {
          case PUT, GET_AND_PUT, INVOKE -> true;
          case PUT_IF_ABSENT, REPLACE, REPLACE_IF_EQUALS -> result.equals("true");
          case GET_AND_REPLACE -> !result.equals(Operation.ABSENT);
          default -> false;
        };
    if (wrote) {
      lastSeen.put(key, written);
    } else if (!result.equals(Operation.ABSENT) && Values.ownerOf(result) != null) {
      lastSeen.put(key, result);
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
}
