package dev.mooncake.jcache.internal.event.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class KeyPrefixesTest {
  @Test
  void findsTheCacheNamespaceOfOurKeysOnly() {
    assertEquals("mcj/dA/Yw/", KeyPrefixes.cachePrefix("mcj/dA/Yw/AWs"));
    assertNull(KeyPrefixes.cachePrefix("smoke_key"));
    assertNull(KeyPrefixes.cachePrefix("mcj-probe/123"));
    assertNull(KeyPrefixes.cachePrefix("mcj/dA"));
    assertNull(KeyPrefixes.cachePrefix("mcj/dA/Yw/"));
    assertNull(KeyPrefixes.cachePrefix(null));
  }
}
