package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JNI bridge fuzzed from Java over the fake library: every combination of handle, buffer kind,
 * offset and length at and past each boundary, keys with NUL and of 16 MiB, large batches and
 * closes racing calls. The rule checked on every call: a call the bridge should refuse throws an
 * exception whose message names the problem; a call it should accept does not throw and moves the
 * right bytes. A crash would end the test JVM. Case counts go to docs/reliability.md.
 */
class BridgeFuzzTest {
  private static final int CAPACITY = 64;
  private static final int[] EDGES = {
    Integer.MIN_VALUE,
    -1,
    0,
    1,
    7,
    CAPACITY / 2,
    CAPACITY - 1,
    CAPACITY,
    CAPACITY + 1,
    Integer.MAX_VALUE - 1,
    Integer.MAX_VALUE
  };
  private static final Map<String, Integer> CASES = new TreeMap<>();

  private static MooncakeClient client;
  private static long store;
  private static final AtomicLong keys = new AtomicLong();

  @BeforeAll
  static void open() {
    client = FakeStore.client(64L << 20);
    store = client.handle();
  }

  @AfterAll
  static void close() {
    client.close();
    int total = CASES.values().stream().mapToInt(Integer::intValue).sum();
    System.out.println("bridge fuzz cases: " + total + " " + CASES);
  }

  private static void count(String area) {
    CASES.merge(area, 1, Integer::sum);
  }

  private static byte[] freshKey() {
    return MooncakeClient.key("fuzz/" + keys.incrementAndGet());
  }

  /** Runs a call that must be refused with a message containing one of the fragments. */
  private static void refused(String what, Runnable call, String... fragments) {
    try {
      call.run();
    } catch (RuntimeException e) {
      String message = String.valueOf(e.getMessage());
      for (String fragment : fragments) {
        if (message.contains(fragment)) {
          return;
        }
      }
      fail(
          what
              + ": refused, but the message names none of "
              + Arrays.toString(fragments)
              + ": "
              + e);
    }
    fail(what + ": accepted, should have been refused");
  }

  /** A buffer kind under test: how to make one, whether it is direct, read-only, its capacity. */
  private record Kind(String name, ByteBuffer buffer, boolean direct, boolean readOnly) {
    int capacity() {
      return buffer == null ? 0 : buffer.capacity();
    }
  }

  private static List<Kind> kinds() {
    ByteBuffer base = ByteBuffer.allocateDirect(CAPACITY + 16);
    for (int i = 0; i < base.capacity(); i++) {
      base.put(i, (byte) (i * 7 + 3));
    }
    ByteBuffer sliced = base.duplicate().position(8).limit(8 + CAPACITY).slice();
    ByteBuffer heap = ByteBuffer.allocate(CAPACITY);
    NativeRegion region = NativeRegion.allocate(4096);
    List<Kind> kinds = new ArrayList<>();
    kinds.add(new Kind("direct", ByteBuffer.allocateDirect(CAPACITY), true, false));
    kinds.add(new Kind("sliced direct", sliced, true, false));
    kinds.add(new Kind("read-only direct", sliced.asReadOnlyBuffer(), true, true));
    kinds.add(new Kind("duplicate at position 5", sliced.duplicate().position(5), true, false));
    kinds.add(new Kind("empty direct", ByteBuffer.allocateDirect(0), true, false));
    kinds.add(new Kind("region view", region.view(128, CAPACITY), true, false));
    kinds.add(new Kind("heap", heap, false, false));
    kinds.add(new Kind("read-only heap", heap.asReadOnlyBuffer(), false, true));
    kinds.add(
        new Kind(
            "heap slice", ByteBuffer.allocate(CAPACITY + 8).position(8).slice(), false, false));
    kinds.add(new Kind("null", null, false, false));
    return kinds;
  }

  private enum Call {
    PUT_FROM,
    GET_INTO,
    REGISTER,
    BATCH_PUT_FROM,
    BATCH_GET_INTO
  }

  @Test
  void everyBufferKindOffsetAndLength() {
    byte[] stored = MooncakeClient.key("fuzz/source");
    ByteBuffer source = ByteBuffer.allocateDirect(CAPACITY);
    for (int i = 0; i < CAPACITY; i++) {
      source.put(i, (byte) (100 + i));
    }
    assertEquals(0, client.putFrom(stored, source, 0, CAPACITY, null));
    for (Kind kind : kinds()) {
      for (int offset : EDGES) {
        for (int length : EDGES) {
          for (Call call : Call.values()) {
            one(call, kind, offset, length, stored);
          }
        }
      }
    }
  }

