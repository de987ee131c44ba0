package dev.mooncake.jcache.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The JVMs tests start: the test's own {@code java}, with native access declared for the bridge as
 * docs/native-bridge.md tells users to (JEP 472: Java 24+ warns on every JNI load without it; Java
 * 17 accepts the option and ignores it), and their output without the JVM's own warnings.
 */
public final class ChildJava {
  /** The class-path form of the option docs/native-bridge.md documents. */
  public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

  /**
   * Lines the JVM itself prints, not the provider: the JDK's {@code WARNING: ...} blocks
   * (restricted methods, sun.misc.Unsafe, dynamically loaded agents) and HotSpot's {@code OpenJDK
   * 64-Bit Server VM warning: ...}. slf4j-simple's lines look like {@code [main] WARN logger -
   * ...}, never like these.
   */
  private static final Pattern JVM_WARNING =
      Pattern.compile("^(WARNING: .*|\\S.* VM warning: .*)$");

  private static final String DEFAULT_JAVA25 = "/usr/lib/jvm/temurin-25-jdk-amd64";

  private ChildJava() {}

  /** The test JVM's {@code java} launcher. */
  public static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * A Java 25 {@code java}: this JVM's when it is one, else the one under {@code
   * -Dmooncake.java25.home} (default {@value #DEFAULT_JAVA25}, where this project's machines keep
   * it). Skips the test, saying why, when there is none.
   */
  public static Path java25(String why) {
    if (Runtime.version().feature() >= 25) {
      return Path.of(java());
    }
    Path home = Path.of(System.getProperty("mooncake.java25.home", DEFAULT_JAVA25));
    Path java = home.resolve("bin").resolve("java");
    assumeTrue(
        Files.isExecutable(java),
        "no Java 25 JDK at " + home + " (set -Dmooncake.java25.home): " + why);
    return java;
  }

  /** {@code java} and the native access option: the start of every child command line here. */
  public static List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(java());
    command.add(NATIVE_ACCESS);
    return command;
  }

  /** All of a child's stdout or stderr as text, read on its own so that the child never blocks. */
  public static CompletableFuture<String> readAll(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /** {@code output} without the lines the JVM printed about itself ({@link #JVM_WARNING}). */
  public static String withoutJvmWarnings(String output) {
    return output
        .lines()
        .filter(line -> !JVM_WARNING.matcher(line).matches())
        .collect(Collectors.joining("\n"));
  }
}
