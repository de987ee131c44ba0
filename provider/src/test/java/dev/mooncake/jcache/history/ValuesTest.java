package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ValuesTest {

  @Test
  void anIdNamesItsOwnerSegmentAndIsStoredAtOneSize() {
    String id = Values.id("k3", "p0b", 1, 417);
    assertEquals("k3/p0b/1/0000417", id);
    assertEquals("k3", Values.ownerOf(id));
    assertEquals("p0b", Values.segmentOf(id));
    String stored = Values.stored(id, 256);
    assertEquals(256, stored.length());
    assertEquals(256, Values.stored(Values.id("k3", "p1", 0, 5), 256).length());
    assertEquals(new Values.Read(id, true), Values.read(stored));
  }

  @Test
  void aTenantsOwnerIsTenantCacheAndKey() {
    String id = Values.id("alpha/c1/k4", "a0", 0, 9);
    assertEquals("alpha/c1/k4", Values.ownerOf(id));
    assertEquals("a0", Values.segmentOf(id));
  }

  @Test
  void aValueTornBetweenTwoWritesOrNotOursIsNotIntact() {
    String a = Values.stored(Values.id("k1", "p0", 0, 1), 128);
    String b = Values.stored(Values.id("k2", "p1", 1, 2), 128);
    Values.Read torn = Values.read(a.substring(0, 64) + b.substring(64));
    assertEquals(Values.id("k1", "p0", 0, 1), torn.id());
    assertFalse(torn.intact());
    Values.Read foreign = Values.read("something else");
    assertFalse(foreign.intact());
    assertNull(Values.ownerOf(foreign.id()));
    assertTrue(Values.read(b).intact());
  }
}
