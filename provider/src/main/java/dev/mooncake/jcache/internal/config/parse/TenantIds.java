package dev.mooncake.jcache.internal.config.parse;

/**
 * Normalizes {@code tenant_id}: trimmed, non-empty, at most {@value #MAX_LENGTH} characters, no
 * control characters (a NUL would cut the C string Mooncake receives; the id prefixes every key).
 */
final class TenantIds {
  static final String DEFAULT = "default";
  static final int MAX_LENGTH = 256;

  private TenantIds() {}

  static String normalize(String value) {
    String tenant = value.strip();
    if (tenant.isEmpty()) {
      throw new IllegalArgumentException("is empty; give a name such as \"default\"");
    }
    if (tenant.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "is " + tenant.length() + " characters long; at most " + MAX_LENGTH + " are allowed");
    }
    for (int i = 0; i < tenant.length(); i++) {
      char c = tenant.charAt(i);
      if (Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            String.format("contains the control character U+%04X at index %d", (int) c, i));
      }
    }
    return tenant;
  }
}
