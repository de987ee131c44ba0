package dev.mooncake.jcache.internal.entry;

/**
 * The remembered copy of lock keeping (docs/lock-keeping.md, "The remembered copy"): a JVM that
 * keeps a key's cluster lock after writing it keeps the entry it wrote, and its next step on the
 * key uses that copy instead of reading the entry back. No other JVM can write the key while the
 * lock is held without a break, but Mooncake may still evict the object or lose it with a segment,
 * and an evicted entry must not come back through the copy. So the step removes the object first:
 * under the held lock the remove answering 0 proves the object was there, and it is the one this
 * JVM wrote (its last put answered 0, and nothing else wrote since); -704 proves it is gone (the
 * step then sees no entry). The step then runs on what the remove proved and puts its result, or
 * puts the entry back when it decided to keep it. A write then costs remove + put, as the C
 * driver's does.
 */
final class RememberedEntry {
  /**
   * The largest payload remembered. A kept lock holds at most one copy, and a JVM keeps at most 256
   * locks ({@code KeptLocks.MAX_KEPT}): at most 16 MiB of heap. A larger value is read back.
   */
  static final int MAX_PAYLOAD = 64 * 1024;

  private RememberedEntry() {}

  /**
   * A step between its remove and its put: the entry it proved (null: absent) stands in for the
   * store's for a step this thread nests on the key (an entry processor that reads its own key),
   * which would otherwise read the removed key as absent. A nested step that changes the key marks
   * the gap overtaken; the outer step then applies its decision over the store as it stands.
   */
  static final class Gap {
    StoredEntry current;
    boolean overtaken;
  }
}
