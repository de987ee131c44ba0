package dev.mooncake.jcache.lock.cluster;

import dev.mooncake.jcache.backend.StoreStatus;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A Mooncake cluster as the locks see it: one object table, create-only puts, objects living in the
 * segment of the client that put them (dropping a segment drops them), and scripted answers (-703
 * while a put is "in flight", RPC failures) queued per client and call.
 */
final class ScriptedCluster {
  private record StoredObject(byte[] bytes, String segment) {}

  private final Map<String, StoredObject> objects = new HashMap<>();

  synchronized void drop(String segment) {
    objects.values().removeIf(o -> o.segment.equals(segment));
  }

  synchronized boolean has(String key) {
    return objects.containsKey(key);
  }

  synchronized void putForeign(String key, byte[] bytes, String segment) {
    objects.put(key, new StoredObject(bytes, segment));
  }

  synchronized int size() {
    return objects.size();
  }

  /** One client: its segment, and answers to give instead of the real ones, in order. */
  final class Client implements LockStore {
    final String segment;
    final Deque<Integer> putAnswers = new ArrayDeque<>();
    final Deque<Long> readAnswers = new ArrayDeque<>();
    final Deque<Integer> removeAnswers = new ArrayDeque<>();

    /** Runs before each read (to let another client act between a put and its read-back). */
    volatile Consumer<String> beforeRead = key -> {};

    int puts;
    int reads;
    int removes;
    int batchReads;

    Client(String segment) {
      this.segment = segment;
    }

    @Override
    public int createPinned(String key, ByteBuffer value) {
      synchronized (ScriptedCluster.this) {
        puts++;
        Integer scripted = putAnswers.poll();
        if (scripted != null) {
          return scripted;
        }
        byte[] bytes = new byte[value.remaining()];
        value.duplicate().get(bytes);
        objects.putIfAbsent(key, new StoredObject(bytes, segment));
        return 0;
      }
    }

    @Override
    public long read(String key, ByteBuffer destination) {
      beforeRead.accept(key);
      synchronized (ScriptedCluster.this) {
        reads++;
        Long scripted = readAnswers.poll();
        return scripted != null ? scripted : copy(key, destination);
      }
    }

    /** One batch call: the lock (scripted answers apply to it) and the key, at one instant. */
    @Override
    public long[] readWith(
        String lockKey, ByteBuffer lockDestination, String key, ByteBuffer destination) {
      beforeRead.accept(lockKey);
      synchronized (ScriptedCluster.this) {
        batchReads++;
        Long scripted = readAnswers.poll();
        long lock = scripted != null ? scripted : copy(lockKey, lockDestination);
        return new long[] {lock, copy(key, destination)};
      }
    }

    private long copy(String key, ByteBuffer destination) {
      StoredObject o = objects.get(key);
      if (o == null) {
        return StoreStatus.OBJECT_NOT_FOUND.code();
      }
      if (o.bytes.length > destination.remaining()) {
        return StoreStatus.INVALID_PARAMS.code();
      }
      destination.put(destination.position(), o.bytes);
      return o.bytes.length;
    }

    @Override
    public int remove(String key) {
      synchronized (ScriptedCluster.this) {
        removes++;
        Integer scripted = removeAnswers.poll();
        if (scripted != null) {
          return scripted;
        }
        return objects.remove(key) == null ? StoreStatus.OBJECT_NOT_FOUND.code() : 0;
      }
    }

    @Override
    public String describe() {
      return "scripted(" + segment + ")";
    }
  }
}
