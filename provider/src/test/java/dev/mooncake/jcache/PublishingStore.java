package dev.mooncake.jcache;

import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.event.remote.EventedStore;
import dev.mooncake.jcache.internal.event.remote.KvEvent;
import dev.mooncake.jcache.internal.event.remote.TestPublisher;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A store as a master with KV events sees it: every object that appears is announced as {@code
 * stored} on the {@link TestPublisher}, every one that goes as {@code removed} (as mooncake_master
 * does after each commit and removal), for the calls {@link EventedStore} says publish them. Shared
 * by the managers of a test, which stand for JVMs on one cluster; {@link #close} is a no-op, {@link
 * #shutdown} closes the store.
 */
final class PublishingStore extends EventedStore {
  private volatile TestPublisher publisher;
  private final Set<String> keys = ConcurrentHashMap.newKeySet();
  private volatile boolean dropNext;
  private static final Object EXISTED = new Object();

  PublishingStore(ObjectStore store, TestPublisher publisher) {
    super(store);
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

  /** A put publishes only when it made the object appear (an existing one is left as it is). */
  @Override
  protected Object changing(String key, KvEvent.Kind kind) {
    return kind == KvEvent.Kind.STORED && store.isExist(key) == 1 ? EXISTED : kind;
  }

  @Override
  protected void changed(String key, KvEvent.Kind kind, Object token, boolean succeeded) {
    if (!succeeded || token == EXISTED) {
      return;
    }
    if (kind == KvEvent.Kind.STORED) {
      keys.add(key);
      announceStored(key);
    } else {
      keys.remove(key);
      announceRemoved(key);
    }
  }

  // The existence check, the call and the announcement as one step, as the master orders them.
  @Override
  public synchronized int put(String key, ByteBuffer value, Deadline deadline) {
    return super.put(key, value, deadline);
  }

  @Override
  public synchronized int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline) {
    return super.batchPut(keys, values, deadline);
  }

  @Override
  public synchronized int remove(String key, boolean force, Deadline deadline) {
    return super.remove(key, force, deadline);
  }

  /** Like mooncake_master (measured): a {@code remove_by_regex} publishes no event at all. */
  @Override
  public synchronized long removeByRegex(String pattern, boolean force, Deadline deadline) {
    Pattern regex = Pattern.compile(pattern);
    List<String> matching = new ArrayList<>();
    for (String key : keys) {
      if (regex.matcher(key).find()) {
        matching.add(key);
      }
    }
    long count = store.removeByRegex(pattern, force, deadline);
    for (String key : matching) {
      if (store.isExist(key) != 1) {
        keys.remove(key);
      }
    }
    return count;
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
