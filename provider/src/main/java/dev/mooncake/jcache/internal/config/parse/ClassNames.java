package dev.mooncake.jcache.internal.config.parse;

import java.util.regex.Pattern;

/**
 * Checks the syntax of a class name in the config: a binary name ({@code com.acme.Foo}, {@code
 * com.acme.Outer$Inner}), optionally followed by {@code []} pairs ({@code byte[]}), or a JVM array
 * descriptor ({@code [B}). Whether the class exists is checked when the cache is configured, with
 * the cache manager's class loader ({@code CacheDefinitions}).
 */
final class ClassNames {
  private static final String IDENTIFIER =
      "[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*";
  private static final Pattern SOURCE_FORM =
      Pattern.compile(IDENTIFIER + "(\\." + IDENTIFIER + ")*(\\[])*");
  private static final Pattern DESCRIPTOR_FORM =
      Pattern.compile("\\[+([ZBCSIJFD]|L" + IDENTIFIER + "(\\." + IDENTIFIER + ")*;)");

  private ClassNames() {}

  static String validate(String name) {
    if (!SOURCE_FORM.matcher(name).matches() && !DESCRIPTOR_FORM.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "'"
              + name
              + "' is not a class name (expected e.g. com.acme.Foo, com.acme.Outer$Inner or byte[])");
    }
    return name;
  }
}