  private static void one(Call call, Kind kind, int offset, int length, byte[] stored) {
    String what = call + " " + kind.name + " [" + offset + ", +" + length + ")";
    count("buffers/" + call);
    boolean writes = call == Call.GET_INTO || call == Call.BATCH_GET_INTO;
    ByteBuffer b = kind.buffer;
    Runnable run =
        switch (call) {
          case PUT_FROM -> () -> MooncakeClient.putFrom(store, freshKey(), b, offset, length, 0);
          case GET_INTO -> () -> MooncakeClient.getInto(store, stored, b, offset, length);
          case REGISTER ->
              () -> {
                if (MooncakeClient.registerBuffer(store, b, offset, length) == 0) {
                  MooncakeClient.unregisterBuffer(store, b, offset);
                }
              };
          case BATCH_PUT_FROM ->
              () ->
                  MooncakeClient.batchPutFrom(
                      store,
                      new byte[][] {freshKey()},
                      new ByteBuffer[] {b},
                      new int[] {offset},
                      new int[] {length},
                      0,
                      new int[1]);
          case BATCH_GET_INTO ->
              () ->
                  MooncakeClient.batchGetInto(
                      store,
                      new byte[][] {stored},
                      new ByteBuffer[] {b},
                      new int[] {offset},
                      new int[] {length},
                      new long[1]);
        };
    if (b == null) {
      refused(what, run, "is null");
    } else if (!kind.direct) {
      refused(what, run, "not a direct buffer");
    } else if (offset < 0 || length < 0) {
      refused(what, run, "negative");
    } else if ((long) offset + length > kind.capacity()) {
      refused(what, run, "outside its capacity " + kind.capacity());
    } else if (writes && kind.readOnly) {
      refused(what, run, "read-only");
    } else if (call == Call.REGISTER && length == 0) {
      refused(what, run, "0 bytes");
    } else {
      run.run(); // accepted: a status code, never an exception
      if (length > 0 && call == Call.PUT_FROM) {
        roundTrip(call, b, offset, length);
      }
      if (length >= CAPACITY && call == Call.GET_INTO) {
        for (int i = 0; i < CAPACITY; i++) {
          assertEquals((byte) (100 + i), b.get(offset + i), what + ": byte " + i);
        }
      }
      count("accepted");
    }
  }

  /** What an accepted put stored is exactly the bytes of the buffer's range (slices included). */
  private static void roundTrip(Call call, ByteBuffer b, int offset, int length) {
    byte[] key = freshKey();
    int code = MooncakeClient.putFrom(store, key, b, offset, length, 0);
    assertEquals(0, code);
    ByteBuffer back = ByteBuffer.allocateDirect(length);
    assertEquals(length, MooncakeClient.getInto(store, key, back, 0, length));
    byte[] expected = new byte[length];
    b.get(offset, expected);
    byte[] got = new byte[length];
    back.get(0, got);
    assertArrayEquals(expected, got, call + " of a " + b + " at " + offset);
    MooncakeClient.remove(store, key, true);
    count("round trips");
  }

