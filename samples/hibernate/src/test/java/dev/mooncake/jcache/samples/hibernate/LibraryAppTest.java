package dev.mooncake.jcache.samples.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The main program runs and sees what its README promises. */
class LibraryAppTest {

  @Test
  void mainProgramShowsEntityAndQueryCacheHits() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    LibraryApp.Summary summary =
        LibraryApp.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String output = bytes.toString(StandardCharsets.UTF_8);

    assertEquals(0, summary.secondLoadStatements(), output);
    assertTrue(summary.entityCacheHits() >= 1, output);
    assertEquals(1, summary.queryCacheHits(), output);
    assertEquals(1, summary.queryCacheMissesAfterUpdate(), output);
    assertTrue(output.contains("load 2 (new session)"), output);
  }
}
