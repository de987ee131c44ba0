package dev.mooncake.jcache.bench;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The level of a part's stored results: the level's name and the Plan's timing (forks, warm-up and
 * measurement iterations, data budget and key cap). Pieces of one part merge only when their
 * timings are equal ({@link Merge}): figures of 1 fork × 3 s and of 2 forks × 5 s do not belong in
 * one table.
 */
public record Timing(
    String level,
    int forks,
    int warmupIterations,
    int warmupSeconds,
    int iterations,
    int iterationSeconds,
    long budget,
    int maxKeys) {

  /** Results stored before the key cap had no maxKeys (0 when read): they all had 100,000. */
  public Timing {
    if (maxKeys == 0) {
      maxKeys = ValueKind.MAX_KEYS;
    }
  }

  // what BenchMain.meta writes: "full: 2 fork(s), 2 × 1 s warm-up, 5 × 1 s measurement …"
  private static final Pattern LEVEL =
      Pattern.compile(
          "^(\\w+): (\\d+) fork\\(s\\), (\\d+) × (\\d+) s warm-up, (\\d+) × (\\d+) s measurement.*");
  // and "budget 1024.00 MiB, keys = min(100,000, …" (Report.bytes); a line without the key cap
  // reads as 100,000, as every run had before the cap could change
  private static final Pattern BUDGET =
      Pattern.compile("^budget ([0-9.]+) (B|KiB|MiB)(?:, keys = min\\(([0-9,]+),)?.*");

  static Timing of(Plan plan) {
    return new Timing(
        plan.level(),
        plan.forks(),
        plan.warmupIterations(),
        plan.warmupSeconds(),
        plan.iterations(),
        plan.iterationSeconds(),
        plan.budget(),
        plan.maxKeys());
  }

  /**
   * The timing an older results file (one run, no timing of its own) states in its meta lines
   * "Level" and "Data"; null when they do not say it.
   */
  static Timing parse(Map<String, String> meta) {
    Matcher level = LEVEL.matcher(meta.getOrDefault("Level", ""));
    Matcher budget = BUDGET.matcher(meta.getOrDefault("Data", ""));
    if (!level.matches() || !budget.matches()) {
      return null;
    }
    long unit =
        switch (budget.group(2)) {
          case "MiB" -> 1L << 20;
          case "KiB" -> 1L << 10;
          default -> 1;
        };
    return new Timing(
        level.group(1),
        Integer.parseInt(level.group(2)),
        Integer.parseInt(level.group(3)),
        Integer.parseInt(level.group(4)),
        Integer.parseInt(level.group(5)),
        Integer.parseInt(level.group(6)),
        Math.round(Double.parseDouble(budget.group(1)) * unit),
        budget.group(3) == null
            ? ValueKind.MAX_KEYS
            : Integer.parseInt(budget.group(3).replace(",", "")));
  }

  /**
   * "full (2 forks, 2 × 1 s warm-up, 5 × 1 s, budget 1.00 GiB, at most 100,000 keys)": how a
   * refusal names a level.
   */
  String describe() {
    return String.format(
        Locale.ROOT,
        "%s (%d fork(s), %d × %d s warm-up, %d × %d s measurement, budget %s, at most %,d keys)",
        level,
        forks,
        warmupIterations,
        warmupSeconds,
        iterations,
        iterationSeconds,
        Report.bytes(budget),
        maxKeys);
  }
}
