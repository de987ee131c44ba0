package dev.mooncake.jcache.bench;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/** The values a benchmark stores: 100-character Strings and byte arrays of three sizes. */
public enum ValueKind {
  STRING100("string100", String.class, 100),
  KIB1("1k", byte[].class, 1024),
  KIB64("64k", byte[].class, 64 * 1024),
  MIB1("1m", byte[].class, 1024 * 1024);

  /** The key space; capped by {@link #keyCount(long, int)} for large values. */
  public static final int MAX_KEYS = 100_000;

  private final String id;
  private final Class<?> type;
  private final int bytes;

  ValueKind(String id, Class<?> type, int bytes) {
    this.id = id;
    this.type = type;
    this.bytes = bytes;
  }

  public static ValueKind of(String id) {
    for (ValueKind kind : values()) {
      if (kind.id.equals(id)) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "unknown value kind '" + id + "'; use string100, 1k, 64k or 1m");
  }

  public String id() {
    return id;
  }

  /** {@code String.class} or {@code byte[].class}: the cache's value type. */
  public Class<?> type() {
    return type;
  }

  /** Payload bytes of one value (a String's UTF-8 length: all characters are ASCII). */
  public int bytes() {
    return bytes;
  }

  /** keys = min(maxKeys, budget / value size): the data volume stays within the budget. */
  public int keyCount(long budgetBytes, int maxKeys) {
    return (int) Math.max(1, Math.min(maxKeys, budgetBytes / bytes));
  }

  /** A value of this kind, random content (Strings: ASCII letters and digits). */
  public Object newValue(SplittableRandom random) {
    if (type == String.class) {
      char[] chars = new char[bytes];
      String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
      for (int i = 0; i < chars.length; i++) {
        chars[i] = alphabet.charAt(random.nextInt(alphabet.length()));
      }
      String s = new String(chars);
      assert s.getBytes(StandardCharsets.UTF_8).length == bytes;
      return s;
    }
    byte[] b = new byte[bytes];
    for (int i = 0; i < b.length; i += 8) {
      long r = random.nextLong();
      for (int j = 0; j < 8 && i + j < b.length; j++) {
        b[i + j] = (byte) (r >>> (8 * j));
      }
    }
    return b;
  }
}
