package dev.mooncake.jcache.internal.expiry;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The expiry times of the entries this cache wrote with a finite lifetime, soonest first, so that
 * expired entries are removed (and their memory reclaimed) even when no one reads them again.
 * Entries may be queued more than once or have changed since: the sweeper re-reads each entry's
 * header under the key's lock before acting, so stale deadlines cost a read, never a wrong delete.
 */
public final class ExpiryQueue {
  private record Deadline(long at, String storeKey) implements Comparable<Deadline> {
    @Override
    public int compareTo(Deadline other) {
      int byTime = Long.compare(at, other.at);
      return byTime != 0 ? byTime : storeKey.compareTo(other.storeKey);
    }
  }

  private final ConcurrentSkipListSet<Deadline> deadlines = new ConcurrentSkipListSet<>();

  /** Remembers that {@code storeKey} expires at {@code expireAt} (ignored for eternal entries). */
  public void add(String storeKey, long expireAt) {
    if (expireAt != ExpiryTimes.ETERNAL) {
      deadlines.add(new Deadline(expireAt, storeKey));
    }
  }

  /** Takes the keys whose deadline has passed, at most {@code max} of them. */
  public List<String> pollDue(long nowMillis, int max) {
    List<String> due = new ArrayList<>();
    while (due.size() < max) {
      Deadline first = deadlines.isEmpty() ? null : deadlines.first();
      if (first == null || first.at() > nowMillis) {
        break;
      }
      if (deadlines.remove(first)) {
        due.add(first.storeKey());
      }
    }
    return due;
  }

  public void clear() {
    deadlines.clear();
  }
}
