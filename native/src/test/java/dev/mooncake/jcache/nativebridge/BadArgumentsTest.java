package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every bad input to the raw entry points throws with a message; none reaches Mooncake. */
class BadArgumentsTest {
  private static final byte[] KEY = MooncakeClient.key("key");
  private static final long[] FORGED = {1L, 12345L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0x7fff_0000_0001L};

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
    Throwable t = assertThrows(type, call);
    assertTrue(
        t.getMessage() != null && t.getMessage().contains(fragment),
        () -> "expected '" + fragment + "' in: " + t.getMessage());
  }

  @Test
  void nullForgedClosedAndWrongKindHandlesAreRefused() {
    fails(IllegalStateException.class, "null store handle", () -> MooncakeNative.isExist(0, KEY));
    for (long forged : FORGED) {
      fails(IllegalStateException.class, "closed or not a store", () -> MooncakeNative.isExist(forged, KEY));
      fails(IllegalStateException.class, "store handle", () -> MooncakeNative.destroy(forged));
      fails(IllegalStateException.class, "region handle", () -> MooncakeNative.regionRelease(forged));
      fails(IllegalStateException.class, "library handle", () -> MooncakeNative.create(forged, 0));
      fails(IllegalStateException.class, "replicate-config handle", () -> MooncakeNative.freeReplicaConfig(forged));
      fails(
          IllegalStateException.class,
          "replicate-config handle",
          () -> MooncakeNative.putFrom(store, KEY, direct, 0, 1, forged));
    }
    MooncakeClient closed = FakeStore.client(0);
    long handle = closed.handle();
    closed.close();
    closed.close(); // exactly once
    fails(IllegalStateException.class, "is closed", closed::healthCheck);
    fails(IllegalStateException.class, "closed or not a store", () -> MooncakeNative.healthCheck(handle));
    fails(IllegalStateException.class, "closed or not a store", () -> MooncakeNative.destroy(handle));
    fails(IllegalStateException.class, "closed or not a store", () -> MooncakeNative.getInto(handle, KEY, direct, 0, 8));
    // A handle of another kind is not a store.
    try (ReplicaConfig config = ReplicaConfig.create(1, false, false, List.of())) {
      fails(IllegalStateException.class, "not a store", () -> MooncakeNative.isExist(config.nativeHandle(), KEY));
    }
    fails(IllegalStateException.class, "not a library", () -> MooncakeNative.create(store, 0));
    fails(IllegalStateException.class, "null library handle", () -> MooncakeNative.create(0, 0));
  }

  @Test
  void badKeysAreRefused() {
    fails(NullPointerException.class, "key is null", () -> MooncakeNative.isExist(store, null));
    fails(IllegalArgumentException.class, "key is empty", () -> MooncakeNative.getSize(store, new byte[0]));
    fails(IllegalArgumentException.class, "NUL", () -> MooncakeNative.remove(store, new byte[] {'a', 0, 'b'}, true));
    fails(IllegalArgumentException.class, "NUL", () -> MooncakeNative.putFrom(store, new byte[] {0}, direct, 0, 1, 0));
    fails(IllegalArgumentException.class, "NUL", () -> MooncakeNative.getInto(store, new byte[] {'x', 0}, direct, 0, 1));
    fails(NullPointerException.class, "pattern is null", () -> MooncakeNative.removeByRegex(store, null, true));
    fails(IllegalArgumentException.class, "pattern is empty", () -> MooncakeNative.removeByRegex(store, new byte[0], true));
    // A long key is fine (copied to the heap, not the stack).
    byte[] longKey = new byte[1 << 20];
    java.util.Arrays.fill(longKey, (byte) 'k');
    assertEquals(0, MooncakeNative.isExist(store, longKey));
  }

  @Test
  void badBuffersAreRefused() {
    ByteBuffer heap = ByteBuffer.allocate(16);
    fails(NullPointerException.class, "value is null", () -> MooncakeNative.putFrom(store, KEY, null, 0, 1, 0));
    fails(IllegalArgumentException.class, "not a direct buffer", () -> MooncakeNative.putFrom(store, KEY, heap, 0, 1, 0));
    fails(IllegalArgumentException.class, "not a direct buffer", () -> MooncakeNative.put(store, KEY, heap, 0, 1, 0));
    fails(IllegalArgumentException.class, "negative", () -> MooncakeNative.putFrom(store, KEY, direct, -1, 1, 0));
    fails(IllegalArgumentException.class, "negative", () -> MooncakeNative.putFrom(store, KEY, direct, 0, -1, 0));
    fails(IllegalArgumentException.class, "outside its capacity 64", () -> MooncakeNative.putFrom(store, KEY, direct, 0, 65, 0));
    fails(IllegalArgumentException.class, "outside", () -> MooncakeNative.putFrom(store, KEY, direct, 60, 5, 0));
    fails(IllegalArgumentException.class, "outside", () -> MooncakeNative.putFrom(store, KEY, direct, Integer.MAX_VALUE, Integer.MAX_VALUE, 0));
    fails(NullPointerException.class, "destination is null", () -> MooncakeNative.getInto(store, KEY, null, 0, 1));
    fails(IllegalArgumentException.class, "not a direct buffer", () -> MooncakeNative.getInto(store, KEY, heap, 0, 1));
    fails(IllegalArgumentException.class, "outside", () -> MooncakeNative.getInto(store, KEY, direct, 1, 64));
    fails(IllegalArgumentException.class, "read-only", () -> MooncakeNative.getInto(store, KEY, direct.asReadOnlyBuffer(), 0, 8));
    // A read-only source is fine.
    assertEquals(0, MooncakeNative.putFrom(store, MooncakeClient.key("read-only-source"), direct.asReadOnlyBuffer(), 0, 8, 0));
    fails(NullPointerException.class, "buffer is null", () -> MooncakeNative.registerBuffer(store, null, 0, 1));
    fails(IllegalArgumentException.class, "cannot register 0 bytes", () -> MooncakeNative.registerBuffer(store, direct, 0, 0));
    fails(IllegalArgumentException.class, "not a direct buffer", () -> MooncakeNative.unregisterBuffer(store, heap, 0));
    fails(IllegalArgumentException.class, "outside", () -> MooncakeNative.unregisterBuffer(store, direct, 65));
    fails(NullPointerException.class, "buffer is null", () -> MooncakeNative.bufferAddress(null));
    assertEquals(0, MooncakeNative.bufferAddress(heap));
  }

  @Test
  void badBatchesAreRefused() {
    byte[][] keys = {KEY, MooncakeClient.key("other")};
    ByteBuffer[] buffers = {direct, direct};
    int[] offsets = {0, 8};
    int[] lengths = {8, 8};
    int[] results = new int[2];
    long[] sizes = new long[2];
    fails(NullPointerException.class, "keys is null", () -> MooncakeNative.batchIsExist(store, null, results));
    fails(NullPointerException.class, "results is null", () -> MooncakeNative.batchIsExist(store, keys, null));
    fails(IllegalArgumentException.class, "count 0", () -> MooncakeNative.batchIsExist(store, new byte[0][], new int[0]));
    fails(IllegalArgumentException.class, "count 0", () -> MooncakeNative.batchPutFrom(store, new byte[0][], new ByteBuffer[0], new int[0], new int[0], 0, new int[0]));
    fails(IllegalArgumentException.class, "mismatch: 2 keys but results has 3", () -> MooncakeNative.batchIsExist(store, keys, new int[3]));
    fails(IllegalArgumentException.class, "mismatch: 2 keys but results has 1", () -> MooncakeNative.batchGetInto(store, keys, buffers, offsets, lengths, new long[1]));
    fails(IllegalArgumentException.class, "2 keys, 1 buffers", () -> MooncakeNative.batchPutFrom(store, keys, new ByteBuffer[] {direct}, offsets, lengths, 0, results));
    fails(IllegalArgumentException.class, "3 offsets", () -> MooncakeNative.batchGetInto(store, keys, buffers, new int[3], lengths, sizes));
    fails(IllegalArgumentException.class, "1 lengths", () -> MooncakeNative.batchGetInto(store, keys, buffers, offsets, new int[1], sizes));
    fails(NullPointerException.class, "keys[1] is null", () -> MooncakeNative.batchIsExist(store, new byte[][] {KEY, null}, results));
    fails(IllegalArgumentException.class, "keys[0] is empty", () -> MooncakeNative.batchIsExist(store, new byte[][] {{}, KEY}, results));
    fails(IllegalArgumentException.class, "keys[1] contains a NUL", () -> MooncakeNative.batchIsExist(store, new byte[][] {KEY, {'a', 0}}, results));
    fails(NullPointerException.class, "buffers is null", () -> MooncakeNative.batchPutFrom(store, keys, null, offsets, lengths, 0, results));
    fails(NullPointerException.class, "offsets is null", () -> MooncakeNative.batchPutFrom(store, keys, buffers, null, lengths, 0, results));
    fails(NullPointerException.class, "lengths is null", () -> MooncakeNative.batchGetInto(store, keys, buffers, offsets, null, sizes));
    fails(NullPointerException.class, "buffers[1] is null", () -> MooncakeNative.batchPutFrom(store, keys, new ByteBuffer[] {direct, null}, offsets, lengths, 0, results));
    fails(IllegalArgumentException.class, "buffers[0] is not a direct buffer", () -> MooncakeNative.batchPutFrom(store, keys, new ByteBuffer[] {ByteBuffer.allocate(8), direct}, offsets, lengths, 0, results));
    fails(IllegalArgumentException.class, "buffers[1]: range [60, 68)", () -> MooncakeNative.batchGetInto(store, keys, buffers, new int[] {0, 60}, lengths, sizes));
    fails(IllegalArgumentException.class, "buffers[0]: negative", () -> MooncakeNative.batchGetInto(store, keys, buffers, new int[] {-4, 0}, lengths, sizes));
    fails(IllegalArgumentException.class, "buffers[1] is read-only", () -> MooncakeNative.batchGetInto(store, keys, new ByteBuffer[] {direct, direct.asReadOnlyBuffer()}, offsets, lengths, sizes));
  }

  @Test
  void badSetupAndConfigArgumentsAreRefused() {
    try (MooncakeClient fresh = MooncakeClient.create(FakeStore.open())) {
      long h = fresh.handle();
      fails(NullPointerException.class, "local_hostname is null", () -> MooncakeNative.setup(h, null, "P2PHANDSHAKE", 1, 1, "tcp", "", "a:1"));
      fails(NullPointerException.class, "metadata_server is null", () -> MooncakeNative.setup(h, "h", null, 1, 1, "tcp", "", "a:1"));
      fails(NullPointerException.class, "protocol is null", () -> MooncakeNative.setup(h, "h", "P2PHANDSHAKE", 1, 1, null, "", "a:1"));
      fails(NullPointerException.class, "device_name is null", () -> MooncakeNative.setup(h, "h", "P2PHANDSHAKE", 1, 1, "tcp", null, "a:1"));
      fails(NullPointerException.class, "master_server_address is null", () -> MooncakeNative.setup(h, "h", "P2PHANDSHAKE", 1, 1, "tcp", "", null));
      fails(IllegalArgumentException.class, "negative size", () -> MooncakeNative.setup(h, "h", "P2PHANDSHAKE", -1, 1, "tcp", "", "a:1"));
      fails(IllegalArgumentException.class, "negative size", () -> MooncakeNative.setup(h, "h", "P2PHANDSHAKE", 1, -1, "tcp", "", "a:1"));
      // The fake aborts the process on an unknown scheme, as Mooncake does: this must never get there.
      fails(IllegalArgumentException.class, "unknown scheme", () -> MooncakeNative.setup(h, "h", "zookeeper://x:1", 1, 1, "tcp", "", "a:1"));
      fails(IllegalArgumentException.class, "metadata_server '' is empty", () -> MooncakeNative.setup(h, "h", "", 1, 1, "tcp", "", "a:1"));
      fails(IllegalArgumentException.class, "local_hostname is empty", () -> MooncakeNative.setup(h, "", "P2PHANDSHAKE", 1, 1, "tcp", "", "a:1"));
      fails(IllegalArgumentException.class, "protocol is empty", () -> MooncakeNative.setup(h, "h", "P2PHANDSHAKE", 1, 1, "", "", "a:1"));
      fails(IllegalArgumentException.class, "master_server_address is empty", () -> MooncakeNative.setup(h, "h", "etcd://e:2379", 1, 1, "tcp", "", ""));
      fails(IllegalArgumentException.class, "negative mount_segment_size", () -> MooncakeNative.initAll(h, "tcp", "", -5));
      fails(NullPointerException.class, "protocol is null", () -> MooncakeNative.initAll(h, null, "", 5));
      fails(NullPointerException.class, "out is null", () -> MooncakeNative.getHostname(h, null));
      fails(IllegalArgumentException.class, "length 0", () -> MooncakeNative.getHostname(h, new byte[0]));
    }
    fails(IllegalArgumentException.class, "negative replica_num", () -> ReplicaConfig.create(-1, false, false, List.of()));
    fails(NullPointerException.class, "preferred_segments[1] is null", () -> MooncakeNative.newReplicaConfig(1, false, false, new String[] {"a:1", null}));
    fails(IllegalArgumentException.class, "preferred_segments[0] is empty", () -> MooncakeNative.newReplicaConfig(1, false, false, new String[] {""}));
    ReplicaConfig config = ReplicaConfig.create(1, true, false, List.of("127.0.0.1:1"));
    long handle = config.nativeHandle();
    config.close();
    config.close(); // exactly once
    fails(IllegalStateException.class, "is closed", config::nativeHandle);
    fails(IllegalStateException.class, "closed or not a replicate-config", () -> MooncakeNative.putFrom(store, KEY, direct, 0, 1, handle));
    fails(IllegalStateException.class, "closed or not a replicate-config", () -> MooncakeNative.freeReplicaConfig(handle));
    fails(NullPointerException.class, "library path is null", () -> MooncakeNative.openLibrary(null));
    fails(IllegalArgumentException.class, "library path is empty", () -> MooncakeNative.openLibrary(""));
  }

  @Test
  void badRegionArgumentsAreRefused() {
    fails(IllegalArgumentException.class, "must be positive", () -> MooncakeNative.regionAllocate(0));
    fails(IllegalArgumentException.class, "must be positive", () -> MooncakeNative.regionAllocate(-1));
    fails(NativeBridgeException.class, "cannot map a region of " + Long.MAX_VALUE, () -> MooncakeNative.regionAllocate(Long.MAX_VALUE));
    NativeRegion region = NativeRegion.allocate(4096);
    long h = region.nativeHandle();
    fails(IllegalArgumentException.class, "outside the region of 4096", () -> region.view(4000, 100));
    fails(IllegalArgumentException.class, "outside", () -> region.view(-1, 10));
    fails(IllegalArgumentException.class, "outside", () -> region.view(0, -10));
    fails(IllegalArgumentException.class, "outside", () -> MooncakeNative.regionView(h, Long.MAX_VALUE, 10));
    fails(IllegalStateException.class, "released before", () -> MooncakeNative.regionFree(h));
    assertEquals(0, client.registerRegion(region));
    fails(IllegalStateException.class, "still registered with 1 store", region::close);
    assertEquals(0, client.unregisterRegion(region));
    ByteBuffer view = region.view(0, 16); // keeps the mapping (and the handle) alive
    region.close();
    region.close(); // exactly once
    fails(IllegalStateException.class, "region is closed", () -> region.view(0, 10));
    fails(IllegalStateException.class, "region is released", () -> MooncakeNative.regionView(h, 0, 10));
    fails(IllegalStateException.class, "region is released", () -> MooncakeNative.registerRegion(store, h));
    fails(IllegalStateException.class, "already released", () -> MooncakeNative.regionRelease(h));
    fails(IllegalStateException.class, "not a region", () -> MooncakeNative.registerRegion(store, store));
    view.put(0, (byte) 1); // still mapped: no crash
    assertEquals(1, view.get(0));
  }
}
