package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrowsExactly;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every bad input to the raw entry points throws with a message; none reaches Mooncake. */
class BadArgumentsTest {
  private static final byte[] KEY = MooncakeClient.key("key");
  private static final long[] FORGED = {
    1L, 12345L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0x7fff_0000_0001L
  };

  private static MooncakeClient client;
  private static long store;
  private static ByteBuffer direct;

  @BeforeAll
  static void open() {
    client = FakeStore.client(1 << 20);
    store = client.handle();
    direct = ByteBuffer.allocateDirect(64);
  }

  @AfterAll
  static void close() {
    client.close();
  }

  private static void fails(Class<? extends Throwable> type, String fragment, Executable call) {
    Throwable t = assertThrowsExactly(type, call); // exactly: "closed" must not stand for all
    assertTrue(
        t.getMessage() != null && t.getMessage().contains(fragment),
        () -> "expected '" + fragment + "' in: " + t.getMessage());
  }

  @Test
  void nullForgedClosedAndWrongKindHandlesAreRefused() {
    fails(ClosedHandleException.class, "null store handle", () -> MooncakeClient.isExist(0, KEY));
    for (long forged : FORGED) {
      fails(
          ClosedHandleException.class,
          "closed or not a store",
          () -> MooncakeClient.isExist(forged, KEY));
      fails(ClosedHandleException.class, "store handle", () -> MooncakeClient.destroy(forged));
      fails(ClosedHandleException.class, "region handle", () -> NativeRegion.regionRelease(forged));
      fails(
          ClosedHandleException.class, "library handle", () -> MooncakeClient.create(forged, 0, 0));
      fails(
          ClosedHandleException.class,
          "replicate-config handle",
          () -> ReplicaConfig.freeReplicaConfig(forged));
      fails(
          ClosedHandleException.class,
          "replicate-config handle",
          () -> MooncakeClient.putFrom(store, KEY, direct, 0, 1, forged));
    }
    MooncakeClient closed = FakeStore.client(0);
    long handle = closed.handle();
    closed.close();
    closed.close(); // exactly once
    fails(ClosedHandleException.class, "is closed", closed::healthCheck);
    fails(
        ClosedHandleException.class,
        "closed or not a store",
        () -> MooncakeClient.healthCheck(handle));
    fails(
        ClosedHandleException.class, "closed or not a store", () -> MooncakeClient.destroy(handle));
    fails(
        ClosedHandleException.class,
        "closed or not a store",
        () -> MooncakeClient.getInto(handle, KEY, direct, 0, 8));
    // A handle of another kind is not a store.
    try (ReplicaConfig config = ReplicaConfig.create(client, 1, false, false, null, List.of())) {
      fails(
          ClosedHandleException.class,
          "not a store",
          () -> MooncakeClient.isExist(config.nativeHandle(), KEY));
    }
    fails(ClosedHandleException.class, "not a library", () -> MooncakeClient.create(store, 0, 0));
    fails(ClosedHandleException.class, "null library handle", () -> MooncakeClient.create(0, 0, 0));
  }

  @Test
  void badKeysAreRefused() {
    fails(NullPointerException.class, "key is null", () -> MooncakeClient.isExist(store, null));
    fails(
        IllegalArgumentException.class,
        "key is empty",
        () -> MooncakeClient.getSize(store, new byte[0]));
    fails(
        IllegalArgumentException.class,
        "NUL",
        () -> MooncakeClient.remove(store, new byte[] {'a', 0, 'b'}, true));
    fails(
        IllegalArgumentException.class,
        "NUL",
        () -> MooncakeClient.putFrom(store, new byte[] {0}, direct, 0, 1, 0));
    fails(
        IllegalArgumentException.class,
        "NUL",
        () -> MooncakeClient.getInto(store, new byte[] {'x', 0}, direct, 0, 1));
    fails(
        NullPointerException.class,
        "pattern is null",
        () -> MooncakeClient.removeByRegex(store, null, true));
    fails(
        IllegalArgumentException.class,
        "pattern is empty",
        () -> MooncakeClient.removeByRegex(store, new byte[0], true));
    // A long key is fine (copied to the heap, not the stack).
    byte[] longKey = new byte[1 << 20];
    java.util.Arrays.fill(longKey, (byte) 'k');
    assertEquals(0, MooncakeClient.isExist(store, longKey));
  }

