package dev.mooncake.jcache.internal.backend.inprocess;

/** Byte counts for humans: {@code 256 MiB}, {@code 1536 KiB}, {@code 1000 bytes}. */
final class Sizes {
  private static final String[] UNITS = {"TiB", "GiB", "MiB", "KiB"};

  private Sizes() {}

  /** The largest binary unit that divides {@code bytes} exactly, so the text is never rounded. */
  static String format(long bytes) {
    for (int i = 0; i < UNITS.length; i++) {
      int shift = 10 * (UNITS.length - i);
      long unit = 1L << shift;
      if (bytes >= unit && bytes % unit == 0) {
        return (bytes >> shift) + " " + UNITS[i];
      }
    }
    return bytes + (bytes == 1 ? " byte" : " bytes");
  }
}
