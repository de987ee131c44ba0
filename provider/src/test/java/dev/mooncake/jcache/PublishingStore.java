package dev.mooncake.jcache;

import dev.mooncake.jcache.backend.BufferPool;
import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.event.remote.TestPublisher;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A store as a master with KV events sees it: every object that appears is announced as {@code
 * stored} on the {@link TestPublisher}, every one that goes as {@code removed} (as mooncake_master
 * does after each commit and removal). Shared by the managers of a test, which stand for JVMs on
 * one cluster; {@link #close} is a no-op, {@link #shutdown} closes the store.
 */
final class PublishingStore implements ObjectStore {
  private final ObjectStore store;
  private volatile TestPublisher publisher;
  private final Set<String> keys = ConcurrentHashMap.newKeySet();
  private volatile boolean dropNext;

  PublishingStore(ObjectStore store, TestPublisher publisher) {
    this.store = store;
    this.publisher = publisher;
  }

  /** A restarted master: a new publisher (on the same port). */
  void publisher(TestPublisher publisher) {
    this.publisher = publisher;
  }

  TestPublisher publisher() {
    return publisher;
  }

  /** The next event is lost, as when the master drops one under back-pressure. */
  void dropNext() {
    dropNext = true;
  }

  private void announceStored(String key) {
    if (dropNext) {
      dropNext = false;
      publisher.drop();
    } else {
      publisher.stored(key);
    }
  }

  private void announceRemoved(String key) {
    if (dropNext) {
      dropNext = false;
      publisher.drop();
    } else {
      publisher.removed(key);
    }
  }

  @Override
  public synchronized int put(String key, ByteBuffer value) {
    boolean existed = store.isExist(key) == 1;
    int rc = store.put(key, value);
    if (rc == 0 && !existed) {
      keys.add(key);
      announceStored(key);
    }
    return rc;
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values) {
    int[] codes = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      codes[i] = put(keys[i], values[i]);
    }
    return codes;
  }

  @Override
  public synchronized int remove(String key, boolean force) {
    int rc = store.remove(key, force);
    if (rc == 0) {
      keys.remove(key);
      announceRemoved(key);
    }
    return rc;
  }

  /** Like mooncake_master (measured): a {@code remove_by_regex} publishes no event at all. */
  @Override
  public synchronized long removeByRegex(String pattern, boolean force) {
    Pattern regex = Pattern.compile(pattern);
    List<String> matching = new ArrayList<>();
    for (String key : keys) {
      if (regex.matcher(key).find()) {
        matching.add(key);
      }
    }
    long count = store.removeByRegex(pattern, force);
    for (String key : matching) {
      if (store.isExist(key) != 1) {
        keys.remove(key);
      }
    }
    return count;
  }

  @Override
  public long getInto(String key, ByteBuffer destination) {
    return store.getInto(key, destination);
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations) {
    return store.batchGetInto(keys, destinations);
  }

  @Override
  public int isExist(String key) {
    return store.isExist(key);
  }

  @Override
  public int[] batchIsExist(String[] keys) {
    return store.batchIsExist(keys);
  }

  @Override
  public long getSize(String key) {
    return store.getSize(key);
  }

  @Override
  public BufferPool buffers() {
    return store.buffers();
  }

  @Override
  public boolean inProcess() {
    return store.inProcess();
  }

  @Override
  public String describe() {
    return "publishing(" + store.describe() + ")";
  }

  @Override
  public void close() {
    // shared by the test's managers; see shutdown()
  }

  void shutdown() {
    store.close();
  }
}
