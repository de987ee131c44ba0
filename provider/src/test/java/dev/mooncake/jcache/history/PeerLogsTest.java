package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import javax.cache.CacheException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PeerLogsTest {
  @TempDir Path dir;

  @Test
  void invocationsArePairedWithTheirOutcomes() throws Exception {
    Path file = dir.resolve("history-p0.log");
    try (PeerLog log = new PeerLog(file)) {
      long put = log.invoke("p0/0", OpKind.PUT, "k1", "k1/p0/0/0000001", null);
      log.completed(put, System.nanoTime(), "ok");
      long cas =
          log.invoke("p0/1", OpKind.REPLACE_IF_EQUALS, "k1", "k1/p0/0/0000001", "k1/p0/1/0000002");
      long get = log.invoke("p0/0", OpKind.GET, "k1", null, null);
      log.completed(get, System.nanoTime(), "k2/p1/0/0000007");
      log.torn(get, "k2/p1/0/0000007#k2/p1/0/9999");
      log.failed(cas, System.nanoTime(), new CacheException("lock\nnot acquired"));
      long killed = log.invoke("p0/0", OpKind.INVOKE, "k2", "k2/p0/0/0000003", null);
    }
    // a kill in the middle of a write leaves a line without its newline: not there
    Files.writeString(file, "C 3 12", StandardCharsets.UTF_8, StandardOpenOption.APPEND);

    PeerLogs.Parsed parsed = PeerLogs.read(file);
    List<Operation> ops = parsed.operations();
    assertEquals(4, ops.size());
    assertEquals("ok", ops.get(0).result());
    assertTrue(ops.get(0).completedNanos() >= ops.get(0).invokedNanos());
    Operation cas = ops.get(1);
    assertEquals(OpKind.REPLACE_IF_EQUALS, cas.kind());
    assertEquals("k1/p0/1/0000002", cas.argument2());
    assertTrue(cas.outcomeUnknown(), "a call that threw has an unknown outcome");
    assertEquals("k2/p1/0/0000007", ops.get(2).result());
    assertEquals(Operation.OPEN, ops.get(3).completedNanos(), "no completion: unknown");
    assertEquals(
        List.of("p0/1 REPLACE_IF_EQUALS k1: javax.cache.CacheException: lock not acquired"),
        parsed.failures());
    assertEquals(1, parsed.torn().size());
  }
}
