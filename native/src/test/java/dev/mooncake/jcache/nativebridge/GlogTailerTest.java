package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Following glog's files: only INFO files, headers skipped, continuations, appends, rotation. */
class GlogTailerTest {
  private static final String HEADER =
      "Log file created at: 2026/12/01 09:59:57\n"
          + "Running on machine: vm\n"
          + "Running duration (h:mm:ss): 0:00:00\n"
          + "Log line format: [IWEF]yyyymmdd hh:mm:ss.uuuuuu threadid file:line] msg\n";

  private final List<String> lines = new CopyOnWriteArrayList<>();

  private void append(Path file, String text) throws Exception {
    Files.writeString(
        file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  @Test
  void forwardsEachRecordOnceWithItsSeverity(@TempDir Path dir) throws Exception {
    Path info = dir.resolve("mooncake-transfer-engine.vm.root.log.INFO.20261201-095957.14623");
    Path warning =
        dir.resolve("mooncake-transfer-engine.vm.root.log.WARNING.20261201-095957.14623");
    String records =
        "W20261201 09:59:57.687924 14623 g.cpp:10] after init warning\n"
            + "E20261201 09:59:57.688412 14623 g.cpp:12] multi\nline\n";
    append(info, HEADER + records);
    append(warning, HEADER + records);
    Files.createSymbolicLink(dir.resolve("mooncake-transfer-engine.INFO"), info.getFileName());
    GlogTailer tailer = new GlogTailer(dir, (s, t) -> lines.add(s + " " + t));
    tailer.drain();
    assertEquals(List.of("W g.cpp:10] after init warning", "E g.cpp:12] multi", "E line"), lines);

    append(
        info,
        "I1201 10:00:00.000001  77 old.cc:1] no year in the prefix\nE20261201 10:00:00.000002 77 x.cc:2] half");
    tailer.drain();
    assertEquals("I old.cc:1] no year in the prefix", lines.get(3));
    assertEquals(4, lines.size(), "an unfinished line waits: " + lines);
    append(info, " done\n");
    Path rotated = dir.resolve("mooncake-transfer-engine.vm.root.log.INFO.20261201-110000.14623");
    append(rotated, HEADER + "F20261201 11:00:00.000000 1 y.cc:3] after rotation\n");
    tailer.drain();
    assertEquals(List.of("E x.cc:2] half done", "F y.cc:3] after rotation"), lines.subList(4, 6));
    tailer.close();
    assertEquals(6, lines.size());
  }

  @Test
  void theThreadForwardsAppendedLinesAndCloseTheLastPartialOne(@TempDir Path dir) throws Exception {
    Path info = dir.resolve("p.h.u.log.INFO.20261201-095957.1");
    append(info, HEADER);
    CountDownLatch forwarded = new CountDownLatch(1);
    GlogTailer tailer =
        new GlogTailer(
            dir,
            (s, t) -> {
              lines.add(s + " " + t);
              forwarded.countDown();
            });
    tailer.start();
    append(info, "E20261201 09:59:58.000000 1 a.cc:1] real error\n");
    assertTrue(forwarded.await(30, TimeUnit.SECONDS), "forwarded by the thread");
    append(info, "W20261201 09:59:58.000001 1 a.cc:2] no newline yet");
    tailer.close();
    assertEquals(List.of("E a.cc:1] real error", "W a.cc:2] no newline yet"), lines);
  }

  /**
   * What a closing store relies on: drain() forwards what is written when it is called, before it
   * returns, whatever the thread is doing (waiting for its next wake-up or draining too), each line
   * once; after close() a drain still forwards (a store closing in its shutdown hook after the
   * tailer's own hook ran).
   */
  @Test
  void drainForwardsWhatIsWrittenBeforeItReturnsEvenAfterClose(@TempDir Path dir) throws Exception {
    Path info = dir.resolve("p.h.u.log.INFO.20261201-095957.1");
    append(info, HEADER + "W20261201 09:59:58.000000 1 a.cc:1] first\n");
    CountDownLatch firstSeen = new CountDownLatch(1);
    GlogTailer tailer =
        new GlogTailer(
            dir,
            (s, t) -> {
              lines.add(s + " " + t);
              firstSeen.countDown();
            });
    tailer.start();
    assertTrue(firstSeen.await(30, TimeUnit.SECONDS), "forwarded by the thread");
    append(info, "E20261201 09:59:59.000000 1 a.cc:2] during close\n");
    tailer.drain();
    assertEquals(List.of("W a.cc:1] first", "E a.cc:2] during close"), lines);
    tailer.close();
    append(info, "I20261201 09:59:59.000001 1 a.cc:3] after the hook\n");
    tailer.drain();
    assertEquals(
        List.of("W a.cc:1] first", "E a.cc:2] during close", "I a.cc:3] after the hook"), lines);
  }

  @Test
  void onlyTheKnownBenignLinesAreDemoted() {
    assertTrue(
        GlogToSlf4j.benign("transfer_metadata.cpp:1029] Local segment descriptor not found"));
    assertTrue(
        GlogToSlf4j.benign(
            "real_client.cpp:3485] User buffer too small. Required: 1048592, provided: 4096"));
    assertTrue(
        GlogToSlf4j.benign(
            "real_client.cpp:5136] Buffer too small for key 'mcj/a/b/c': required=1056,"
                + " available=31"));
    assertFalse(GlogToSlf4j.benign("real_client.cpp:5213] BatchGet failed for key 'k'"));
    assertFalse(GlogToSlf4j.benign("client.cpp:3] Failed to mount segment"));
    assertFalse(GlogToSlf4j.benign("x.cc:1] error: Local segment descriptor not found"));
  }
}