  @Test
  void everyHandleKind() {
    MooncakeClient closed = FakeStore.client(0);
    long closedHandle = closed.handle();
    closed.close();
    NativeRegion region = NativeRegion.allocate(4096);
    ReplicaConfig replica = ReplicaConfig.create(client, 1, false, false, null, List.of());
    MooncakeLibrary library = FakeStore.open();
    long[] handles = {
      0L,
      1L,
      -1L,
      12345L,
      Long.MIN_VALUE,
      Long.MAX_VALUE,
      0x7fff_0000_0001L,
      closedHandle,
      region.nativeHandle(),
      replica.nativeHandle(),
      library.handle(),
      // the store's slot with another generation (handles are generation << 32 | slot + 1)
      store ^ (1L << 32),
      store ^ (1L << 62)
    };
    byte[] key = MooncakeClient.key("fuzz/handle");
    ByteBuffer direct = ByteBuffer.allocateDirect(CAPACITY);
    for (long h : handles) {
      if (h == store) {
        continue;
      }
      String what = "handle " + h;
      List<Runnable> calls =
          List.of(
              () -> MooncakeClient.isExist(h, key),
              () -> MooncakeClient.getSize(h, key),
              () -> MooncakeClient.remove(h, key, true),
              () -> MooncakeClient.removeByRegex(h, key, true),
              () -> MooncakeClient.healthCheck(h),
              () -> MooncakeClient.putFrom(h, key, direct, 0, 8, 0),
              () -> MooncakeClient.getInto(h, key, direct, 0, 8),
              () -> MooncakeClient.batchIsExist(h, new byte[][] {key}, new int[1]),
              () ->
                  MooncakeClient.batchGetInto(
                      h,
                      new byte[][] {key},
                      new ByteBuffer[] {direct},
                      new int[] {0},
                      new int[] {8},
                      new long[1]),
              () ->
                  MooncakeClient.batchPutFrom(
                      h,
                      new byte[][] {key},
                      new ByteBuffer[] {direct},
                      new int[] {0},
                      new int[] {8},
                      0,
                      new int[1]),
              () -> MooncakeClient.registerBuffer(h, direct, 0, 8),
              () -> MooncakeClient.unregisterBuffer(h, direct, 0),
              () -> MooncakeClient.registerRegion(h, region.nativeHandle()),
              () -> MooncakeClient.getHostname(h, new byte[64]),
              () -> MooncakeClient.destroy(h),
              // the handle as the other kinds the bridge takes
              () -> NativeRegion.regionView(h, 0, 8),
              () -> NativeRegion.regionRelease(h),
              () -> ReplicaConfig.freeReplicaConfig(h),
              () -> MooncakeClient.create(h, 0, 0),
              () -> MooncakeClient.putFrom(store, key, direct, 0, 8, h));
      int i = 0;
      for (Runnable call : calls) {
        boolean ownKind =
            (h == region.nativeHandle() && (i == 15 || i == 16))
                || (h == replica.nativeHandle() && (i == 17 || i == 19))
                || (h == library.handle() && i == 18)
                || (h == 0 && i == 19); // no replicate config: the default placement
        count("handles");
        if (!ownKind) {
          refused(what + " call " + i, call, "handle", "closed", "not a ", "released");
        }
        i++;
      }
    }
    replica.close();
    region.close();
  }

  @Test
  void keysWithNulEmptyAndOf16MiB() {
    ByteBuffer direct = ByteBuffer.allocateDirect(CAPACITY);
    byte[] big = new byte[16 << 20];
    Arrays.fill(big, (byte) 'k');
    byte[] bigWithNul = big.clone();
    bigWithNul[big.length - 1] = 0;
    byte[][] bad = {{}, {0}, {0, 'a'}, {'a', 0}, {'a', 0, 'b'}, bigWithNul};
    for (byte[] key : bad) {
      String what = "key of " + key.length + " bytes";
      String[] names = {"empty", "NUL"};
      refused(what, () -> MooncakeClient.isExist(store, key), names);
      refused(what, () -> MooncakeClient.getSize(store, key), names);
      refused(what, () -> MooncakeClient.remove(store, key, true), names);
      refused(what, () -> MooncakeClient.putFrom(store, key, direct, 0, 8, 0), names);
      refused(what, () -> MooncakeClient.getInto(store, key, direct, 0, 8), names);
      refused(
          what,
          () -> MooncakeClient.batchIsExist(store, new byte[][] {key}, new int[1]),
          "keys[0]");
      count("keys");
      count("keys");
      count("keys");
      count("keys");
      count("keys");
      count("keys");
    }
    refused("null key", () -> MooncakeClient.isExist(store, null), "key is null");
    count("keys");
    // Accepted keys: 16 MiB, bytes that are not UTF-8, one byte, every non-NUL byte value.
    byte[] every = new byte[255];
    for (int i = 0; i < 255; i++) {
      every[i] = (byte) (i + 1);
    }
    for (byte[] key : new byte[][] {big, {(byte) 0xFF, (byte) 0xFE}, {'x'}, every}) {
      assertEquals(0, MooncakeClient.putFrom(store, key, direct, 0, 8, 0));
      assertEquals(1, MooncakeClient.isExist(store, key));
      assertEquals(8, MooncakeClient.getSize(store, key));
      assertEquals(8, MooncakeClient.getInto(store, key, direct, 8, 8));
      assertEquals(0, MooncakeClient.remove(store, key, true));
      CASES.merge("keys", 5, Integer::sum);
    }
  }

