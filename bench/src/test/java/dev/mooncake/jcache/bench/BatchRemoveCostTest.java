package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The pattern a batch remove by regex sends matches exactly its keys (java.util.regex here). */
class BatchRemoveCostTest {
  @Test
  void theAlternationMatchesExactlyTheKeysAndEscapesMetacharacters() {
    String[] keys = {"mcj/t/c/a.b", "mcj/t/c/x+y", "mcj/t/c/(z)"};
    String pattern = BatchRemoveCost.exactAlternation(keys);
    assertEquals("^(?:mcj/t/c/a\\.b|mcj/t/c/x\\+y|mcj/t/c/\\(z\\))$", pattern);
    Pattern compiled = Pattern.compile(pattern);
    for (String key : keys) {
      assertTrue(compiled.matcher(key).find(), key);
    }
    // anchored: no prefix, suffix or wildcard reading of a key matches
    assertFalse(compiled.matcher("mcj/t/c/a.b/decoy").find());
    assertFalse(compiled.matcher("x/mcj/t/c/a.b").find());
    assertFalse(compiled.matcher("mcj/t/c/aXb").find());
    assertFalse(compiled.matcher("mcj/t/c/xxy").find());
  }
}
