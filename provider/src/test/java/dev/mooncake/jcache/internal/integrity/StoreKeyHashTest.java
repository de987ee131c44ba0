package dev.mooncake.jcache.internal.integrity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The memoised owner hash answers exactly what SHA-256 does: for keys that share a memo slot, and
 * for threads that share the memo.
 */
class StoreKeyHashTest {
  @Test
  void theMemoAnswersTheComputedHashForEveryKeyAndSlot() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 10 * StoreKeyHash.MEMO_SLOTS; i++) {
      keys.add("mcj/dGVuYW50/Y2FjaGU/a2V5LQ" + i); // many keys per slot: evictions
    }
    for (int round = 0; round < 3; round++) {
      for (String key : keys) {
        // a fresh String each time, as KeyNamespace builds one per call
        assertEquals(StoreKeyHash.computed(key), StoreKeyHash.of(new String(key)), key);
      }
    }
  }

  @Test
  void aWorkingSetOf64KeysFitsTheMemo() {
    // the benchmark's keys: differing only in their last characters, whose String.hashCode low
    // bits collide (in 64 slots taken from the low bits, 36 of the 64 had no slot of their own)
    Set<Integer> slots = new HashSet<>();
    for (int i = 0; i < 64; i++) {
      slots.add(StoreKeyHash.slot(("mcj/aW50ZWdyaXR5/YmVuY2g/key-" + i).hashCode()));
    }
    assertTrue(slots.size() >= 62, slots.size() + " slots for 64 keys");
  }

  @Test
  void threadsSharingTheMemoEachGetTheirKeysHash() throws Exception {
    // two keys of one slot, replaced in it by every miss: a memo that published a key apart from
    // its hash would hand one key's hash to a reader of the other in the gap
    String a = "mcj/dGVuYW50/Y2FjaGU/0";
    String b = null;
    for (int i = 1; b == null; i++) {
      String candidate = "mcj/dGVuYW50/Y2FjaGU/" + i;
      if (StoreKeyHash.slot(candidate.hashCode()) == StoreKeyHash.slot(a.hashCode())) {
        b = candidate;
      }
    }
    String[] keys = {a, b};
    long[] hashes = {StoreKeyHash.computed(a), StoreKeyHash.computed(b)};
    AtomicInteger wrong = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 2; t++) { // as many as this project's machines have cores
      int offset = t;
      threads.add(
          new Thread(
              () -> {
                for (int i = 0; i < 100_000; i++) {
                  int k = (i + offset) & 1;
                  if (StoreKeyHash.of(new String(keys[k])) != hashes[k]) {
                    wrong.incrementAndGet();
                  }
                }
              }));
    }
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      thread.join();
    }
    assertEquals(0, wrong.get(), "a thread got the other key's hash from the shared memo");
  }

  @Test
  void keysOfTheSameSlotDoNotShareAHash() {
    String a = "mcj/a/b/" + 0;
    String b = null;
    for (int i = 1; b == null; i++) {
      String candidate = "mcj/a/b/" + i;
      if (StoreKeyHash.slot(candidate.hashCode()) == StoreKeyHash.slot(a.hashCode())) {
        b = candidate;
      }
    }
    long hashOfA = StoreKeyHash.of(a);
    assertNotEquals(hashOfA, StoreKeyHash.of(b), "b answered a's memoised hash");
    assertEquals(StoreKeyHash.computed(b), StoreKeyHash.of(b));
    assertEquals(hashOfA, StoreKeyHash.of(a));
  }
}
