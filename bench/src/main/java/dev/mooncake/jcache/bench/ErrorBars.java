package dev.mooncake.jcache.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.distribution.TDistribution;

/**
 * Says, for each figure whose 99.9 % error is wider than {@link Report#DECIDING_ERROR}, why: how
 * much its samples spread and how many samples the same spread would need for the error to be
 * within the limit. Every figure of a level has forks × iterations samples (JMH's and the C
 * driver's alike: {@code BenchMain} runs the driver for that many iterations), and its error is
 * JMH's {@code t(0.9995, n − 1) × s / √n}, so the spread {@code s} follows from the stored error
 * alone, for older results too.
 */
final class ErrorBars {
  /** Beyond this many samples a figure is called out as not worth measuring longer. */
  private static final int MOST_SAMPLES = 10_000;

  private ErrorBars() {}

  /** The samples behind each figure of a level, or 0 when the level is not known. */
  static int samples(Timing timing) {
    return timing == null ? 0 : timing.forks() * timing.iterations();
  }

  /** The list under a table: every wide figure with its reason. */
  static void list(StringBuilder md, List<Record> records, Timing timing) {
    int n = samples(timing);
    List<String> wide = new ArrayList<>();
    for (Record r : records) {
      if (Report.undecided(r)) {
        wide.add(Report.describeWithPeer(r) + " ±" + Report.percent(r) + " (" + why(r, n) + ")");
      }
    }
    long limit = Math.round(Report.DECIDING_ERROR * 100);
    md.append('\n');
    if (wide.isEmpty()) {
      md.append("Every figure's 99.9 % error is within ±").append(limit).append(" %.\n");
      return;
    }
    int shown = Math.min(wide.size(), 30);
    md.append("**Error bars above ±")
        .append(limit)
        .append(" %** (")
        .append(wide.size())
        .append(" of ")
        .append(records.size())
        .append(" figures; ratios involving them do not decide; why: the spread of one sample")
        .append(n > 0 ? " of the " + n + " behind each figure" : "")
        .append(", and the samples that spread would need): ")
        .append(String.join("; ", wide.subList(0, shown)))
        .append(shown < wide.size() ? "; and " + (wide.size() - shown) + " more" : "")
        .append(".\n");
  }

  /**
   * Why one figure's error is wide: "samples spread ±S %; ±10 % needs ~M samples", or what is
   * missing to say it.
   */
  static String why(Record r, int n) {
    double relative = r.relativeError();
    if (Double.isNaN(relative)) {
      return n == 1 ? "one sample: no error bar" : "no error bar stored";
    }
    if (n < 2) {
      return "level unknown: spread not derivable";
    }
    double spread = spread(relative, n);
    int needed = samplesNeeded(spread, Report.DECIDING_ERROR);
    return String.format(
        Locale.ROOT,
        "samples spread ±%.0f %%; ±%d %% needs %s",
        100 * spread,
        Math.round(Report.DECIDING_ERROR * 100),
        needed > MOST_SAMPLES
            ? "over " + MOST_SAMPLES + " samples"
            : "~" + needed + " samples, " + ratio(needed, n) + " these");
  }

  /** A sample's relative standard deviation, from a figure's relative 99.9 % error over n. */
  static double spread(double relativeError, int n) {
    return relativeError * Math.sqrt(n) / t(n);
  }

  /** The fewest samples whose 99.9 % error is within {@code limit} for samples of that spread. */
  static int samplesNeeded(double spread, double limit) {
    // t(0.9995, m − 1) ≥ the normal quantile for every m, so no m below (z × spread ÷ limit)² can
    // meet the limit: start there instead of building up to MOST_SAMPLES t-distributions
    double z = new NormalDistribution().inverseCumulativeProbability(0.9995);
    int first =
        (int) Math.max(2, Math.min(MOST_SAMPLES + 1, Math.floor(Math.pow(z * spread / limit, 2))));
    for (int m = first; m <= MOST_SAMPLES; m++) {
      if (t(m) * spread / Math.sqrt(m) <= limit) {
        return m;
      }
    }
    return MOST_SAMPLES + 1;
  }

  private static double t(int n) {
    return new TDistribution(null, n - 1).inverseCumulativeProbability(0.9995);
  }

  private static String ratio(int needed, int n) {
    double times = (double) needed / n;
    return times < 1.05 ? "about" : String.format(Locale.ROOT, "%.1f×", times);
  }
}
