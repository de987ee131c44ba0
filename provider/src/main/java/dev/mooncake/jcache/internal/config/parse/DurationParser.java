package dev.mooncake.jcache.internal.config.parse;

import java.math.BigDecimal;
import java.util.Map;

/**
 * Parses durations into milliseconds: a JSON number of milliseconds, or a string such as {@code
 * "250ms"}, {@code "10s"}, {@code "5m"}, {@code "1h"}, {@code "2d"} or {@code "1.5s"} (a bare
 * number in a string is milliseconds too). The result must be a whole number of milliseconds.
 */
public final class DurationParser {
  private static final Map<String, Long> UNIT_MILLIS =
      Map.of("", 1L, "ms", 1L, "s", 1_000L, "m", 60_000L, "h", 3_600_000L, "d", 86_400_000L);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  static final String FORMS =
      "use a number of milliseconds or a string with a unit ms, s, m, h or d,"
          + " e.g. \"250ms\", \"10s\", \"5m\", \"1h\"";

  static final Quantity QUANTITY =
      new Quantity(
          DurationParser::parseMillis,
          DurationParser::fromNumberMillis,
          "a duration (milliseconds or a string like \"10s\")");

  private DurationParser() {}

  /** Parses a duration string into milliseconds; throws {@link IllegalArgumentException}. */
  public static long parseMillis(String text) {
    String cleaned = UnitNumbers.cleaned(text, "a duration", FORMS, FORMS);
    return toMillis(UnitNumbers.scaled(text, cleaned, UNIT_MILLIS, "a duration", FORMS), text);
  }

  /** Checks a duration given as a JSON number of milliseconds. */
  public static long fromNumberMillis(BigDecimal millis) {
    if (millis.signum() < 0) {
      throw new IllegalArgumentException(millis.toPlainString() + " is negative; " + FORMS);
    }
    return toMillis(millis, millis.toPlainString());
  }

  private static long toMillis(BigDecimal millis, String text) {
    if (millis.stripTrailingZeros().scale() > 0) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a whole number of milliseconds; " + FORMS);
    }
    if (millis.compareTo(LONG_MAX) > 0) {
      throw new IllegalArgumentException("'" + text + "' is too long a duration");
    }
    return millis.longValueExact();
  }
}
