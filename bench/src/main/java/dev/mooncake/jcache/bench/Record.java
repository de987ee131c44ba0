package dev.mooncake.jcache.bench;

/**
 * One measured combination: throughput (ops/s, one op = one cache call), its error (99.9 %
 * confidence half-width, as JMH reports it), heap bytes allocated per op ({@code null} when not
 * profiled), gets that missed and bytes the cache copied in Java per op ({@code null} when not
 * counted: only the zero-copy benchmarks read that counter).
 */
public record Record(
    String benchmark, String peer, String value, String keys, int threads,
    double score, double error, String unit, Double allocBytesPerOp, Double misses,
    Double copiedBytesPerOp) {

  /** The workload a row of the report stands for (all but the peer). */
  public String workloadKey() {
    return benchmark + "|" + keys + "|" + threads + "|" + value;
  }
}
