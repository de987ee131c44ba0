package dev.mooncake.jcache.bench;

import java.util.SplittableRandom;

/**
 * Zipfian ranks in {@code [0, n)}: rank 0 is the most popular. The algorithm of Gray et al.,
 * "Quickly generating billion-record synthetic databases" (SIGMOD 1994), as YCSB's ZipfianGenerator
 * uses it, with YCSB's default constant 0.99. Set-up is O(n) (the zeta sum), each sample O(1).
 */
public final class Zipf {
  public static final double YCSB_THETA = 0.99;

  private final int n;
  private final double theta;
  private final double alpha;
  private final double zetan;
  private final double eta;
  private final double halfPowTheta;

  public Zipf(int n, double theta) {
    if (n < 1 || !(theta > 0 && theta < 1)) {
      throw new IllegalArgumentException("need n >= 1 and 0 < theta < 1, got " + n + ", " + theta);
    }
    this.n = n;
    this.theta = theta;
    this.zetan = zeta(n, theta);
    double zeta2 = zeta(2, theta);
    this.alpha = 1.0 / (1.0 - theta);
    this.eta = (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetan);
    this.halfPowTheta = Math.pow(0.5, theta);
  }

  static double zeta(long n, double theta) {
    double sum = 0;
    for (long i = 1; i <= n; i++) {
      sum += 1.0 / Math.pow(i, theta);
    }
    return sum;
  }

  /** A rank in {@code [0, n)}. */
  public int next(SplittableRandom random) {
    double u = random.nextDouble();
    double uz = u * zetan;
    if (uz < 1.0) {
      return 0;
    }
    if (uz < 1.0 + halfPowTheta) {
      return Math.min(1, n - 1);
    }
    long rank = (long) (n * Math.pow(eta * u - eta + 1, alpha));
    return (int) Math.min(rank, n - 1);
  }

  /** The probability of rank {@code r} (for tests and the report). */
  public double probability(int r) {
    return 1.0 / Math.pow(r + 1, theta) / zetan;
  }
}
