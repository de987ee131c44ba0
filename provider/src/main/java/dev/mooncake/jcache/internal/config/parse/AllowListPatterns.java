package dev.mooncake.jcache.internal.config.parse;

import java.io.ObjectInputFilter;

/**
 * Checks one {@code deserialization_allow_list} entry: a class-name pattern in {@link
 * ObjectInputFilter} syntax ({@code com.acme.Foo}, {@code com.acme.*}, {@code com.acme.**}, {@code
 * com.acme.Prefix*}, optionally {@code module/…}). The entries are joined into one filter, so
 * characters that change a filter's meaning are refused: {@code ;} separates patterns, {@code !}
 * rejects instead of allowing, {@code =} sets a limit, and whitespace is not part of any name. A
 * pattern that allows every class ({@code *}, {@code **}) is refused too: it disables the filter.
 */
final class AllowListPatterns {
  private AllowListPatterns() {}

  static String validate(String pattern) {
    if (pattern.isEmpty()) {
      throw new IllegalArgumentException("is empty");
    }
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == ';'
          || c == '!'
          || c == '='
          || Character.isWhitespace(c)
          || Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            "'"
                + pattern
                + "' contains '"
                + printable(c)
                + "', which would change the filter's"
                + " meaning; give one class-name pattern per entry (com.acme.Foo, com.acme.*, com.acme.**)");
      }
    }
    if (pattern.equals("*")
        || pattern.equals("**")
        || pattern.equals(".*")
        || pattern.equals(".**")) {
      throw new IllegalArgumentException(
          "'" + pattern + "' would allow every class; list your packages instead (com.acme.**)");
    }
    try {
      ObjectInputFilter.Config.createFilter(pattern);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "'" + pattern + "' is not a valid pattern: " + e.getMessage());
    }
    return pattern;
  }

  private static String printable(char c) {
    return Character.isWhitespace(c) || Character.isISOControl(c)
        ? String.format("U+%04X", (int) c)
        : String.valueOf(c);
  }
}
