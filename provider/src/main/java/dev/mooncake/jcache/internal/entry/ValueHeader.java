package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.integrity.Checksum;
import java.nio.ByteBuffer;
import javax.cache.CacheException;

/**
 * The 24 bytes in front of every stored value, and the 4 after it. Mooncake cannot store empty
 * objects and keeps no per-object metadata we can use, so what JCache needs travels with the value,
 * and so does the proof of what the bytes are:
 *
 * <pre>
 *   0  magic 'M' (0x4D)      1  layout version (4)     2  payload format     3  0
 *   4  expiry time: epoch millis, Long.MAX_VALUE = eternal (8 bytes, big-endian)
 *   12 payload length (4 bytes)
 *   16 owner: the first 8 bytes of SHA-256 of the store key the value was written under
 *   24 payload …
 *   24 + payload length: CRC32C of bytes [0, 24 + payload length) (4 bytes, big-endian)
 * </pre>
 *
 * <p>Why: a real Mooncake can answer a read of one key with bytes it never stored there. A forced
 * remove frees an object's memory while another client's transfer may still copy it, and the next
 * object of that size takes the memory: the reader gets a mix of two objects, or another key's
 * whole, well-formed object (seen: another key's, another cache's and another tenant's value, with
 * matching lengths). The checksum catches the mix wherever its seam falls; the owner catches the
 * whole object of another key, tenant or cache ({@code StoreKeyHash}: tenant and cache are part of
 * the store key). Every read path checks both before a byte reaches the codec ({@link #defect}),
 * and reads again when either fails; layout 3's write ids at both ends saw only tears that reached
 * an end of the object.
 */
public final class ValueHeader {
  public static final int SIZE = 24;

  /** The bytes after the payload: the checksum. */
  public static final int TRAILER = 4;

  /** Header and trailer: an object is this much larger than its payload. */
  public static final int OVERHEAD = SIZE + TRAILER;

  static final byte MAGIC = 0x4D;
  static final byte VERSION = 4;

  /** The oldest layout that was ever written (1); layouts before {@link #VERSION} are refused. */
  private static final byte FIRST_VERSION = 1;

  /** What makes bytes read under a key not that key's value; each reads as one phrase. */
  public enum Defect {
    NO_HEADER("was not written by this provider (no value header)"),
    OLDER_LAYOUT("has an older header layout, written by an older version of this provider"),
    UNKNOWN_LAYOUT("has a header layout this provider does not know"),
    LENGTH("is not as long as its header says (torn or truncated)"),
    CHECKSUM("fails its checksum (torn while another client replaced it, or corrupted)"),
    OTHER_KEY("belongs to another key, cache or tenant (its owner hash differs)");

    private final String phrase;

    Defect(String phrase) {
      this.phrase = phrase;
    }

    public String phrase() {
      return phrase;
    }
  }

  private ValueHeader() {}

  /**
   * Writes a header at {@code buffer}'s absolute index {@code at} for the {@code payloadLength}
   * bytes already placed after it, then the checksum after them.
   *
   * @param owner {@code StoreKeyHash.of(storeKey)} of the key the value is written under
   */
  public static void write(
      ByteBuffer buffer, int at, byte format, long expireAt, int payloadLength, long owner) {
    buffer.put(at, MAGIC);
    buffer.put(at + 1, VERSION);
    buffer.put(at + 2, format);
    buffer.put(at + 3, (byte) 0);
    buffer.putLong(at + 4, expireAt);
    buffer.putInt(at + 12, payloadLength);
    buffer.putLong(at + 16, owner);
    int end = at + SIZE + payloadLength;
    buffer.putInt(end, Checksum.of(buffer, at, end));
  }

  /**
   * What is wrong with the {@code totalLength} bytes read at {@code at} as the value of the key
   * whose hash is {@code owner}, or {@code null} when they are one whole value of that key. For
   * paths that keep the bytes where they are (zero-copy); a read into the heap uses {@link
   * #copyChecked}, which does the same checks in the copy's pass.
   */
  public static Defect defect(ByteBuffer buffer, int at, long totalLength, long owner) {
    Defect framing = framingDefect(buffer, at, totalLength);
    if (framing != null) {
      return framing;
    }
    int end = at + (int) totalLength - TRAILER;
    return ownership(buffer, at, end, Checksum.of(buffer, at, end), owner);
  }

