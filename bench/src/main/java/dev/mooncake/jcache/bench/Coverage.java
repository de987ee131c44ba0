package dev.mooncake.jcache.bench;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How much of its level's plan a part's stored results cover: the combinations {@code Plan.of(part,
 * level)} measures (JMH's peers × values × key choices per segment and, in the Mooncake part, the C
 * driver's modes) against those stored. Results assembled from pieces say so until the last piece
 * is in.
 */
final class Coverage {
  /** Missing combinations named one by one when a segment lacks at most this many. */
  private static final int NAMED = 3;

  private Coverage() {}

  /** The combinations a plan measures, by segment name ({@link Record#combination()}). */
  static Map<String, List<String>> planned(Plan plan) {
    Map<String, List<String>> planned = new LinkedHashMap<>();
    for (Segment s : plan.segments()) {
      List<String> peers = new ArrayList<>(s.peers());
      if (plan.part().equals("mooncake") && BenchMain.Driver.workload(s.benchmark()) != null) {
        peers.addAll(BenchMain.Driver.peersFor(s.benchmark()));
      }
      List<String> combinations = planned.computeIfAbsent(s.name(), k -> new ArrayList<>());
      for (String peer : peers) {
        for (String value : s.values()) {
          for (String keys : s.keys()) {
            combinations.add(Record.combination(s.benchmark(), peer, value, keys, s.threads()));
          }
        }
      }
    }
    return planned;
  }

  /**
   * "192 of 393 combinations of the full plan measured; missing: …", or null when every planned
   * combination is stored (or the level is not known: an older file that does not state it).
   */
  static String line(Results results) {
    Plan plan;
    try {
      plan = Plan.of(results.part, results.level());
    } catch (IllegalArgumentException unknownPartOrLevel) {
      return null;
    }
    Set<String> stored = new HashSet<>();
    results.records.forEach(r -> stored.add(r.combination()));
    int planned = 0;
    int measured = 0;
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, List<String>> segment : planned(plan).entrySet()) {
      List<String> absent =
          segment.getValue().stream().filter(c -> !stored.contains(c)).distinct().toList();
      int size = (int) segment.getValue().stream().distinct().count();
      planned += size;
      measured += size - absent.size();
      if (absent.size() == size) {
        missing.add("`" + segment.getKey() + "` (all " + size + ")");
      } else if (!absent.isEmpty()) {
        missing.add(
            "`"
                + segment.getKey()
                + "` ("
                + absent.size()
                + " of "
                + size
                + ": "
                + (absent.size() <= NAMED
                    ? String.join(", ", absent.stream().map(Coverage::describe).toList())
                    : perPeer(absent))
                + ")");
      }
    }
    if (missing.isEmpty()) {
      return null;
    }
    return measured
        + " of "
        + planned
        + " combinations of the "
        + plan.level()
        + " plan measured; missing: "
        + String.join("; ", missing);
  }

  /** "caffeine 8, contract-floor 8": how many combinations each peer lacks. */
  private static String perPeer(List<String> absent) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    absent.forEach(c -> counts.merge(c.split("\\|")[1], 1, Integer::sum));
    List<String> each = new ArrayList<>();
    counts.forEach((peer, n) -> each.add(peer + " " + n));
    return String.join(", ", each);
  }

  /** "caffeine 1 KiB zipf" for a combination. */
  private static String describe(String combination) {
    String[] f = combination.split("\\|");
    return f[1] + " " + Report.valueLabel(f[2]) + " " + f[3];
  }
}
