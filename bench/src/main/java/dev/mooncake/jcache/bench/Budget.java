package dev.mooncake.jcache.bench;

/**
 * The data volume per trial: keys = min(max keys, budget / value size). 1 GiB and 100,000 keys by
 * default (the 100,000 keys of 64 KiB or 1 MiB would be 6.4 GiB and 100 GiB); {@code
 * -Dbench.budget} (bytes, or with a k/m/g suffix) and {@code -Dbench.maxKeys} are how BenchMain
 * hands a plan's data to its forks.
 */
public final class Budget {
  public static final long DEFAULT = 1L << 30;

  private Budget() {}

  public static long bytes() {
    return parse(System.getProperty("bench.budget"));
  }

  /** The key cap a fork was given ({@code -Dbench.maxKeys}), 100,000 when none. */
  public static int maxKeys() {
    return Integer.getInteger("bench.maxKeys", ValueKind.MAX_KEYS);
  }

  /** The keys a trial of this kind stores in this fork. */
  public static int keyCount(ValueKind kind) {
    return kind.keyCount(bytes(), maxKeys());
  }

  static long parse(String text) {
    if (text == null || text.isBlank()) {
      return DEFAULT;
    }
    String t = text.trim().toLowerCase(java.util.Locale.ROOT);
    long unit = 1;
    char last = t.charAt(t.length() - 1);
    if (last == 'k' || last == 'm' || last == 'g') {
      unit = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : 1L << 30;
      t = t.substring(0, t.length() - 1);
    }
    return Long.parseLong(t.trim()) * unit;
  }
}
