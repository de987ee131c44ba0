package dev.mooncake.jcache.internal.codec;

import java.io.ObjectInputFilter;
import java.util.ArrayList;
import java.util.List;

/**
 * The allow-list for Java deserialization of stored values. Only JDK value types (boxed primitives,
 * String, collections, time and math types) and the configured patterns may be instantiated;
 * anything else is refused before its class is loaded, with a message naming it. Patterns use
 * {@link ObjectInputFilter.Config#createFilter} syntax: {@code com.acme.Foo}, {@code com.acme.*}
 * (one package), {@code com.acme.**} (package and sub-packages).
 */
public final class DeserializationFilter {

  /** JDK types that cannot run code while being deserialized. */
  static final List<String> BUILT_IN =
      List.of(
          "java.lang.Object",
          "java.io.Serializable", // as array element types, e.g. Hibernate's
          "java.lang.Boolean",
          "java.lang.Byte",
          "java.lang.Character",
          "java.lang.Short",
          "java.lang.Integer",
          "java.lang.Long",
          "java.lang.Float",
          "java.lang.Double",
          "java.lang.Number",
          "java.lang.String",
          "java.lang.Enum",
          "java.lang.Record",
          "java.math.BigInteger",
          "java.math.BigDecimal",
          "java.util.*",
          "java.time.*",
          "java.net.URI",
          "java.util.concurrent.*",
          "java.util.concurrent.atomic.*");

  /**
   * maxdepth 20, as the JDK's own filter for untrusted RMI registry input: the classic HashSet bomb
   * (nested sets that each hold both sets below) costs 2^depth hashing, and at the former limit of
   * 64 a stream of 2 KB took 5 s at depth 26 and 230 s at depth 31 (see docs/reliability.md); at 20
   * the worst such stream reads in well under a second.
   */
  private static final String LIMITS = "maxdepth=20;maxrefs=1000000;maxarray=100000000";

  private final ObjectInputFilter patterns;
  private final List<String> names; // the same patterns, to judge a class by name before loading it

  public DeserializationFilter(List<String> extraPatterns) {
    List<String> all = new ArrayList<>(BUILT_IN);
    for (String pattern : extraPatterns) {
      if (pattern.isBlank()
          || pattern.contains(";")
          || pattern.contains("!")
          || pattern.contains("=")
          || pattern.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException(
            "deserialization_allow_list entry '" + pattern + "' is not a class-name pattern");
      }
      all.add(pattern);
    }
    this.names = List.copyOf(all);
    this.patterns =
        ObjectInputFilter.Config.createFilter(LIMITS + ";" + String.join(";", all) + ";!*");
  }

  /**
   * A filter for one stream of {@code streamBytes} bytes, which remembers why it refused. No array
   * in such a stream can hold more elements than the stream has bytes (each element takes at least
   * one), so a longer declared length is refused before the array is allocated: otherwise a few
   * bytes declaring a {@code long[99_999_999]} would allocate 800 MB.
   */
  Verdict newVerdict(long streamBytes) {
    return new Verdict(streamBytes);
  }

  /**
   * Whether a class of this name (as {@link java.io.ObjectStreamClass#getName} gives it, arrays as
   * {@code [Lcom.acme.Foo;}) may be loaded at all. {@code ObjectInputStream} resolves (loads) a
   * class before the filter sees it, so the stream asks this first: a class the allow-list does not
   * name is never loaded by the reading class loader. A module-qualified pattern ({@code
   * module/pattern}) is judged by its class part here; the filter decides after loading.
   */
  boolean mayLoad(String className) {
    String name = className;
    while (name.startsWith("[")) {
      name = name.substring(1);
    }
    if (name.length() == 1 && name.length() < className.length()) {
      return true; // an array of a primitive type
    }
    if (name.startsWith("L") && name.endsWith(";")) {
      name = name.substring(1, name.length() - 1);
    }
    for (String pattern : names) {
      if (matches(pattern.substring(pattern.indexOf('/') + 1), name)) {
        return true;
      }
    }
    return false;
  }

  private static boolean matches(String pattern, String name) {
    if (pattern.endsWith(".**")) {
      return name.startsWith(pattern.substring(0, pattern.length() - 2));
    }
    if (pattern.endsWith(".*")) {
      String packagePrefix = pattern.substring(0, pattern.length() - 1);
      return name.startsWith(packagePrefix) && name.indexOf('.', packagePrefix.length()) < 0;
    }
    if (pattern.endsWith("*")) {
      return name.startsWith(pattern.substring(0, pattern.length() - 1));
    }
    return name.equals(pattern);
  }

  /** The message for a class refused by name. */
  static String refusal(String className) {
    return "refused to deserialize class "
        + className
        + ": it is not in deserialization_allow_list (values read from a shared store are"
        + " untrusted; add the class or its package to the allow-list to accept it)";
  }

  /** Per-stream filter state: remembers the first rejected class for the exception message. */
  final class Verdict implements ObjectInputFilter {
    private final long streamBytes;
    private String rejected;

    Verdict(long streamBytes) {
      this.streamBytes = streamBytes;
    }

    /** Records a class refused by name before loading (see {@link #mayLoad}). */
    void refuseByName(String className) {
      if (rejected == null) {
        rejected = refusal(className);
      }
    }

    @Override
    public Status checkInput(FilterInfo info) {
      if (info.arrayLength() > streamBytes) {
        if (rejected == null) {
          rejected =
              "refused to deserialize a stored value: it declares an array of "
                  + info.arrayLength()
                  + " elements in a stream of "
                  + streamBytes
                  + " bytes";
        }
        return Status.REJECTED;
      }
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
        rejected =
            type != null
                ? refusal(type.getName())
                : "refused to deserialize a stored value: it exceeds the limits " + LIMITS;
      }
      return status;
    }

    String rejected() {
      return rejected;
    }
  }
}