  @Test
  void badBuffersAreRefused() {
    ByteBuffer heap = ByteBuffer.allocate(16);
    fails(
        NullPointerException.class,
        "value is null",
        () -> MooncakeClient.putFrom(store, KEY, null, 0, 1, 0));
    fails(
        IllegalArgumentException.class,
        "not a direct buffer",
        () -> MooncakeClient.putFrom(store, KEY, heap, 0, 1, 0));
    fails(
        IllegalArgumentException.class,
        "negative",
        () -> MooncakeClient.putFrom(store, KEY, direct, -1, 1, 0));
    fails(
        IllegalArgumentException.class,
        "negative",
        () -> MooncakeClient.putFrom(store, KEY, direct, 0, -1, 0));
    fails(
        IllegalArgumentException.class,
        "outside its capacity 64",
        () -> MooncakeClient.putFrom(store, KEY, direct, 0, 65, 0));
    fails(
        IllegalArgumentException.class,
        "outside",
        () -> MooncakeClient.putFrom(store, KEY, direct, 60, 5, 0));
    fails(
        IllegalArgumentException.class,
        "outside",
        () -> MooncakeClient.putFrom(store, KEY, direct, Integer.MAX_VALUE, Integer.MAX_VALUE, 0));
    fails(
        NullPointerException.class,
        "destination is null",
        () -> MooncakeClient.getInto(store, KEY, null, 0, 1));
    fails(
        IllegalArgumentException.class,
        "not a direct buffer",
        () -> MooncakeClient.getInto(store, KEY, heap, 0, 1));
    fails(
        IllegalArgumentException.class,
        "outside",
        () -> MooncakeClient.getInto(store, KEY, direct, 1, 64));
    fails(
        IllegalArgumentException.class,
        "read-only",
        () -> MooncakeClient.getInto(store, KEY, direct.asReadOnlyBuffer(), 0, 8));
    // A read-only source is fine.
    assertEquals(
        0,
        MooncakeClient.putFrom(
            store, MooncakeClient.key("read-only-source"), direct.asReadOnlyBuffer(), 0, 8, 0));
    fails(
        NullPointerException.class,
        "buffer is null",
        () -> MooncakeClient.registerBuffer(store, null, 0, 1));
    fails(
        IllegalArgumentException.class,
        "cannot register 0 bytes",
        () -> MooncakeClient.registerBuffer(store, direct, 0, 0));
    fails(
        IllegalArgumentException.class,
        "not a direct buffer",
        () -> MooncakeClient.unregisterBuffer(store, heap, 0));
    fails(
        IllegalArgumentException.class,
        "outside",
        () -> MooncakeClient.unregisterBuffer(store, direct, 65));
    fails(NullPointerException.class, "buffer is null", () -> NativeRegion.bufferAddress(null));
    assertEquals(0, NativeRegion.bufferAddress(heap));
  }

  @Test
  void badBatchesAreRefused() {
    byte[][] keys = {KEY, MooncakeClient.key("other")};
    ByteBuffer[] buffers = {direct, direct};
    int[] offsets = {0, 8};
    int[] lengths = {8, 8};
    int[] results = new int[2];
    long[] sizes = new long[2];
    fails(
        NullPointerException.class,
        "keys is null",
        () -> MooncakeClient.batchIsExist(store, null, results));
    fails(
        NullPointerException.class,
        "results is null",
        () -> MooncakeClient.batchIsExist(store, keys, null));
    fails(
        IllegalArgumentException.class,
        "count 0",
        () -> MooncakeClient.batchIsExist(store, new byte[0][], new int[0]));
    fails(
        IllegalArgumentException.class,
        "count 0",
        () ->
            MooncakeClient.batchPutFrom(
                store, new byte[0][], new ByteBuffer[0], new int[0], new int[0], 0, new int[0]));
    fails(
        IllegalArgumentException.class,
        "mismatch: 2 keys but results has 3",
        () -> MooncakeClient.batchIsExist(store, keys, new int[3]));
    fails(
        IllegalArgumentException.class,
        "mismatch: 2 keys but results has 1",
        () -> MooncakeClient.batchGetInto(store, keys, buffers, offsets, lengths, new long[1]));
    fails(
        IllegalArgumentException.class,
        "2 keys, 1 buffers",
        () ->
            MooncakeClient.batchPutFrom(
                store, keys, new ByteBuffer[] {direct}, offsets, lengths, 0, results));
    fails(
        IllegalArgumentException.class,
        "3 offsets",
        () -> MooncakeClient.batchGetInto(store, keys, buffers, new int[3], lengths, sizes));
    fails(
        IllegalArgumentException.class,
        "1 lengths",
        () -> MooncakeClient.batchGetInto(store, keys, buffers, offsets, new int[1], sizes));
    fails(
        NullPointerException.class,
        "keys[1] is null",
        () -> MooncakeClient.batchIsExist(store, new byte[][] {KEY, null}, results));
    fails(
        IllegalArgumentException.class,
        "keys[0] is empty",
        () -> MooncakeClient.batchIsExist(store, new byte[][] {{}, KEY}, results));
    fails(
        IllegalArgumentException.class,
        "keys[1] contains a NUL",
        () -> MooncakeClient.batchIsExist(store, new byte[][] {KEY, {'a', 0}}, results));
    fails(
        NullPointerException.class,
        "buffers is null",
        () -> MooncakeClient.batchPutFrom(store, keys, null, offsets, lengths, 0, results));
    fails(
        NullPointerException.class,
        "offsets is null",
        () -> MooncakeClient.batchPutFrom(store, keys, buffers, null, lengths, 0, results));
    fails(
        NullPointerException.class,
        "lengths is null",
        () -> MooncakeClient.batchGetInto(store, keys, buffers, offsets, null, sizes));
    fails(
        NullPointerException.class,
        "buffers[1] is null",
        () ->
            MooncakeClient.batchPutFrom(
                store, keys, new ByteBuffer[] {direct, null}, offsets, lengths, 0, results));
    fails(
        IllegalArgumentException.class,
        "buffers[0] is not a direct buffer",
        () ->
            MooncakeClient.batchPutFrom(
                store,
                keys,
                new ByteBuffer[] {ByteBuffer.allocate(8), direct},
                offsets,
                lengths,
                0,
                results));
    fails(
        IllegalArgumentException.class,
        "buffers[1]: range [60, 68)",
        () -> MooncakeClient.batchGetInto(store, keys, buffers, new int[] {0, 60}, lengths, sizes));
    fails(
        IllegalArgumentException.class,
        "buffers[0]: negative",
        () -> MooncakeClient.batchGetInto(store, keys, buffers, new int[] {-4, 0}, lengths, sizes));
    fails(
        IllegalArgumentException.class,
        "buffers[1] is read-only",
        () ->
            MooncakeClient.batchGetInto(
                store,
                keys,
                new ByteBuffer[] {direct, direct.asReadOnlyBuffer()},
                offsets,
                lengths,
                sizes));
  }

