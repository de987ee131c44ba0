package dev.mooncake.jcache.bench;

/**
 * One measured combination: throughput (ops/s, one op = one cache call), its error (99.9 %
 * confidence half-width, as JMH reports it), heap bytes allocated per op ({@code null} when not
 * profiled), gets that missed and bytes the cache copied in Java per op ({@code null} when not
 * counted: only the zero-copy benchmarks read that counter), and calls that failed per
 * iteration ({@code errors}; {@code errorCodes} says by what, e.g. {@code -703:12} for the C
 * driver, {@code CacheException:3} for a JCache peer; {@code null} in results of older runs).
 */
public record Record(
    String benchmark, String peer, String value, String keys, int threads,
    double score, double error, String unit, Double allocBytesPerOp, Double misses,
    Double copiedBytesPerOp, Double errors, String errorCodes) {

  /** The 99.9 % error half-width as a fraction of the score (NaN when there is none). */
  public double relativeError() {
    return score == 0 ? Double.NaN : error / score;
  }

  /** The workload a row of the report stands for (all but the peer). */
  public String workloadKey() {
    return benchmark + "|" + keys + "|" + threads + "|" + value;
  }
}
