package dev.mooncake.jcache.internal.backend.inprocess;

/**
 * The sizes the in-process segment allocates: a value's size rounded up to a step of one eighth of
 * its power of two (at least 16 bytes), as Mooncake's offset allocator bins sizes. Rounding wastes
 * at most 12.5 % (16 bytes for small values) and lets a freed buffer serve the next value of a
 * similar size, which is what makes {@link SegmentMemory} reuse work.
 */
final class SizeClasses {
  /** Classes 1..199 cover capacities 16 bytes .. 2 GiB; 0 is unused. */
  static final int COUNT = 200;

  /** Sizes whose rounded capacity would not fit an int are allocated as they are, not pooled. */
  static final int UNPOOLED = -1;

  private static final int MAX_CAPACITY = Integer.MAX_VALUE - 8;

  private SizeClasses() {}

  /** The bytes allocated for a value of {@code size} bytes (size ≥ 1). */
  static int capacity(int size) {
    long step = Math.max(16, Integer.highestOneBit(size) >>> 3);
    long rounded = (size + step - 1) & -step;
    return rounded > MAX_CAPACITY ? size : (int) rounded;
  }

  /** The class of a capacity returned by {@link #capacity}, or {@link #UNPOOLED}. */
  static int index(int capacity) {
    if (capacity <= 128) {
      return (capacity & 15) == 0 ? capacity >>> 4 : UNPOOLED;
    }
    int exponent = 31 - Integer.numberOfLeadingZeros(capacity);
    int shift = exponent - 3;
    if ((capacity & ((1 << shift) - 1)) != 0) {
      return UNPOOLED; // not a rounded capacity (a huge value)
    }
    return 8 + (exponent - 7) * 8 + ((capacity >>> shift) & 7);
  }
}
