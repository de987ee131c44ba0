package dev.mooncake.jcache.lock;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Per-key locks for one JVM. A lock exists only while some thread holds or waits for it (counted
 * references), so memory stays proportional to the keys in use, not the keys ever seen.
 */
public final class LocalKeyLocks implements KeyLocks {
  private final ConcurrentHashMap<String, Entry> locks = new ConcurrentHashMap<>();

  @Override
  public Held lock(String key) {
    Entry entry = locks.compute(key, (k, existing) -> {
      Entry e = existing == null ? new Entry() : existing;
      e.users++;
      return e;
    });
    entry.lock.lock();
    return () -> release(key, entry);
  }

  @Override
  public boolean isBusy(String key) {
    return locks.containsKey(key);
  }

  /** How many keys have a lock right now (for tests). */
  int size() {
    return locks.size();
  }

  private void release(String key, Entry entry) {
    entry.lock.unlock();
    locks.computeIfPresent(key, (k, e) -> --e.users == 0 ? null : e);
  }

  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock();
    int users; // guarded by the map's bin lock (compute)
  }
}