  @Test
  void largeAndMismatchedBatches() {
    int n = 100_000;
    byte[][] keys = new byte[n][];
    ByteBuffer[] buffers = new ByteBuffer[n];
    int[] offsets = new int[n];
    int[] lengths = new int[n];
    ByteBuffer shared = ByteBuffer.allocateDirect(16 * 1024);
    for (int i = 0; i < n; i++) {
      keys[i] = ("fuzz/batch/" + i).getBytes(StandardCharsets.US_ASCII);
      buffers[i] = shared;
      offsets[i] = (i % 1024) * 16;
      lengths[i] = 16;
    }
    int[] codes = new int[n];
    assertEquals(0, MooncakeClient.batchPutFrom(store, keys, buffers, offsets, lengths, 0, codes));
    int[] exist = new int[n];
    assertEquals(0, MooncakeClient.batchIsExist(store, keys, exist));
    assertEquals(n, Arrays.stream(exist).filter(e -> e == 1).count());
    long[] sizes = new long[n];
    assertEquals(0, MooncakeClient.batchGetInto(store, keys, buffers, offsets, lengths, sizes));
    assertEquals(16L * n, Arrays.stream(sizes).sum());
    CASES.merge("batch entries", 3 * n, Integer::sum);
    for (int wrong : new int[] {0, 1, n - 1, n + 1}) {
      refused(
          "results of " + wrong,
          () -> MooncakeClient.batchIsExist(store, keys, new int[wrong]),
          "mismatch");
      refused(
          "sizes of " + wrong,
          () ->
              MooncakeClient.batchGetInto(store, keys, buffers, offsets, lengths, new long[wrong]),
          "mismatch");
      refused(
          "offsets of " + wrong,
          () ->
              MooncakeClient.batchPutFrom(
                  store, keys, buffers, new int[wrong], lengths, 0, new int[n]),
          "offsets");
      refused(
          "buffers of " + wrong,
          () ->
              MooncakeClient.batchPutFrom(
                  store, keys, new ByteBuffer[wrong], offsets, lengths, 0, new int[n]),
          "buffers");
      CASES.merge("batch mismatches", 4, Integer::sum);
    }
    // One bad entry deep in a large batch is named by its index.
    int bad = n - 3;
    int[] badOffsets = offsets.clone();
    badOffsets[bad] = shared.capacity() - 8;
    refused(
        "offset at " + bad,
        () -> MooncakeClient.batchGetInto(store, keys, buffers, badOffsets, lengths, new long[n]),
        "buffers[" + bad + "]");
    byte[][] badKeys = keys.clone();
    badKeys[bad] = new byte[] {'a', 0};
    refused(
        "key at " + bad,
        () -> MooncakeClient.batchIsExist(store, badKeys, new int[n]),
        "keys[" + bad + "]");
    CASES.merge("batch mismatches", 2, Integer::sum);
    assertTrue(MooncakeClient.removeByRegex(store, "^fuzz/batch/".getBytes(), true) >= n);
  }

  @Test
  void closeRacingCallsInFlight() throws Exception {
    int rounds = 200;
    int threads = 4;
    long completed = 0;
    long refusedClosed = 0;
    for (int round = 0; round < rounds; round++) {
      MooncakeClient racing = FakeStore.client(1 << 20);
      long h = racing.handle();
      CyclicBarrier start = new CyclicBarrier(threads + 1);
      CountDownLatch done = new CountDownLatch(threads);
      long[] ok = new long[threads];
      long[] closedCount = new long[threads];
      List<Throwable> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int t = 0; t < threads; t++) {
        int id = t;
        Thread thread =
            new Thread(
                () -> {
                  ByteBuffer b = ByteBuffer.allocateDirect(256);
                  byte[] key = ("fuzz/race/" + id).getBytes(StandardCharsets.US_ASCII);
                  try {
                    start.await();
                    for (int i = 0; i < 200; i++) {
                      try {
                        switch (i % 4) {
                          case 0 -> MooncakeClient.putFrom(h, key, b, 0, 256, 0);
                          case 1 -> MooncakeClient.getInto(h, key, b, 0, 256);
                          case 2 -> MooncakeClient.isExist(h, key);
                          default -> MooncakeClient.batchIsExist(h, new byte[][] {key}, new int[1]);
                        }
                        ok[id]++;
                      } catch (IllegalStateException e) {
                        if (!String.valueOf(e.getMessage()).contains("closed")) {
                          unexpected.add(e);
                        }
                        closedCount[id]++;
                      }
                    }
                  } catch (Throwable e) {
                    unexpected.add(e);
                  } finally {
                    done.countDown();
                  }
                });
        thread.start();
      }
      start.await();
      racing.close();
      done.await();
      assertEquals(List.of(), unexpected);
      completed += Arrays.stream(ok).sum();
      refusedClosed += Arrays.stream(closedCount).sum();
    }
    CASES.merge("calls racing close", (int) (completed + refusedClosed), Integer::sum);
    System.out.printf(
        "close races: %d rounds, %d calls completed, %d refused as closed%n",
        rounds, completed, refusedClosed);
    assertTrue(refusedClosed > 0, "no call met the close");
  }
}
