package dev.mooncake.jcache.samples.quickstart;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class QuickstartTest {

  @Test
  void tourPrintsEveryStep() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Quickstart.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);

    assertTrue(out.contains("provider:      dev.mooncake.jcache.spi.MooncakeCachingProvider"), out);
    assertTrue(out.contains("get(en):       Hello"), out);
    assertTrue(out.contains("putIfAbsent:   false (kept Hello)"), out);
    assertTrue(out.contains("replace:       true"), out);
    assertTrue(out.contains("invoke:        HELLO, WORLD"), out);
    assertTrue(out.contains("listener:      created fr = Bonjour"), out);
    assertTrue(out.contains("listener:      updated fr = Bonjour -> Salut"), out);
    assertTrue(out.contains("iterate:       de = Hallo"), out);
    assertTrue(out.contains("read-through:  get(12) = 12² = 144"), out);
    assertTrue(out.contains("cached:        containsKey(12) = true"), out);
    assertTrue(out.contains("expired:       containsKey(12) after 300 ms = false"), out);
    assertTrue(out.contains("statistics:    hits=9 misses=1 puts=6"), out);
    assertTrue(out.contains("listener:      created es = Hola"), out);
    assertTrue(out.contains("async:         getAsync(es) after putAsync = Hola"), out);
    assertTrue(out.contains("done."), out);
  }
}
