package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RegionTest {

  private static boolean awaitFreed(NativeRegion region) throws InterruptedException {
    for (int i = 0; i < 100 && !region.isFreed(); i++) {
      System.gc();
      Thread.sleep(20);
    }
    return region.isFreed();
  }

  @Test
  void viewsAreDirectBuffersInsideTheRegion() {
    try (NativeRegion region = NativeRegion.allocate(1 << 20)) {
      ByteBuffer a = region.view(0, 4096);
      ByteBuffer b = region.view(4096, 100);
      assertTrue(a.isDirect());
      assertEquals(4096, a.capacity());
      assertEquals(region.address(), NativeRegion.bufferAddress(a));
      assertEquals(region.address() + 4096, NativeRegion.bufferAddress(b));
      assertTrue(region.contains(a));
      assertTrue(region.contains(b.slice(10, 20)));
      assertFalse(region.contains(ByteBuffer.allocateDirect(16)));
      assertFalse(region.contains(ByteBuffer.allocate(16)));
      assertTrue(region.contains(region.address() + (1 << 20) - 1, 1));
      assertFalse(region.contains(region.address() + (1 << 20) - 1, 2));
      assertFalse(region.contains(region.address() - 1, 1));
      a.putLong(0, 42L);
      assertEquals(42L, region.view(0, 8).getLong(0));
      assertEquals(3, region.liveViews());
    }
  }

  @Test
  void aMultiGigabyteRegionNeedsNoJvmFlag() {
    // Outside the heap and outside MaxDirectMemorySize: nothing is committed until touched.
    try (NativeRegion region = NativeRegion.allocate(6L << 30)) {
      ByteBuffer last = region.view((6L << 30) - (1 << 30), 1 << 30);
      last.put(last.capacity() - 1, (byte) 7);
      assertEquals(7, last.get(last.capacity() - 1));
    }
  }

  @Test
  void theMappingOutlivesCloseUntilNoViewIsReachable() throws InterruptedException {
    NativeRegion region = NativeRegion.allocate(1 << 20);
    ByteBuffer view = region.view(0, 1024);
    ByteBuffer slice = view.slice(100, 10); // keeps `view` reachable
    view = null;
    slice.put(0, (byte) 9);
    region.close();
    assertFalse(region.isOpen());
    // Released: pages given back (reads zero), still mapped: no crash.
    assertEquals(0, slice.get(0));
    slice.put(1, (byte) 3);
    assertFalse(region.isFreed());
    assertEquals(1, region.liveViews());
    slice = null;
    assertTrue(awaitFreed(region), "unmapped once the last view was collected");
    assertEquals(0, region.liveViews());
  }

  @Test
  void manyViewsAreTracked() throws InterruptedException {
    NativeRegion region = NativeRegion.allocate(1 << 20);
    List<ByteBuffer> views = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      views.add(region.view(i * 64L, 64));
    }
    assertEquals(300, region.liveViews());
    region.close();
    assertFalse(region.isFreed());
    views.clear();
    assertTrue(awaitFreed(region));
  }

  @Test
  void registrationsAreUndoneWhenTheClientCloses() {
    long before = FakeStore.stat("registered");
    NativeRegion region = NativeRegion.allocate(1 << 20);
    MooncakeClient client = FakeStore.client(0);
    assertEquals(0, client.registerRegion(region));
    assertEquals(-600, client.registerRegion(region), "Mooncake refuses a second registration");
    assertEquals(before + 1, FakeStore.stat("registered"));
    client.close(); // unregisters, then destroys
    assertEquals(before, FakeStore.stat("registered"));
    region.close(); // no longer registered anywhere
  }
}
