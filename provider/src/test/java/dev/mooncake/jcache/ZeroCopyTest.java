package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ModifiedExpiryPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The zero-copy API, on the in-process store and on the Mooncake backend (fake library). */
class ZeroCopyTest {
  private final JCacheFixture fixture = new JCacheFixture();

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  static Stream<Arguments> backends() {
    return Stream.of(
        Arguments.of("in-process", (Supplier<MooncakeConfig>) TestConfigs::inProcess),
        Arguments.of("mooncake", (Supplier<MooncakeConfig>) TestConfigs::mooncakeFixture));
  }

  private Cache<String, byte[]> cache(Supplier<MooncakeConfig> config,
      MutableConfiguration<String, byte[]> configuration) {
    return fixture.manager(config.get()).createCache("blobs",
        configuration.setTypes(String.class, byte[].class));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("backends")
  void putAndGetCopyNothingInJava(String backend, Supplier<MooncakeConfig> config) {
    Cache<String, byte[]> cache = cache(config, new MutableConfiguration<>());
    @SuppressWarnings("unchecked")
    ZeroCopyCache<String> zeroCopy = cache.unwrap(ZeroCopyCache.class);
    int size = 256 * 1024;
    ByteBuffer value = zeroCopy.allocate(size);
    for (int i = 0; i < size; i++) {
      value.put(ZeroCopyCache.HEADER_BYTES + i, (byte) (i * 31));
    }
    long copiedBefore = zeroCopy.javaCopiedBytes();

    zeroCopy.put("tensor", value);
    ByteBuffer destination = zeroCopy.allocate(size);
    destination.position(0).limit(destination.capacity());
    int length = zeroCopy.get("tensor", destination);

    assertEquals(size, length);
    assertEquals(ZeroCopyCache.HEADER_BYTES, destination.position());
    assertEquals(size, destination.remaining());
    for (int i = 0; i < size; i += 4093) {
      assertEquals((byte) (i * 31), destination.get(destination.position() + i), "byte " + i);
    }
    assertEquals(copiedBefore, zeroCopy.javaCopiedBytes(), "bytes were copied in Java");

    // The value reads back through the normal API as a byte[] (which does copy).
    byte[] viaApi = cache.get("tensor");
    assertEquals(size, viaApi.length);
    assertEquals((byte) (4093 * 31), viaApi[4093]);
    assertTrue(zeroCopy.javaCopiedBytes() >= copiedBefore + size);
    zeroCopy.release(value);
    zeroCopy.release(destination);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("backends")
  void missLeavesTheDestinationAlone(String backend, Supplier<MooncakeConfig> config) {
    Cache<String, byte[]> cache = cache(config, new MutableConfiguration<>());
    @SuppressWarnings("unchecked")
    ZeroCopyCache<String> zeroCopy = cache.unwrap(ZeroCopyCache.class);
    ByteBuffer destination = ByteBuffer.allocateDirect(1024).position(10).limit(900);
    assertEquals(-1, zeroCopy.get("nothing", destination));
    assertEquals(10, destination.position());
    assertEquals(900, destination.limit());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("backends")
  void aCallersOwnDirectBufferWorksAndValuesFromTheApiReadBack(
      String backend, Supplier<MooncakeConfig> config) {
    Cache<String, byte[]> cache = cache(config, new MutableConfiguration<>());
    @SuppressWarnings("unchecked")
    ZeroCopyCache<String> zeroCopy = cache.unwrap(ZeroCopyCache.class);
    cache.put("from-api", new byte[] {1, 2, 3});
    ByteBuffer own = ByteBuffer.allocateDirect(64);
    assertEquals(3, zeroCopy.get("from-api", own));
    byte[] read = new byte[3];
    own.get(read);
    assertArrayEquals(new byte[] {1, 2, 3}, read);

    ByteBuffer tooSmall = ByteBuffer.allocateDirect(8);
    assertThrows(javax.cache.CacheException.class, () -> zeroCopy.get("from-api", tooSmall));
    ByteBuffer noRoom = ByteBuffer.allocateDirect(8);
    assertThrows(IllegalArgumentException.class, () -> zeroCopy.put("k", noRoom));
  }

  @Test
  void modifiedExpiryIsHonoured() throws Exception {
    Cache<String, byte[]> cache = cache(TestConfigs::inProcess, new MutableConfiguration<String,
        byte[]>().setExpiryPolicyFactory(
            ModifiedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, 50))));
    @SuppressWarnings("unchecked")
    ZeroCopyCache<String> zeroCopy = cache.unwrap(ZeroCopyCache.class);
    ByteBuffer value = zeroCopy.allocate(4);
    zeroCopy.put("k", value);
    fixture.ticker.advanceMillis(120);
    assertEquals(-1, zeroCopy.get("k", ByteBuffer.allocateDirect(64)));
  }

  @Test
  void refusedWhereItCannotKeepTheSemantics() {
    Cache<String, byte[]> accessed = cache(TestConfigs::inProcess,
        new MutableConfiguration<String, byte[]>().setExpiryPolicyFactory(
            AccessedExpiryPolicy.factoryOf(Duration.ONE_MINUTE)));
    assertThrows(IllegalArgumentException.class, () -> accessed.unwrap(ZeroCopyCache.class));

    Cache<String, String> strings = fixture.manager(TestConfigs.inProcess()).createCache(
        "strings", new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    assertThrows(IllegalArgumentException.class, () -> strings.unwrap(ZeroCopyCache.class));

    Cache<String, byte[]> listened = fixture.manager(TestConfigs.inProcess()).createCache(
        "listened", new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
    @SuppressWarnings("unchecked")
    ZeroCopyCache<String> zeroCopy = listened.unwrap(ZeroCopyCache.class);
    listened.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
        FactoryBuilder.factoryOf(NoOpListener.class), null, false, true));
    assertThrows(UnsupportedOperationException.class,
        () -> zeroCopy.put("k", zeroCopy.allocate(1)));
  }

  public static final class NoOpListener implements CacheEntryCreatedListener<String, byte[]> {
    @Override
    public void onCreated(Iterable<javax.cache.event.CacheEntryEvent<? extends String,
        ? extends byte[]>> events) {}
  }
}
