package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Memory used once (issue 12): {@code local_buffer_size} sizes our registered region only;
 * Mooncake's setup gets a local buffer of 0, so it allocates (and on RDMA pins) nothing for its
 * copying put. The fake answers a copying put with -600 then, as Mooncake does, and counts copying
 * puts: every data path of the store must go through put_from / get_into on our memory.
 */
class LocalBufferUsedOnceTest {
  private MooncakeStore store;
  private long localBuffersBefore;
  private long copyingPutsBefore;

  @BeforeEach
  void open() {
    localBuffersBefore = Fake.stat("local_buffer_bytes");
    copyingPutsBefore = Fake.stat("copying_puts");
    store = new TestConfig().open();
    store.removeByRegex("^", true);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void setupGetsNoLocalBufferAndTheRegionIsTheConfiguredSize() {
    assertEquals(
        localBuffersBefore,
        Fake.stat("local_buffer_bytes"),
        "setup was given a local buffer: local_buffer_size would be spent twice");
    assertEquals(new TestConfig().localBufferSize, store.buffers().maxBufferSize());
  }

  @Test
  void everyDataPathAvoidsTheCopyingPut() throws Exception {
    // heap values (staged through a region buffer), region buffers, and a direct buffer outside
    // the region (passed as is over TCP)
    assertEquals(0, store.put("heap", ByteBuffer.wrap(bytes("h"))));
    ByteBuffer pooled = store.buffers().acquire(4);
    pooled.put(0, bytes("pool")).limit(4);
    assertEquals(0, store.put("pooled", pooled));
    ByteBuffer direct = ByteBuffer.allocateDirect(6).put(bytes("direct")).flip();
    assertEquals(0, store.put("direct", direct));
    assertArrayEquals(
        new int[] {0, 0},
        store.batchPut(
            new String[] {"batch-heap", "batch-pooled"},
            new ByteBuffer[] {ByteBuffer.wrap(bytes("bh")), pooled.duplicate()}));
    assertEquals(
        0, store.putPinnedInOwnSegment("pinned", ByteBuffer.wrap(bytes("pin")), Deadline.none()));

    ByteBuffer heapOut = ByteBuffer.allocate(16);
    assertEquals(1, store.getInto("heap", heapOut));
    assertEquals('h', heapOut.get(0));
    ByteBuffer directOut = ByteBuffer.allocateDirect(16);
    assertEquals(6, store.getInto("direct", directOut));
    ByteBuffer pooledOut = store.buffers().acquire(16);
    assertEquals(4, store.getInto("pooled", pooledOut));
    assertArrayEquals(
        new long[] {2, 4, 3},
        store.batchGetInto(
            new String[] {"batch-heap", "batch-pooled", "pinned"},
            new ByteBuffer[] {
              ByteBuffer.allocate(16), ByteBuffer.allocate(16), ByteBuffer.allocateDirect(16)
            }));
    store.buffers().release(pooled);
    store.buffers().release(pooledOut);

    assertEquals(
        copyingPutsBefore, Fake.stat("copying_puts"), "a store call used Mooncake's copying put");
  }
}
