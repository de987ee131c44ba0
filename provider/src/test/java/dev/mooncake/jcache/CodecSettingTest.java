package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-cache {@code codec} of the config file takes effect, or is refused at creation. */
class CodecSettingTest {
  private final MooncakeCachingProvider provider = new MooncakeCachingProvider();

  @AfterEach
  void close() {
    provider.close();
  }

  private CacheManager manager(Path dir) throws Exception {
    Path config = dir.resolve("mooncake.json");
    Files.writeString(config, """
        {"caches": {
          "pages": {"value_type": "byte[]", "codec": "bytes"},
          "names": {"codec": "string"},
          "numbers": {"key_type": "java.lang.String", "value_type": "java.lang.Integer",
                      "codec": "string"}}}
        """);
    return provider.getCacheManager(config.toUri(), getClass().getClassLoader());
  }

  @Test
  void aDeclaredCodecWritesItsTypeAndRefusesOthers(@TempDir Path dir) throws Exception {
    CacheManager manager = manager(dir);
    Cache<Object, byte[]> pages = manager.getCache("pages");
    pages.put("p", new byte[] {1, 2, 3});
    assertArrayEquals(new byte[] {1, 2, 3}, pages.get("p"));

    Cache<Object, Object> names = manager.getCache("names");
    names.put("n", "Ada");
    assertEquals("Ada", names.get("n"));
    ClassCastException refused = assertThrows(ClassCastException.class, () -> names.put("m", 42));
    assertTrue(refused.getMessage().contains("codec 'string'"), refused.getMessage());
    assertEquals(null, names.get("m"), "a refused value was stored");
  }

  @Test
  void aCodecThatCannotHoldTheValueTypeIsRefusedAtCreation(@TempDir Path dir) throws Exception {
    CacheManager manager = manager(dir);
    CacheException e = assertThrows(CacheException.class, () -> manager.createCache("numbers",
        new MutableConfiguration<String, Integer>().setTypes(String.class, Integer.class)));
    assertTrue(e.getMessage().contains("codec 'string'"), e.getMessage());
    assertTrue(e.getMessage().contains("java.lang.Integer"), e.getMessage());
  }
}