  @Test
  void badSetupAndConfigArgumentsAreRefused() {
    try (MooncakeClient fresh = MooncakeClient.create(FakeStore.open())) {
      long h = fresh.handle();
      fails(
          NullPointerException.class,
          "local_hostname is null",
          () -> MooncakeClient.setup(h, null, "P2PHANDSHAKE", 1, 1, "tcp", "", "a:1"));
      fails(
          NullPointerException.class,
          "metadata_server is null",
          () -> MooncakeClient.setup(h, "h", null, 1, 1, "tcp", "", "a:1"));
      fails(
          NullPointerException.class,
          "protocol is null",
          () -> MooncakeClient.setup(h, "h", "P2PHANDSHAKE", 1, 1, null, "", "a:1"));
      fails(
          NullPointerException.class,
          "device_name is null",
          () -> MooncakeClient.setup(h, "h", "P2PHANDSHAKE", 1, 1, "tcp", null, "a:1"));
      fails(
          NullPointerException.class,
          "master_server_address is null",
          () -> MooncakeClient.setup(h, "h", "P2PHANDSHAKE", 1, 1, "tcp", "", null));
      fails(
          IllegalArgumentException.class,
          "negative size",
          () -> MooncakeClient.setup(h, "h", "P2PHANDSHAKE", -1, 1, "tcp", "", "a:1"));
      fails(
          IllegalArgumentException.class,
          "negative size",
          () -> MooncakeClient.setup(h, "h", "P2PHANDSHAKE", 1, -1, "tcp", "", "a:1"));
      // The fake aborts the process on an unknown scheme, as Mooncake does: this must never get
      // there.
      fails(
          IllegalArgumentException.class,
          "unknown scheme",
          () -> MooncakeClient.setup(h, "h", "zookeeper://x:1", 1, 1, "tcp", "", "a:1"));
      fails(
          IllegalArgumentException.class,
          "metadata_server '' is empty",
          () -> MooncakeClient.setup(h, "h", "", 1, 1, "tcp", "", "a:1"));
      fails(
          IllegalArgumentException.class,
          "local_hostname is empty",
          () -> MooncakeClient.setup(h, "", "P2PHANDSHAKE", 1, 1, "tcp", "", "a:1"));
      fails(
          IllegalArgumentException.class,
          "protocol is empty",
          () -> MooncakeClient.setup(h, "h", "P2PHANDSHAKE", 1, 1, "", "", "a:1"));
      fails(
          IllegalArgumentException.class,
          "master_server_address is empty",
          () -> MooncakeClient.setup(h, "h", "etcd://e:2379", 1, 1, "tcp", "", ""));
      fails(NullPointerException.class, "out is null", () -> MooncakeClient.getHostname(h, null));
      fails(
          IllegalArgumentException.class,
          "length 0",
          () -> MooncakeClient.getHostname(h, new byte[0]));
    }
    fails(
        IllegalArgumentException.class,
        "negative replica_num",
        () -> ReplicaConfig.create(client, -1, false, false, null, List.of()));
    fails(
        NullPointerException.class,
        "preferred_segments[1] is null",
        () ->
            ReplicaConfig.newReplicaConfig(store, 1, false, false, -1, new String[] {"a:1", null}));
    fails(
        IllegalArgumentException.class,
        "preferred_segments[0] is empty",
        () -> ReplicaConfig.newReplicaConfig(store, 1, false, false, -1, new String[] {""}));
    ReplicaConfig config =
        ReplicaConfig.create(client, 1, false, false, null, List.of("127.0.0.1:1"));
    long handle = config.nativeHandle();
    config.close();
    config.close(); // exactly once
    fails(ClosedHandleException.class, "is closed", config::nativeHandle);
    fails(
        ClosedHandleException.class,
        "closed or not a replicate-config",
        () -> MooncakeClient.putFrom(store, KEY, direct, 0, 1, handle));
    fails(
        ClosedHandleException.class,
        "closed or not a replicate-config",
        () -> ReplicaConfig.freeReplicaConfig(handle));
    fails(
        ClosedHandleException.class,
        "null store handle",
        () -> ReplicaConfig.newReplicaConfig(0, 1, false, false, -1, null));
    fails(
        NullPointerException.class,
        "library path is null",
        () -> MooncakeLibrary.openLibrary(null));
    fails(
        IllegalArgumentException.class,
        "library path is empty",
        () -> MooncakeLibrary.openLibrary(""));
  }

