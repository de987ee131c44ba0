package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one-line text form of operations and history files. */
class OperationTest {
  private static final List<Operation> HISTORY =
      List.of(
          Operation.of("p1/0", "k1", OpKind.PUT, "v1", 100, 250, "ok"),
          Operation.of("p2/3", "k1", OpKind.GET, null, 120, 300, "null"),
          Operation.replaceIfEquals("p1/0", "k2", "v1", "v2", 400, 500, "false"),
          Operation.unknown("p3/1", "k2", OpKind.INVOKE, null, null, 450),
          new Operation("p3/2", "k1", OpKind.REMOVE, null, null, 460, 470, null),
          Operation.loseSegment("seg-1", 600, 900),
          Operation.loseAll(1000, Operation.OPEN));

  @Test
  void linesRoundTrip() {
    for (Operation op : HISTORY) {
      assertEquals(op, Operation.parse(op.toLine()));
    }
    assertEquals("p1/0\tk2\tREPLACE_IF_EQUALS\tv1\tv2\t400\t500\tfalse", HISTORY.get(2).toLine());
    assertEquals("p3/1\tk2\tINVOKE\t\\N\t\\N\t450\t\\N\t\\N", HISTORY.get(3).toLine());
  }

  @Test
  void filesRoundTrip(@TempDir Path dir) {
    Path file = dir.resolve("history.tsv");
    HistoryFile.write(file, HISTORY);
    assertEquals(HISTORY, HistoryFile.read(file));
  }

  @Test
  void fieldsThatCannotBeOneLineAreRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> Operation.of("p1", "k", OpKind.PUT, "a\tb", 0, 1, "ok").toLine());
    assertThrows(
        IllegalArgumentException.class,
        () -> Operation.of("p1", "k", OpKind.PUT, "\\N", 0, 1, "ok").toLine());
    assertThrows(IllegalArgumentException.class, () -> Operation.parse("p1\tk\tGET"));
  }

  @Test
  void unknownOutcomes() {
    assertTrue(HISTORY.get(3).outcomeUnknown());
    assertTrue(HISTORY.get(4).outcomeUnknown()); // no result, whatever its completion time
    assertEquals("p3/1 [+0.000 ms, ?] INVOKE(null) -> ?", HISTORY.get(3).describe(450));
    assertEquals(
        "p1/0 [-0.000 ms, +0.000 ms] REPLACE_IF_EQUALS(v1, v2) -> false",
        HISTORY.get(2).describe(450));
  }
}
