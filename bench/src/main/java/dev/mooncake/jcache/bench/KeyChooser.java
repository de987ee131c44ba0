package dev.mooncake.jcache.bench;

import java.util.SplittableRandom;

/**
 * Picks key indices in {@code [0, keyCount)}: uniformly, or Zipfian (θ = 0.99) over ranks that a
 * fixed permutation maps to keys, so that the hot keys are spread over the key space rather than
 * being keys 0, 1, 2, …
 */
public abstract class KeyChooser {
  public abstract int next(SplittableRandom random);

  public static KeyChooser of(String distribution, int keyCount) {
    switch (distribution) {
      case "uniform":
        return new KeyChooser() {
          @Override
          public int next(SplittableRandom random) {
            return random.nextInt(keyCount);
          }
        };
      case "zipf":
        Zipf zipf = new Zipf(keyCount, Zipf.YCSB_THETA);
        int[] rankToKey = permutation(keyCount, new SplittableRandom(0x5eed));
        return new KeyChooser() {
          @Override
          public int next(SplittableRandom random) {
            return rankToKey[zipf.next(random)];
          }
        };
      default:
        throw new IllegalArgumentException(
            "unknown key distribution '" + distribution + "'; use uniform or zipf");
    }
  }

  static int[] permutation(int n, SplittableRandom random) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }
}
