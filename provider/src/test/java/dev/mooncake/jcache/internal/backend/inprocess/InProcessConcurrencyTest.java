package dev.mooncake.jcache.internal.backend.inprocess;

import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.KIB;
import static dev.mooncake.jcache.internal.backend.inprocess.TestConfigs.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/**
 * Many threads on overlapping keys, with eviction running: every value that comes back is checked
 * against its own checksum and key, so a read of freed or reused memory cannot go unnoticed.
 */
class InProcessConcurrencyTest {
  private static final int THREADS = 8;
  private static final int OPERATIONS = 20_000;
  private static final int KEYS = 32;
  private static final int MAX_VALUE = 16 * 1024;

  private static final Set<Long> PUT_CODES = Set.of(0L, -200L);
  private static final Set<Long> GET_FAILURES = Set.of(-703L, -704L);
  private static final Set<Long> REMOVE_CODES = Set.of(0L, -703L, -704L, -706L);

  @Test
  void hammeringOverlappingKeysNeverReadsACorruptValue() throws Exception {
    // 128 KiB holds ~15 values of the average 8 KiB: 32 keys keep eviction busy.
    InProcessStore store = InProcessStore.open(TestConfigs.segment(128 * KIB));
    AtomicLong goodReads = new AtomicLong();
    Queue<String> failures = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      long seed = 42 + t;
      done.add(
          threads.submit(
              () -> {
                start.await();
                hammer(store, new SplittableRandom(seed), goodReads, failures);
                return null;
              }));
    }
    start.countDown();
    for (Future<?> future : done) {
      future.get(2, TimeUnit.MINUTES);
    }
    threads.shutdown();

    assertEquals(List.of(), List.copyOf(failures));
    assertTrue(goodReads.get() > 1_000, "only " + goodReads.get() + " good reads");
    assertTrue(store.evictions() > 0, "eviction never ran");
    store.removeByRegex("^", true);
    assertEquals(0, store.objectCount());
    assertEquals(0, store.usedBytes());
    store.close();
  }

  private static void hammer(
      InProcessStore store, SplittableRandom random, AtomicLong goodReads, Queue<String> failures) {
    ByteBuffer destination = ByteBuffer.allocateDirect(MAX_VALUE + 64);
    for (int i = 0; i < OPERATIONS && failures.size() < 10; i++) {
      String key = "k" + random.nextInt(KEYS);
      int op = random.nextInt(100);
      try {
        if (op < 45) {
          long got = store.getInto(key, destination);
          if (got >= 0) {
            String problem = check(key, destination, (int) got);
            if (problem != null) {
              failures.add(problem);
            } else {
              goodReads.incrementAndGet();
            }
          } else if (!GET_FAILURES.contains(got)) {
            failures.add("get " + key + " answered " + got);
          }
        } else if (op < 80) {
          long code = store.put(key, value(key, random));
          if (!PUT_CODES.contains(code)) {
            failures.add("put " + key + " answered " + code);
          }
        } else if (op < 92) {
          long code = store.remove(key, random.nextBoolean());
          if (!REMOVE_CODES.contains(code)) {
            failures.add("remove " + key + " answered " + code);
          }
        } else if (op < 98) {
          long code = store.isExist(key);
          if (code != 0 && code != 1) {
            failures.add("isExist " + key + " answered " + code);
          }
        } else {
          long code = store.removeByRegex("^k1", true);
          if (code < 0) {
            failures.add("removeByRegex answered " + code);
          }
        }
      } catch (RuntimeException | Error e) {
        failures.add(key + ": " + e);
      }
    }
  }

  /** [crc32 of the rest: 8 bytes][key][0][random bytes]. */
  private static ByteBuffer value(String key, SplittableRandom random) {
    byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
    int size = 8 + keyBytes.length + 1 + random.nextInt(MAX_VALUE - 8 - keyBytes.length - 1);
    ByteBuffer value =
        random.nextBoolean() ? ByteBuffer.allocate(size) : ByteBuffer.allocateDirect(size);
    value.position(8);
    value.put(keyBytes).put((byte) 0);
    while (value.hasRemaining()) {
      value.put((byte) random.nextInt());
    }
    CRC32 crc = new CRC32();
    crc.update(value.duplicate().position(8).limit(size));
    value.putLong(0, crc.getValue());
    value.clear();
    return value;
  }

  private static String check(String key, ByteBuffer destination, int size) {
    byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
    if (size < 8 + keyBytes.length + 1) {
      return key + ": a value of " + size + " bytes is too short";
    }
    CRC32 crc = new CRC32();
    crc.update(destination.duplicate().position(8).limit(size));
    if (crc.getValue() != destination.getLong(0)) {
      return key + ": checksum mismatch in a value of " + size + " bytes";
    }
    for (int i = 0; i < keyBytes.length; i++) {
      if (destination.get(8 + i) != keyBytes[i]) {
        return key + ": the value belongs to another key";
      }
    }
    return destination.get(8 + keyBytes.length) == 0
        ? null
        : key + ": the value names a longer key";
  }

  @Test
  void readsRacingRemoveAndReputOfALargeObjectSeeOneWholeValue() throws Exception {
    int size = 1024 * 1024;
    InProcessStore store = InProcessStore.open(TestConfigs.segment(8 * MIB));
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong wholeReads = new AtomicLong();
    Queue<String> failures = new ConcurrentLinkedQueue<>();
    ExecutorService threads = Executors.newFixedThreadPool(3);
    List<Future<?>> readers = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      readers.add(
          threads.submit(
              () -> {
                ByteBuffer destination = ByteBuffer.allocateDirect(size);
                while (!stop.get()) {
                  long got = store.getInto("big", destination);
                  if (got == size) {
                    String problem = uniform(destination, size);
                    if (problem != null) {
                      failures.add(problem);
                    }
                    wholeReads.incrementAndGet();
                  } else if (got != -704 && got != -703) {
                    failures.add("get answered " + got);
                  }
                }
                return null;
              }));
    }
    ByteBuffer[] values = new ByteBuffer[4];
    for (int v = 0; v < values.length; v++) {
      values[v] = TestConfigs.filled(size, v + 1);
    }
    Future<?> writer =
        threads.submit(
            () -> {
              for (int i = 0; i < 1_000 && failures.isEmpty(); i++) {
                store.put("big", values[i % values.length]);
                Thread.yield();
                store.remove("big", true);
              }
              return null;
            });
    writer.get(2, TimeUnit.MINUTES);
    stop.set(true);
    for (Future<?> reader : readers) {
      reader.get(1, TimeUnit.MINUTES);
    }
    threads.shutdown();
    assertEquals(List.of(), List.copyOf(failures));
    assertTrue(wholeReads.get() > 0, "no read ever overlapped a put");
    assertEquals(0, store.usedBytes());
    store.close();
  }

  private static String uniform(ByteBuffer destination, int size) {
    long first = destination.getLong(0);
    byte b = (byte) first;
    if (first != (b & 0xFFL) * 0x0101010101010101L || b < 1 || b > 4) {
      return "a value starting " + Long.toHexString(first);
    }
    for (int i = 8; i < size; i += 8) {
      if (destination.getLong(i) != first) {
        return "a torn value: byte " + i + " of one filled with " + b;
      }
    }
    return null;
  }
}
