package dev.mooncake.jcache.internal.lock.cluster;

import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A Mooncake cluster as the locks see it: one object table, create-only puts, objects living in the
 * segment of the client that put them (dropping a segment drops them), and scripted answers (-703
 * while a put is "in flight", RPC failures) queued per client and call. A paused segment models a
 * stopped process as a real Mooncake sees it: the master still answers for its objects (sizes), but
 * a read of one blocks until the segment is resumed, even after it was dropped.
 */
final class ScriptedCluster {
  private record StoredObject(byte[] bytes, String segment) {}

  private final Map<String, StoredObject> objects = new HashMap<>();
  private final Set<String> paused = new HashSet<>();

  synchronized void pause(String segment) {
    paused.add(segment);
  }

  synchronized void resume(String segment) {
    paused.remove(segment);
    notifyAll();
  }

  synchronized void replace(String key, byte[] bytes, String segment) {
    objects.put(key, new StoredObject(bytes, segment));
  }

  /** Waits (holding no lock) while the object at {@code key} lives in a paused segment. */
  private void awaitRunning(String key) {
    StoredObject o = objects.get(key);
    // The segment as the read found it: dropping it meanwhile does not end the wait.
    while (o != null && paused.contains(o.segment)) {
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  synchronized void drop(String segment) {
    objects.values().removeIf(o -> o.segment.equals(segment));
  }

  synchronized boolean has(String key) {
    return objects.containsKey(key);
  }

  synchronized void putForeign(String key, byte[] bytes, String segment) {
    objects.put(key, new StoredObject(bytes, segment));
  }

  /** The segment the object at {@code key} lives in; null when absent. */
  synchronized String segmentOf(String key) {
    StoredObject o = objects.get(key);
    return o == null ? null : o.segment;
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

    final Deque<Long> sizeAnswers = new ArrayDeque<>();

    /** Runs before each read, on the thread that reads (not the lock caller's). */
    volatile Consumer<String> beforeRead = key -> {};

    /** Runs before each size, on the lock caller's thread. */
    volatile Consumer<String> beforeSize = key -> {};

    int puts;
    int reads;
    int removes;
    int batchReads;
    int batchPuts;
    int batchReadAlls;
    int sizes;

    Client(String segment) {
      this.segment = segment;
    }

    @Override
    public int createPinned(String key, ByteBuffer value, Deadline deadline) {
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
    public long read(String key, ByteBuffer destination, Deadline deadline) {
      beforeRead.accept(key);
      synchronized (ScriptedCluster.this) {
        reads++;
        awaitRunning(key);
        Long scripted = readAnswers.poll();
        return scripted != null ? scripted : copy(key, destination);
      }
    }

    /** One batch call: the lock (scripted answers apply to it) and the key, at one instant. */
    @Override
    public long[] readWith(
        String lockKey,
        ByteBuffer lockDestination,
        String key,
        ByteBuffer destination,
        Deadline deadline) {
      beforeRead.accept(lockKey);
      synchronized (ScriptedCluster.this) {
        batchReads++;
        awaitRunning(lockKey);
        Long scripted = readAnswers.poll();
        long lock = scripted != null ? scripted : copy(lockKey, lockDestination);
        return new long[] {lock, copy(key, destination)};
      }
    }

    /** One batch put: every key at one instant, scripted answers in the keys' order. */
    @Override
    public int[] createAllPinned(String[] keys, ByteBuffer[] values, Deadline deadline) {
      synchronized (ScriptedCluster.this) {
        batchPuts++;
        int[] answers = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
          Integer scripted = putAnswers.poll();
          if (scripted != null) {
            answers[i] = scripted;
            continue;
          }
          byte[] bytes = new byte[values[i].remaining()];
          values[i].duplicate().get(bytes);
          objects.putIfAbsent(keys[i], new StoredObject(bytes, segment));
        }
        return answers;
      }
    }

    /** One batch read: every key at one instant, scripted answers in the keys' order. */
    @Override
    public long[] readAll(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
      beforeRead.accept(keys[0]);
      synchronized (ScriptedCluster.this) {
        batchReadAlls++;
        long[] answers = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
          awaitRunning(keys[i]);
          Long scripted = readAnswers.poll();
          answers[i] = scripted != null ? scripted : copy(keys[i], destinations[i]);
        }
        return answers;
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
    public long size(String key, Deadline deadline) {
      beforeSize.accept(key);
      synchronized (ScriptedCluster.this) {
        sizes++;
        Long scripted = sizeAnswers.poll();
        if (scripted != null) {
          return scripted;
        }
        StoredObject o = objects.get(key);
        return o == null ? StoreStatus.OBJECT_NOT_FOUND.code() : o.bytes.length;
      }
    }

    @Override
    public int remove(String key, Deadline deadline) {
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