  @Test
  void badRegionArgumentsAreRefused() {
    fails(IllegalArgumentException.class, "must be positive", () -> NativeRegion.regionAllocate(0));
    fails(
        IllegalArgumentException.class, "must be positive", () -> NativeRegion.regionAllocate(-1));
    fails(
        NativeBridgeException.class,
        "cannot map a region of " + Long.MAX_VALUE,
        () -> NativeRegion.regionAllocate(Long.MAX_VALUE));
    NativeRegion region = NativeRegion.allocate(4096);
    long h = region.nativeHandle();
    fails(
        IllegalArgumentException.class, "outside the region of 4096", () -> region.view(4000, 100));
    fails(IllegalArgumentException.class, "outside", () -> region.view(-1, 10));
    fails(IllegalArgumentException.class, "outside", () -> region.view(0, -10));
    fails(
        IllegalArgumentException.class,
        "outside",
        () -> NativeRegion.regionView(h, Long.MAX_VALUE, 10));
    fails(IllegalStateException.class, "released before", () -> NativeRegion.regionFree(h));
    try (MooncakeClient holder = FakeStore.client(0)) {
      assertEquals(0, holder.registerRegion(region));
      fails(IllegalStateException.class, "still registered with 1 store", region::close);
    } // closing the client unregisters the region
    ByteBuffer view = region.view(0, 16); // keeps the mapping (and the handle) alive
    region.close();
    region.close(); // exactly once
    fails(ClosedHandleException.class, "region is closed", () -> region.view(0, 10));
    fails(
        IllegalStateException.class, "region is released", () -> NativeRegion.regionView(h, 0, 10));
    fails(
        IllegalStateException.class,
        "region is released",
        () -> MooncakeClient.registerRegion(store, h));
    fails(IllegalStateException.class, "already released", () -> NativeRegion.regionRelease(h));
    fails(
        ClosedHandleException.class,
        "not a region",
        () -> MooncakeClient.registerRegion(store, store));
    view.put(0, (byte) 1); // still mapped: no crash
    assertEquals(1, view.get(0));
  }

  @Test
  void aFullHandleTableIsNotMistakenForAClosedHandle() {
    List<ReplicaConfig> held = new ArrayList<>();
    try {
      NativeBridgeException e =
          assertThrowsExactly(
              NativeBridgeException.class,
              () -> {
                while (true) {
                  held.add(ReplicaConfig.create(client, 1, false, false, null, List.of()));
                }
              });
      assertTrue(e.getMessage().contains("too many open native objects"), e::getMessage);
      assertTrue(held.size() > 100, "the table held " + held.size());
    } finally {
      held.forEach(ReplicaConfig::close);
    }
    try (ReplicaConfig again = ReplicaConfig.create(client, 1, false, false, null, List.of())) {
      assertTrue(again.isOpen(), "slots come back");
    }
  }
}
