package dev.mooncake.jcache.internal.integrity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The memoised owner hash answers exactly what SHA-256 does, for keys that share a memo slot. */
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
  void keysOfTheSameSlotDoNotShareAHash() {
    String a = "mcj/a/b/" + 0;
    String b = null;
    for (int i = 1; b == null; i++) {
      String candidate = "mcj/a/b/" + i;
      if ((candidate.hashCode() & (StoreKeyHash.MEMO_SLOTS - 1))
          == (a.hashCode() & (StoreKeyHash.MEMO_SLOTS - 1))) {
        b = candidate;
      }
    }
    long hashOfA = StoreKeyHash.of(a);
    assertNotEquals(hashOfA, StoreKeyHash.of(b), "b answered a's memoised hash");
    assertEquals(StoreKeyHash.computed(b), StoreKeyHash.of(b));
    assertEquals(hashOfA, StoreKeyHash.of(a));
  }
}