  /**
   * The payload of the {@code totalLength} bytes read at {@code at}, copied into a new array, and
   * what is wrong with them as the value of the key whose hash is {@code owner}: the checks of
   * {@link #defect}, the checksum summed while copying. A payload with a defect is never handed on:
   * {@link Checked#payload} is then {@code null}.
   */
  public static Checked copyChecked(ByteBuffer buffer, int at, long totalLength, long owner) {
    Defect framing = framingDefect(buffer, at, totalLength);
    if (framing != null) {
      return new Checked(null, framing);
    }
    int end = at + (int) totalLength - TRAILER;
    byte[] payload = new byte[end - at - SIZE];
    int sum = Checksum.ofWhileCopying(buffer, at, at + SIZE, end, payload);
    Defect defect = ownership(buffer, at, end, sum, owner);
    return defect == null ? new Checked(payload, null) : new Checked(null, defect);
  }

  /** A payload copied out of a read and found whole, or the defect that kept it back. */
  public record Checked(byte[] payload, Defect defect) {}

  /** Magic, layout and length: whether the bytes are framed as one value of this layout. */
  private static Defect framingDefect(ByteBuffer buffer, int at, long totalLength) {
    if (totalLength < OVERHEAD || buffer.get(at) != MAGIC) {
      return Defect.NO_HEADER;
    }
    byte version = buffer.get(at + 1);
    if (version != VERSION) {
      return version >= FIRST_VERSION && version < VERSION
          ? Defect.OLDER_LAYOUT
          : Defect.UNKNOWN_LAYOUT;
    }
    return buffer.getInt(at + 12) == totalLength - OVERHEAD ? null : Defect.LENGTH;
  }

  /**
   * Tests only, never set in production: false turns the checksum and owner checks off, so that a
   * history test can show it finds foreign reads without them (its negative control). Set by {@code
   * IntegrityChecksForTests} in this package's test sources, before any cache is opened.
   */
  static boolean ownershipChecked = true;

  /** Checksum first (a mix may carry either object's owner), then the owner. */
  private static Defect ownership(ByteBuffer buffer, int at, int end, int sum, long owner) {
    if (!ownershipChecked) {
      return null;
    }
    if (buffer.getInt(end) != sum) {
      return Defect.CHECKSUM;
    }
    return buffer.getLong(at + 16) == owner ? null : Defect.OTHER_KEY;
  }

  /** Throws a {@link CacheException} naming {@code key} and the defect, if there is one. */
  public static void check(ByteBuffer buffer, int at, long totalLength, String key, long owner) {
    Defect defect = defect(buffer, at, totalLength, owner);
    if (defect != null) {
      throw refused(buffer, at, totalLength, key, defect);
    }
  }

  /** The exception for bytes under {@code key} that are not its value: key, defect, details. */
  public static CacheException refused(
      ByteBuffer buffer, int at, long totalLength, String key, Defect defect) {
    String details =
        switch (defect) {
          case OLDER_LAYOUT ->
              " (layout "
                  + buffer.get(at + 1)
                  + "; this one reads layout "
                  + VERSION
                  + " only, whose owner hash and checksum prove a value's key and bytes): remove the"
                  + " key or clear the cache";
          case UNKNOWN_LAYOUT ->
              " (layout " + buffer.get(at + 1) + "; this one reads " + VERSION + ")";
          case LENGTH ->
              " (header: "
                  + buffer.getInt(at + 12)
                  + " payload bytes; the store returned "
                  + (totalLength - OVERHEAD)
                  + ")";
          default -> "";
        };
    return new CacheException("stored object '" + key + "' " + defect.phrase() + details);
  }

  public static byte format(ByteBuffer buffer, int at) {
    return buffer.get(at + 2);
  }

  public static long expireAt(ByteBuffer buffer, int at) {
    return buffer.getLong(at + 4);
  }
}
