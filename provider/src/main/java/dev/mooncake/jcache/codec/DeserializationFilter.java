package dev.mooncake.jcache.codec;

import java.io.ObjectInputFilter;
import java.util.ArrayList;
import java.util.List;

/**
 * The allow-list for Java deserialization of stored values. Only JDK value types (boxed
 * primitives, String, collections, time and math types) and the configured patterns may be
 * instantiated; anything else is refused before its class is loaded, with a message naming it.
 * Patterns use {@link ObjectInputFilter.Config#createFilter} syntax: {@code com.acme.Foo},
 * {@code com.acme.*} (one package), {@code com.acme.**} (package and sub-packages).
 */
public final class DeserializationFilter {

  /** JDK types that cannot run code while being deserialized. */
  static final List<String> BUILT_IN =
      List.of(
          "java.lang.Object", "java.io.Serializable", // as array element types, e.g. Hibernate's
          "java.lang.Boolean", "java.lang.Byte", "java.lang.Character", "java.lang.Short",
          "java.lang.Integer", "java.lang.Long", "java.lang.Float", "java.lang.Double",
          "java.lang.Number", "java.lang.String", "java.lang.Enum", "java.lang.Record",
          "java.math.BigInteger", "java.math.BigDecimal",
          "java.util.*", "java.time.*", "java.net.URI", "java.util.concurrent.*",
          "java.util.concurrent.atomic.*");

  private static final String LIMITS = "maxdepth=64;maxrefs=1000000;maxarray=100000000";

  private final ObjectInputFilter patterns;

  public DeserializationFilter(List<String> extraPatterns) {
    List<String> all = new ArrayList<>(BUILT_IN);
    for (String pattern : extraPatterns) {
      if (pattern.isBlank() || pattern.contains(";") || pattern.contains("!")
          || pattern.contains("=") || pattern.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException(
            "deserialization_allow_list entry '" + pattern + "' is not a class-name pattern");
      }
      all.add(pattern);
    }
    this.patterns = ObjectInputFilter.Config.createFilter(
        LIMITS + ";" + String.join(";", all) + ";!*");
  }

  /** A filter for one stream, which remembers why it refused. */
  Verdict newVerdict() {
    return new Verdict();
  }

  /** Per-stream filter state: remembers the first rejected class for the exception message. */
  final class Verdict implements ObjectInputFilter {
    private String rejected;

    @Override
    public Status checkInput(FilterInfo info) {
      Class<?> type = info.serialClass();
      if (type != null) {
        while (type.isArray()) {
          type = type.getComponentType();
        }
        if (type.isPrimitive()) {
          return Status.ALLOWED;
        }
      }
      Status status = patterns.checkInput(info);
      if (status == Status.UNDECIDED) {
        // Limit checks (no class) that passed are fine; a class no pattern names is not.
        status = type == null ? Status.ALLOWED : Status.REJECTED;
      }
      if (status == Status.REJECTED && rejected == null) {
        rejected = type != null
            ? "refused to deserialize class " + type.getName()
                + ": it is not in deserialization_allow_list (values read from a shared store are"
                + " untrusted; add the class or its package to the allow-list to accept it)"
            : "refused to deserialize a stored value: it exceeds the limits " + LIMITS;
      }
      return status;
    }

    String rejected() {
      return rejected;
    }
  }
}
