package dev.mooncake.jcache.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.ReliabilityHooks;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ObjectInputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile serialized values, read with the default allow-list: a real commons-collections gadget
 * chain and deserialization bombs. Figures go to docs/reliability.md.
 */
class DeserializationAttackTest {
  private static final String GADGET_PACKAGE = "org.apache.commons.collections";
  private static final int ATTEMPTS = 100;

  @TempDir Path dir;
  private final CachingProvider provider = Caching.getCachingProvider();
  private final java.util.List<AutoCloseable> opened = new java.util.ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
  }

  private static Cache<String, Object> objects(CacheManager manager) {
    return manager.createCache(
        "objects", new MutableConfiguration<String, Object>().setTypes(String.class, Object.class));
  }

  private CacheManager manager(URI uri, ClassLoader loader) {
    CacheManager manager = provider.getCacheManager(uri, loader);
    opened.add(manager);
    return manager;
  }

  @Test
  void theGadgetChainIsRealWithoutTheFilter() throws Exception {
    String property = "reliability.gadget.unfiltered";
    System.clearProperty(property);
    byte[] bytes = Gadgets.serialize(Gadgets.commonsCollectionsChain(property));
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      in.readObject();
    }
    assertEquals(
        "fired", System.getProperty(property), "the chain must work, else the test proves nothing");
    System.clearProperty(property);
  }

  /**
   * Why the provider judges class names before loading: with an ObjectInputFilter alone (what the
   * provider had), ObjectInputStream resolves the class through the loader first and asks the
   * filter after, so a refused gadget class is still loaded by the reading class loader.
   */
  @Test
  void aFilterAloneLoadsTheRefusedClassBeforeRefusingIt() throws Exception {
    byte[] bytes = Gadgets.serialize(Gadgets.commonsCollectionsChain("reliability.gadget.jdk"));
    RecordingClassLoader loader = new RecordingClassLoader(getClass().getClassLoader());
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes)) {
          @Override
          protected Class<?> resolveClass(java.io.ObjectStreamClass desc)
              throws java.io.IOException, ClassNotFoundException {
            return Class.forName(desc.getName(), false, loader);
          }
        }) {
      in.setObjectInputFilter(
          info ->
              info.serialClass() == null
                      || info.serialClass() == java.util.HashMap.class
                      || info.serialClass().isArray() // HashMap checks its Map.Entry[] table
                  ? java.io.ObjectInputFilter.Status.ALLOWED
                  : java.io.ObjectInputFilter.Status.REJECTED);
      assertThrows(java.io.InvalidClassException.class, in::readObject);
    }
    assertNull(System.getProperty("reliability.gadget.jdk"));
    assertEquals(
        List.of("org.apache.commons.collections.keyvalue.TiedMapEntry"),
        loader.requestedUnder(GADGET_PACKAGE),
        "the JDK resolves a class before its filter sees it");
  }

  @Test
  void aGadgetChainWrittenByOneManagerIsRefusedByAnotherOverTheMooncakeBackend() {
    String property = "reliability.gadget.mooncake";
    URI writerUri = Configs.fake(dir, "shared", "");
    URI readerUri = Configs.fake(dir, "shared", "");
    Cache<String, Object> writer = objects(manager(writerUri, getClass().getClassLoader()));
    RecordingClassLoader loader = new RecordingClassLoader(getClass().getClassLoader());
    Cache<String, Object> reader = objects(manager(readerUri, loader));
    refusedEveryTime(writer, reader, loader, property);
  }

  @Test
  void aGadgetChainWrittenByOneManagerIsRefusedByAnotherOnTheInProcessStore() {
    String property = "reliability.gadget.inprocess";
    URI uri = Configs.inProcess(dir, "shared", "");
    ObjectStore store = ReliabilityHooks.openStore(uri);
    opened.add(store);
    CacheManager writerManager =
        ReliabilityHooks.managerOn(uri, getClass().getClassLoader(), store);
    opened.add(0, writerManager);
    RecordingClassLoader loader = new RecordingClassLoader(getClass().getClassLoader());
    CacheManager readerManager = ReliabilityHooks.managerOn(uri, loader, store);
    opened.add(0, readerManager);
    refusedEveryTime(objects(writerManager), objects(readerManager), loader, property);
  }

  private void refusedEveryTime(
      Cache<String, Object> writer,
      Cache<String, Object> reader,
      RecordingClassLoader loader,
      String property) {
    System.clearProperty(property);
    writer.put("payload", Gadgets.commonsCollectionsChain(property));
    loader.forget();
    long start = System.nanoTime();
    for (int i = 0; i < ATTEMPTS; i++) {
      CacheException refused = assertThrows(CacheException.class, () -> reader.get("payload"));
      assertTrue(
          refused.getMessage().contains(GADGET_PACKAGE)
              && refused.getMessage().contains("deserialization_allow_list"),
          refused.getMessage());
    }
    long micros = (System.nanoTime() - start) / 1000 / ATTEMPTS;
    assertNull(System.getProperty(property), "the gadget chain ran");
    assertEquals(
        List.of(),
        loader.requestedUnder(GADGET_PACKAGE),
        "gadget classes were loaded through the reading manager's class loader");
    assertTrue(loader.requested().contains("java.util.HashMap"), loader.requested().toString());
    System.out.printf(
        "gadget chain: %d reads refused, %d µs each, classes asked of the"
            + " reader's loader: %s%n",
        ATTEMPTS, micros, loader.requested());
  }

  // Bombs -----------------------------------------------------------------------------------

  private Cache<String, Object> inProcessObjects() {
    return objects(
        manager(
            Configs.inProcess(dir, "bombs", "\"global_segment_size\": \"256MB\""),
            getClass().getClassLoader()));
  }

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /**
   * This thread's CPU time in milliseconds. The time bounds below are on it, not on the wall clock:
   * the work a bomb makes is done on the reading thread (the in-process store reads on the caller's
   * thread), and its CPU time does not grow when other builds share the two cores (wall time did:
   * 2,983 ms for a 138 ms read at load average ~15). A filter without its limits still fails them:
   * the 25-level HashSet bomb costs about 5 s of CPU, the 30-level one minutes.
   */
  private static long cpuMillis() {
    return THREADS.getCurrentThreadCpuTime() / 1_000_000;
  }

  /** Bytes allocated and CPU milliseconds taken by one refused get (this thread's). */
  private static long[] refusedWithin(Cache<String, Object> cache, String key, String fragment) {
    long thread = Thread.currentThread().getId();
    long allocated = THREADS.getThreadAllocatedBytes(thread);
    long start = cpuMillis();
    CacheException refused = assertThrows(CacheException.class, () -> cache.get(key));
    long millis = cpuMillis() - start;
    long bytes = THREADS.getThreadAllocatedBytes(thread) - allocated;
    assertTrue(refused.getMessage().contains(fragment), refused.getMessage());
    return new long[] {bytes, millis};
  }

  @Test
  void deepGraphsAreRefusedByTheDepthLimit() {
    Cache<String, Object> cache = inProcessObjects();
    for (int depth : new int[] {21, 65, 200}) {
      cache.put("arrays", Gadgets.deepArrays(depth));
      long[] a = refusedWithin(cache, "arrays", "exceeds the limits");
      cache.put("lists", Gadgets.deepLists(depth));
      long[] l = refusedWithin(cache, "lists", "exceeds the limits");
      System.out.printf(
          "depth %d: arrays %d ms CPU %d B, lists %d ms CPU %d B%n", depth, a[1], a[0], l[1], l[0]);
      assertTrue(a[1] < 2_000 && l[1] < 2_000, "took too long");
    }
    cache.put("fine", Gadgets.deepArrays(15));
    assertTrue(cache.get("fine") instanceof Object[], "a graph within the limits must read");
  }

  @Test
  void wideGraphsAreRefusedByTheReferenceLimit() {
    Cache<String, Object> cache = inProcessObjects();
    cache.put("wide", Gadgets.wideList(1_100_000));
    long[] w = refusedWithin(cache, "wide", "exceeds the limits");
    System.out.printf(
        "wide list of 1.1M Longs: refused in %d ms CPU, %d MB allocated%n", w[1], w[0] >> 20);
    assertTrue(w[1] < 10_000, "took too long");
  }

  @Test
  void aHugeDeclaredArrayIsRefusedBeforeItIsAllocated() {
    URI uri = Configs.inProcess(dir, "bombs", "");
    ObjectStore store = ReliabilityHooks.openStore(uri);
    opened.add(store);
    CacheManager manager = ReliabilityHooks.managerOn(uri, getClass().getClassLoader(), store);
    opened.add(0, manager);
    Cache<String, Object> cache = objects(manager);
    byte[] stream = Gadgets.hugeLongArrayStream(99_999_999);
    try (RawObjects raw = RawObjects.on(store)) {
      String key = RawObjects.storeKey("bombs", "objects", "huge");
      raw.put(key, Headers.object(Headers.JAVA_SERIALIZATION, stream, key));
      long[] h = refusedWithin(cache, "huge", "declares an array of 99999999 elements");
      System.out.printf(
          "long[99,999,999] declared in %d bytes: refused in %d ms CPU, %d KB" + " allocated%n",
          stream.length, h[1], h[0] >> 10);
      assertTrue(
          h[0] < 16L << 20, "allocated " + h[0] + " bytes for a " + stream.length + "-byte stream");
    }
  }

  @Test
  void theHashSetBombIsRefusedWithinBoundedTime() {
    Cache<String, Object> cache = inProcessObjects();
    int read = 0;
    for (int levels : new int[] {10, 15, 17, 18, 19, 20, 25, 31, 64, 100}) {
      cache.put("bomb", Gadgets.hashSetBomb(levels));
      long start = cpuMillis();
      String outcome;
      boolean refused = false;
      try {
        cache.get("bomb");
        outcome = "read";
        read++;
      } catch (CacheException e) {
        outcome = "refused: " + e.getMessage();
        refused = true;
      }
      long millis = cpuMillis() - start;
      System.out.printf("hash-set bomb, %d levels: %s in %d ms CPU%n", levels, outcome, millis);
      // The work bound: every bomb of 20 levels or more (2^20 and more hashings) is refused by
      // the depth limit, whatever the machine's load; the time bound is on this thread's CPU.
      assertTrue(refused || levels < 20, levels + " levels were read: " + outcome);
      assertTrue(millis < 2_000, levels + " levels took " + millis + " ms of CPU");
    }
    assertTrue(read > 0, "bombs within the depth limit are read (slowly but boundedly)");
  }
}
