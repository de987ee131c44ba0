package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.ReliabilityHooks;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Objects the cache did not write, or not as they are now, under its keys: every byte of the header
 * and of the trailer corrupted in turn (each bit, and the whole byte), truncations at every length,
 * foreign objects without our header, another cache's values. Every read is a CacheException naming
 * the key, or (only where the corruption makes the entry look expired) a miss; never a wrong value.
 */
class CorruptValueTest {
  private static final String TENANT = "tenant-a";
  private static final String VALUE = "a value of thirty-two bytes long";

  @TempDir Path dir;
  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
  }

  /** The cache under test and raw access to the objects under its keys. */
  private record Setup(CacheManager manager, RawObjects raw) {}

  private Setup open(String backend) {
    if (backend.equals("fake")) {
      CacheManager manager =
          Caching.getCachingProvider()
              .getCacheManager(Configs.fake(dir, TENANT, ""), getClass().getClassLoader());
      RawObjects raw = RawObjects.fake();
      opened.add(raw);
      opened.add(manager);
      return new Setup(manager, raw);
    }
    URI uri = Configs.inProcess(dir, TENANT, "");
    ObjectStore store = ReliabilityHooks.openStore(uri);
    CacheManager manager = ReliabilityHooks.managerOn(uri, getClass().getClassLoader(), store);
    opened.add(manager);
    opened.add(store);
    return new Setup(manager, RawObjects.on(store));
  }

  /** A String cache "values" holding {@code VALUE} under "k". */
  private static Cache<String, String> valuesWithK(Setup s) {
    Cache<String, String> cache =
        s.manager.createCache(
            "values",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    cache.put("k", VALUE);
    return cache;
  }

  /** Counts outcomes by kind; a wrong value fails the test at once. */
  private static final class Outcomes {
    final TreeMap<String, Integer> counts = new TreeMap<>();
    int cases;

    void read(String what, Supplier<Object> get, Object expected, boolean missAllowed) {
      cases++;
      String kind;
      try {
        Object got = get.get();
        if (got == null) {
          assertTrue(missAllowed, what + ": read as absent");
          kind = "miss (looks expired)";
        } else {
          assertEquals(expected, got, what + ": a wrong value");
          kind = "original value";
        }
      } catch (CacheException e) {
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), what);
        kind = "CacheException";
      }
      counts.merge(kind, 1, Integer::sum);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "fake"})
  void everyHeaderAndTrailerByteCorruptedInTurn(String backend) {
    Setup s = open(backend);
    Cache<String, String> cache = valuesWithK(s);
    String key = RawObjects.storeKey(TENANT, "values", "k");
    byte[] good = s.raw.get(key);
    assertEquals(
        Headers.SIZE + VALUE.length() + Headers.TRAILER, good.length, "the documented layout");
    assertEquals(0x4D, good[0]);
    assertEquals(Headers.owner(key), ByteBuffer.wrap(good).getLong(16), "the documented owner");
    assertEquals(
        Headers.checksum(good, good.length - Headers.TRAILER),
        ByteBuffer.wrap(good).getInt(good.length - Headers.TRAILER),
        "the documented checksum");

    Outcomes outcomes = new Outcomes();
    List<Integer> positions = new ArrayList<>();
    for (int i = 0; i < Headers.SIZE; i++) {
      positions.add(i);
    }
    for (int i = good.length - Headers.TRAILER; i < good.length; i++) {
      positions.add(i); // a changed checksum: read again, then refused
    }
    for (int i : positions) {
      for (int mask : new int[] {1, 2, 4, 8, 16, 32, 64, 128, 0xFF}) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) mask;
        s.raw.put(key, bad);
        // A miss is no wrong value only where the expiry time was hit (bytes 4-11).
        outcomes.read("byte " + i + " ^ " + mask, () -> cache.get("k"), VALUE, i >= 4 && i < 12);
      }
    }
    s.raw.put(key, good);
    assertEquals(VALUE, cache.get("k"), "the original still reads");
    System.out.printf(
        "%s: %d header and trailer corruptions: %s%n", backend, outcomes.cases, outcomes.counts);
    assertEquals(
        Integer.valueOf(outcomes.cases),
        outcomes.counts.get("CacheException"),
        "every corrupted header or trailer must be refused: " + outcomes.counts);
  }

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "fake"})
  void valuesOfTheLayoutsBeforeOwnerAndChecksumAreRefusedByName(String backend) {
    Setup s = open(backend);
    Cache<String, String> cache = valuesWithK(s);
    String key = RawObjects.storeKey(TENANT, "values", "k");
    byte[] good = s.raw.get(key);
    byte[] payload = Arrays.copyOfRange(good, Headers.SIZE, good.length - Headers.TRAILER);
    // layout 2, as an older provider wrote it: a 16-byte header, the payload, no trailer
    ByteBuffer two = ByteBuffer.allocate(16 + payload.length);
    two.put((byte) 0x4D).put((byte) 2).put(good[2]).put((byte) 0).putLong(Long.MAX_VALUE);
    two.putInt(payload.length).put(payload);
    // layout 3: a 24-byte header ending in a write id, the payload, the write id again
    ByteBuffer three = ByteBuffer.allocate(24 + payload.length + 8);
    three.put((byte) 0x4D).put((byte) 3).put(good[2]).put((byte) 0).putLong(Long.MAX_VALUE);
    three.putInt(payload.length).putLong(42).put(payload).putLong(42);
    for (ByteBuffer old : List.of(two, three)) {
      s.raw.put(key, old.array());
      CacheException e = assertThrows(CacheException.class, () -> cache.get("k"));
      assertTrue(
          e.getMessage()
              .contains(
                  "has an older header layout, written by an older version of this provider"
                      + " (layout "
                      + old.get(1)),
          e.getMessage());
      assertTrue(e.getMessage().contains("remove the key or clear the cache"), e.getMessage());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "fake"})
  void truncatedAndExtendedObjectsAtEveryLength(String backend) {
    Setup s = open(backend);
    Cache<String, String> cache = valuesWithK(s);
    String key = RawObjects.storeKey(TENANT, "values", "k");
    byte[] good = s.raw.get(key);
    Outcomes outcomes = new Outcomes();
    for (int length = 1; length < good.length + 16; length++) {
      if (length == good.length) {
        continue;
      }
      s.raw.put(key, Arrays.copyOf(good, length));
      outcomes.read("length " + length, () -> cache.get("k"), VALUE, false);
    }
    System.out.printf(
        "%s: %d truncations/extensions: %s%n", backend, outcomes.cases, outcomes.counts);
    assertEquals(Integer.valueOf(outcomes.cases), outcomes.counts.get("CacheException"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "fake"})
  void foreignObjectsWithoutOurHeader(String backend) {
    Setup s = open(backend);
    Cache<String, Object> cache =
        s.manager.createCache(
            "objects",
            new MutableConfiguration<String, Object>().setTypes(String.class, Object.class));
    String key = RawObjects.storeKey(TENANT, "objects", "k");
    List<byte[]> foreign = new ArrayList<>();
    foreign.add("plain text another program stored".getBytes(StandardCharsets.UTF_8));
    foreign.add(Gadgets.serialize("a bare Java serialization stream"));
    foreign.add("{\"json\": true}".getBytes(StandardCharsets.UTF_8));
    Random random = new Random(14);
    for (int length :
        new int[] {
          1, 2, 3, 7, 15, 16, 17, 23, 24, 25, 31, 32, 33, 64, 1000, 4096, 65536, 1 << 20
        }) {
      for (int n = 0; n < 4; n++) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        if (n == 1) {
          bytes[0] = 0x4D; // our magic, the rest random
        }
        if (n >= 2 && length > 1) {
          bytes[0] = 0x4D; // our magic and layout, the rest random
          bytes[1] = Headers.LAYOUT;
        }
        if (n == 3 && length >= Headers.SIZE + Headers.TRAILER) {
          // magic, layout, a consistent length and the key's owner hash: only the checksum stands
          // between
          ByteBuffer.wrap(bytes).putInt(12, length - Headers.SIZE - Headers.TRAILER);
          ByteBuffer.wrap(bytes).putLong(16, Headers.owner(key));
        }
        foreign.add(bytes);
      }
    }
    Outcomes outcomes = new Outcomes();
    int i = 0;
    for (byte[] bytes : foreign) {
      s.raw.put(key, bytes);
      outcomes.read(
          "foreign object " + i++ + " of " + bytes.length + " bytes",
          () -> cache.get("k"),
          "(no value expected)",
          false);
    }
    System.out.printf("%s: %d foreign objects: %s%n", backend, outcomes.cases, outcomes.counts);
    assertEquals(Integer.valueOf(outcomes.cases), outcomes.counts.get("CacheException"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "fake"})
  void anotherKeysWholeValueUnderThisKeyIsNeverReturnedAndIsCounted(String backend)
      throws Exception {
    Setup s = open(backend);
    Cache<String, String> cache = valuesWithK(s);
    cache.put("j", "a value of the same length as k's"); // same length: only the owner differs
    String key = RawObjects.storeKey(TENANT, "values", "k");
    byte[] js = s.raw.get(RawObjects.storeKey(TENANT, "values", "j"));
    s.raw.put(key, js); // what a read racing a reuse of k's memory by j's put would copy
    s.manager.enableStatistics("values", true);
    CacheException e = assertThrows(CacheException.class, () -> cache.get("k"));
    assertTrue(e.getMessage().contains("belongs to another key, cache or tenant"), e.getMessage());
    javax.management.ObjectName bean =
        new javax.management.ObjectName(
            "javax.cache:type=CacheStatistics,CacheManager="
                + s.manager.getURI().toString().replaceAll(",|:|=|\n", ".")
                + ",Cache=values");
    Object counted =
        java.lang.management.ManagementFactory.getPlatformMBeanServer()
            .getAttribute(bean, "IntegrityMismatches");
    assertEquals(6L, counted, "one read and five repeats, each counted");
  }

  @ParameterizedTest
  @ValueSource(strings = {"in-process", "fake"})
  void anotherCachesValuesAreNotReadAsOurs(String backend) {
    Setup s = open(backend);
    Cache<String, String> strings =
        s.manager.createCache(
            "strings",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    Cache<String, Long> longs =
        s.manager.createCache(
            "longs", new MutableConfiguration<String, Long>().setTypes(String.class, Long.class));
    Cache<String, byte[]> bytes =
        s.manager.createCache(
            "bytes",
            new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
    Cache<String, java.util.ArrayList> lists =
        s.manager.createCache(
            "lists",
            new MutableConfiguration<String, java.util.ArrayList>()
                .setTypes(String.class, java.util.ArrayList.class));
    strings.put("k", "12345678"); // 8 bytes: the size of a Long's payload
    longs.put("k", 42L);
    bytes.put("k", new byte[] {1, 2, 3});
    lists.put("k", new ArrayList<>(List.of("x")));
    List<String> names = List.of("strings", "longs", "bytes", "lists");
    List<Cache<String, ?>> caches = List.of(strings, longs, bytes, lists);
    List<byte[]> raws = new ArrayList<>();
    for (String name : names) {
      raws.add(s.raw.get(RawObjects.storeKey(TENANT, name, "k")));
    }
    Outcomes outcomes = new Outcomes();
    for (int from = 0; from < names.size(); from++) {
      for (int to = 0; to < names.size(); to++) {
        if (from == to) {
          continue;
        }
        s.raw.put(RawObjects.storeKey(TENANT, names.get(to), "k"), raws.get(from));
        Cache<String, ?> target = caches.get(to);
        outcomes.read(
            names.get(from) + "'s value in " + names.get(to),
            () -> target.get("k"),
            "(no value expected)",
            false);
      }
    }
    System.out.printf("%s: %d cross-cache values: %s%n", backend, outcomes.cases, outcomes.counts);
    assertEquals(Integer.valueOf(outcomes.cases), outcomes.counts.get("CacheException"));
  }
}
