package dev.mooncake.jcache.internal.config.parse;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The number-and-unit strings that sizes and durations are written as: {@code "1.5GB"}, {@code
 * "10s"}.
 */
final class UnitNumbers {
  private static final Pattern NUMBER_AND_UNIT =
      Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)\\s*([a-z]*)");

  private UnitNumbers() {}

  /**
   * {@code text} stripped and lower-cased, refused when empty (naming {@code what}) or negative
   * (ending with {@code negativeHint}); the failures end with {@code forms}.
   */
  static String cleaned(String text, String what, String forms, String negativeHint) {
    String cleaned = text.strip().toLowerCase(Locale.ROOT);
    if (cleaned.isEmpty()) {
      throw new IllegalArgumentException(what + " cannot be empty; " + forms);
    }
    if (cleaned.startsWith("-")) {
      throw new IllegalArgumentException("'" + text + "' is negative; " + negativeHint);
    }
    return cleaned;
  }

  /**
   * {@code cleaned} (the text stripped and lower-cased) as its number times its unit's factor in
   * {@code units}; a failure names {@code text} as written, says it is not {@code what}, and ends
   * with {@code forms}.
   */
  static BigDecimal scaled(
      String text, String cleaned, Map<String, Long> units, String what, String forms) {
    Matcher matcher = NUMBER_AND_UNIT.matcher(cleaned);
    if (!matcher.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not " + what + "; " + forms);
    }
    Long factor = units.get(matcher.group(2));
    if (factor == null) {
      throw new IllegalArgumentException(
          "'" + text + "' has an unknown unit '" + matcher.group(2) + "'; " + forms);
    }
    return new BigDecimal(matcher.group(1)).multiply(BigDecimal.valueOf(factor));
  }
}
