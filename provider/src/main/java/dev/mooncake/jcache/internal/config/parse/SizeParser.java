package dev.mooncake.jcache.internal.config.parse;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;

/**
 * Parses byte sizes the way vLLM's {@code _parse_size} does ({@code "4GB"}, {@code "512 mb"},
 * {@code "1.5GB"}; case and surrounding spaces ignored; units are binary, GB = 1024^3), plus the
 * spellings Mooncake and LMCache accept elsewhere: {@code t}/{@code tb} and bare {@code k}/{@code
 * m}/{@code g}/{@code t}, and the unambiguous {@code kib}/{@code mib}/{@code gib}/{@code tib}.
 *
 * <p>Unlike vLLM it computes with exact decimals (no float rounding) and refuses what vLLM would
 * silently turn into nonsense: negative, non-finite and overflowing values. A fractional byte count
 * is truncated, as vLLM's {@code int()} does.
 */
public final class SizeParser {
  private static final long KIB = 1L << 10;
  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;
  private static final long TIB = 1L << 40;

  private static final Map<String, Long> UNITS =
      Map.ofEntries(
          Map.entry("", 1L),
          Map.entry("b", 1L),
          Map.entry("k", KIB),
          Map.entry("kb", KIB),
          Map.entry("kib", KIB),
          Map.entry("m", MIB),
          Map.entry("mb", MIB),
          Map.entry("mib", MIB),
          Map.entry("g", GIB),
          Map.entry("gb", GIB),
          Map.entry("gib", GIB),
          Map.entry("t", TIB),
          Map.entry("tb", TIB),
          Map.entry("tib", TIB));

  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  static final String FORMS =
      "use a byte count or a number with a unit b, k/kb/kib, m/mb/mib, g/gb/gib or t/tb/tib"
          + " (1024-based), e.g. \"4GB\", \"512 mb\", \"1.5GB\"";

  static final Quantity QUANTITY =
      new Quantity(
          SizeParser::parse,
          SizeParser::fromNumber,
          "a size (a number of bytes or a string like \"4GB\")");

  private SizeParser() {}

  /** Parses a size string; throws {@link IllegalArgumentException} saying what is wrong. */
  public static long parse(String text) {
    String cleaned = UnitNumbers.cleaned(text, "a size", FORMS, "a size must be >= 0");
    if (cleaned.contains("nan") || cleaned.contains("inf")) {
      throw new IllegalArgumentException("'" + text + "' is not a finite number; " + FORMS);
    }
    return toBytes(UnitNumbers.scaled(text, cleaned, UNITS, "a size", FORMS), text);
  }

  /** Checks a size given as a JSON number: a whole, non-negative number of bytes. */
  public static long fromNumber(BigDecimal number) {
    if (number.signum() < 0) {
      throw new IllegalArgumentException(
          number.toPlainString() + " is negative; a size must be >= 0");
    }
    if (number.stripTrailingZeros().scale() > 0) {
      throw new IllegalArgumentException(
          number.toPlainString() + " is not a whole number of bytes; " + FORMS);
    }
    return toBytes(number, number.toPlainString());
  }

  private static long toBytes(BigDecimal bytes, String text) {
    BigDecimal whole = bytes.setScale(0, RoundingMode.DOWN);
    if (whole.compareTo(LONG_MAX) > 0) {
      throw new IllegalArgumentException(
          "'" + text + "' is too large: the largest size is " + Long.MAX_VALUE + " bytes");
    }
    return whole.longValueExact();
  }
}
