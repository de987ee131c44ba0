package dev.mooncake.jcache.bench;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * One measured combination: throughput (ops/s, one op = one cache call), its error (99.9 %
 * confidence half-width, as JMH reports it), heap bytes allocated per op ({@code null} when not
 * profiled), gets that missed and bytes the cache copied in Java per op ({@code null} when not
 * counted: only the zero-copy benchmarks read that counter), and calls that failed per iteration
 * ({@code errors}; {@code errorCodes} says by what, e.g. {@code -703:12} for the C driver, {@code
 * CacheException:3} for a JCache peer; {@code null} in results of older runs), and the {@link
 * Piece} of the stored results it was measured in ({@code piece}: its id; {@code null} until a run
 * is stored, and in files written before pieces, which load as one piece).
 */
public record Record(
    String benchmark,
    String peer,
    String value,
    String keys,
    int threads,
    double score,
    double error,
    String unit,
    Double allocBytesPerOp,
    Double misses,
    Double copiedBytesPerOp,
    Double errors,
    String errorCodes,
    Integer piece) {

  /** The canonical constructor: the one the results files are read with. */
  @JsonCreator
  public Record {}

  /** A record not stored yet (no piece). */
  public Record(
      String benchmark,
      String peer,
      String value,
      String keys,
      int threads,
      double score,
      double error,
      String unit,
      Double allocBytesPerOp,
      Double misses,
      Double copiedBytesPerOp,
      Double errors,
      String errorCodes) {
    this(
        benchmark,
        peer,
        value,
        keys,
        threads,
        score,
        error,
        unit,
        allocBytesPerOp,
        misses,
        copiedBytesPerOp,
        errors,
        errorCodes,
        null);
  }

  Record withPiece(Integer id) {
    return new Record(
        benchmark,
        peer,
        value,
        keys,
        threads,
        score,
        error,
        unit,
        allocBytesPerOp,
        misses,
        copiedBytesPerOp,
        errors,
        errorCodes,
        id);
  }

  /**
   * What a record measured (benchmark, peer, value size, key choice, threads): a piece's record
   * replaces a stored one of the same combination.
   */
  public String combination() {
    return combination(benchmark, peer, value, keys, threads);
  }

  static String combination(String benchmark, String peer, String value, String keys, int threads) {
    return benchmark + "|" + peer + "|" + value + "|" + keys + "|" + threads;
  }

  /** The 99.9 % error half-width as a fraction of the score (NaN when there is none). */
  public double relativeError() {
    return score == 0 ? Double.NaN : error / score;
  }

  /** The workload a row of the report stands for (all but the peer). */
  public String workloadKey() {
    return benchmark + "|" + keys + "|" + threads + "|" + value;
  }
}
