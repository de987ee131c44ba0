package dev.mooncake.jcache.history;

import dev.mooncake.jcache.ZeroCopyCache;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A reader's destination for zero-copy gets, and {@link ZeroCopyCache#get}'s promise about it
 * checked after every call. Before each call every byte of the buffer is set to {@link #MARK} and
 * the frame {@code [0, frame)} given to the get ({@code frame}: header, value, trailer). After it:
 *
 * <ul>
 *   <li>a hit: position at the value's first byte ({@code HEADER_BYTES}), limit after its last; the
 *       frame's bytes after the trailer the caller's or zero;
 *   <li>a miss, an exception or a time-out: position 0 and limit {@code frame} as given, every byte
 *       of the frame the caller's or zero;
 *   <li>always: no byte after the frame written.
 * </ul>
 *
 * Whether a hit's value is the key's own is the caller's check ({@link Values}).
 */
final class ZeroCopyDestination {
  /** The caller's byte: no value this test writes holds it (values are ASCII). */
  static final byte MARK = (byte) 0xA5;

  private final ZeroCopyCache<String> cache;
  private final ByteBuffer buffer;
  private final int frame;

  ZeroCopyDestination(ZeroCopyCache<String> cache, int valueBytes) {
    this.cache = cache;
    this.buffer = cache.allocate(valueBytes);
    this.frame = ZeroCopyCache.HEADER_BYTES + valueBytes + ZeroCopyCache.TRAILER_BYTES;
  }

  /** The buffer, every byte the caller's, framed for the next get. */
  ByteBuffer prepare() {
    buffer.clear();
    for (int i = 0; i < buffer.capacity(); i++) {
      buffer.put(i, MARK);
    }
    return buffer.position(0).limit(frame);
  }

  /** A hit's value as text (ASCII), or null with {@code problem} set when the buffer breaks it. */
  String afterHit(int length, StringBuilder problem) {
    int position = buffer.position();
    if (position != ZeroCopyCache.HEADER_BYTES || buffer.limit() != position + length) {
      problem.append(
          String.format(
              Locale.ROOT,
              "a hit of %d bytes left position %d, limit %d (expected %d, %d)",
              length,
              position,
              buffer.limit(),
              ZeroCopyCache.HEADER_BYTES,
              ZeroCopyCache.HEADER_BYTES + length));
      return null;
    }
    byte[] value = new byte[length];
    buffer.duplicate().get(value);
    checkCallerOrZero(position + length + ZeroCopyCache.TRAILER_BYTES, "a hit", problem);
    return new String(value, StandardCharsets.ISO_8859_1);
  }

  /** After a miss, an exception or a time-out ({@code outcome}): problems into {@code problem}. */
  void afterNoValue(String outcome, StringBuilder problem) {
    if (buffer.position() != 0 || buffer.limit() != frame) {
      problem.append(
          String.format(
              Locale.ROOT,
              "%s left position %d, limit %d (given 0, %d)",
              outcome,
              buffer.position(),
              buffer.limit(),
              frame));
      return;
    }
    checkCallerOrZero(0, outcome, problem);
  }

  /** Bytes {@code [from, frame)} the caller's or zero, bytes past the frame the caller's. */
  private void checkCallerOrZero(int from, String outcome, StringBuilder problem) {
    int bad = 0;
    int first = -1;
    for (int i = from; i < buffer.capacity(); i++) {
      byte b = buffer.get(i);
      if (b != MARK && (i >= frame || b != 0)) {
        bad++;
        first = first < 0 ? i : first;
      }
    }
    if (bad > 0) {
      problem.append(
          String.format(
              Locale.ROOT,
              "after %s, %d bytes of the destination are neither the caller's nor zero%s, the"
                  + " first at %d: 0x%02x (frame %d)",
              outcome,
              bad,
              from > 0 ? " past the trailer" : "",
              first,
              buffer.get(first),
              frame));
    }
  }

  void release() {
    cache.release(buffer);
  }
}
