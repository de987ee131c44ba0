package dev.mooncake.jcache.internal.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps deadline arithmetic in {@code time/} (issue 41): outside it, no main source reads {@code
 * System.nanoTime} itself. A bound goes through {@link Deadline}, a clock through {@link Ticker}
 * (which tests inject). Only the files below may read it, each to measure how long something took
 * for statistics or a log line, never against a bound.
 */
class DeadlineOnlyInTimeTest {
  private static final Path MAIN = Path.of("src/main/java/dev/mooncake/jcache");

  /** Files (under dev/mooncake/jcache) that only measure, and what they measure. */
  static final Map<String, String> MEASURE_ONLY =
      Map.of(
          "internal/management/CacheStatistics.java",
          "JCache's average get/put/remove times (CacheStatisticsMXBean)",
          "internal/doctor/ConfigDoctor.java",
          "how long each check of the config doctor took, for its report",
          "internal/doctor/TopologyCheck.java",
          "how long taking and releasing a cluster lock took, for the doctor's report",
          "internal/backend/mooncake/MooncakeSetup.java",
          "how long Mooncake's destroy of the client took, for the shutdown log line",
          "internal/backend/mooncake/MooncakeStore.java",
          "how long the shutdown hook took to close the client, for its log line");

  // System.nanoTime() and System::nanoTime (a clock handed on), with or without spaces.
  private static final Pattern NANO_TIME = Pattern.compile("System\\s*(\\.|::)\\s*nanoTime\\b");
  private static final Pattern COMMENTS = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

  @Test
  void onlyTimeAndTheMeasuringFilesReadSystemNanoTime() {
    Set<String> readers = readersOfNanoTime(MAIN);
    TreeSet<String> outside = new TreeSet<>(readers);
    outside.removeIf(file -> file.startsWith("internal/time/") || MEASURE_ONLY.containsKey(file));
    assertEquals(
        List.of(),
        List.copyOf(outside),
        "these files read System.nanoTime outside time/: make the bound a time.Deadline (earlier(),"
            + " await(), waitOn(), ...) and the clock a time.Ticker; or, if the file only measures"
            + " an elapsed time for statistics or a log, add it to MEASURE_ONLY with its reason");
    TreeSet<String> stale = new TreeSet<>(MEASURE_ONLY.keySet());
    stale.removeAll(readers);
    assertEquals(
        List.of(), List.copyOf(stale), "MEASURE_ONLY names files that no longer read nanoTime");
  }

  @Test
  void theScanFindsAReadAndIgnoresComments() {
    assertTrue(reads("long start = System.nanoTime();"));
    assertTrue(reads("this(store, System :: nanoTime, pause);"));
    assertTrue(!reads("// System.nanoTime() until the lease ends\nlong x = ticker.nanos();"));
    assertTrue(!reads("/* until System.nanoTime()\n passes */ int y;"));
  }

  private static boolean reads(String source) {
    return NANO_TIME.matcher(COMMENTS.matcher(source).replaceAll(" ")).find();
  }

  /** Main source files (relative to {@code root}) that read System.nanoTime, outside comments. */
  private static Set<String> readersOfNanoTime(Path root) {
    assertTrue(Files.isDirectory(root), "no main sources at " + root.toAbsolutePath());
    Set<String> readers = new TreeSet<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (file.toString().endsWith(".java") && reads(Files.readString(file))) {
          readers.add(root.relativize(file).toString().replace('\\', '/'));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertTrue(
        readers.contains("internal/time/Ticker.java"),
        "the scan must see internal/time/Ticker.java");
    return readers;
  }
}
