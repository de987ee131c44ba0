package dev.mooncake.jcache.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Summarises a JFR recording (e.g. from {@code --prof jfr}): the hottest methods by CPU samples,
 * self and inclusive, and the heaviest allocation sites.
 *
 * <pre>
 * java -cp … dev.mooncake.jcache.bench.JfrHotspots profile.jfr [top=25] [filter-prefix]
 * </pre>
 *
 * With a filter prefix (e.g. {@code dev.mooncake}), the inclusive list keeps only those methods.
 */
public final class JfrHotspots {
  private JfrHotspots() {}

  public static void main(String[] args) throws IOException {
    Path file = Path.of(args[0]);
    int top = args.length > 1 ? Integer.parseInt(args[1]) : 25;
    String prefix = args.length > 2 ? args[2] : "";
    Map<String, Long> self = new HashMap<>();
    Map<String, Long> inclusive = new HashMap<>();
    Map<String, Long> allocBytes = new HashMap<>();
    long samples = 0;
    long allocTotal = 0;
    for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
      String type = event.getEventType().getName();
      RecordedStackTrace stack = event.getStackTrace();
      if (stack == null || stack.getFrames().isEmpty()) {
        continue;
      }
      List<RecordedFrame> frames = stack.getFrames();
      if (type.equals("jdk.ExecutionSample")) {
        samples++;
        self.merge(name(frames.get(0)), 1L, Long::sum);
        Set<String> seen = new HashSet<>();
        for (RecordedFrame frame : frames) {
          String n = name(frame);
          if (n.startsWith(prefix) && seen.add(n)) {
            inclusive.merge(n, 1L, Long::sum);
          }
        }
      } else if (type.equals("jdk.ObjectAllocationSample")) {
        long weight = event.getLong("weight");
        allocTotal += weight;
        String site = event.getClass("objectClass").getName() + " at " + firstOwn(frames, prefix);
        allocBytes.merge(site, weight, Long::sum);
      }
    }
    System.out.printf(Locale.ROOT, "%d CPU samples%n%nSelf:%n", samples);
    print(self, samples, top);
    System.out.printf(
        Locale.ROOT, "%nInclusive%s:%n", prefix.isEmpty() ? "" : " (" + prefix + "*)");
    print(inclusive, samples, top);
    System.out.printf(
        Locale.ROOT, "%nAllocation (sampled weight, %d MiB in all):%n", allocTotal >> 20);
    print(allocBytes, allocTotal, top);
  }

  private static String firstOwn(List<RecordedFrame> frames, String prefix) {
    String top = name(frames.get(0));
    if (prefix.isEmpty()) {
      return top;
    }
    for (RecordedFrame frame : frames) {
      String n = name(frame);
      if (n.startsWith(prefix)) {
        return n + (n.equals(top) ? "" : " (via " + top + ")");
      }
    }
    return top;
  }

  private static String name(RecordedFrame frame) {
    return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
  }

  private static void print(Map<String, Long> counts, long total, int top) {
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(top)
        .forEach(
            e ->
                System.out.printf(
                    Locale.ROOT,
                    "%6.1f%%  %s%n",
                    100.0 * e.getValue() / Math.max(1, total),
                    e.getKey()));
  }
}
