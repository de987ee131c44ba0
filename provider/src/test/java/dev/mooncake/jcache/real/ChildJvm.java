package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A main class of the test classpath run to its end in a fresh JVM, its output kept. */
public record ChildJvm(int exitCode, String out, String err) {

  /**
   * Runs {@code main} with the JVM options, then the arguments; fails the test after 120 s (the
   * children here start, open a store and move a few MiB in seconds: a hang guard).
   */
  static ChildJvm run(Class<?> main, List<String> options, String... args) throws Exception {
    return run(main, Map.of(), options, args);
  }

  /** As {@link #run(Class, List, String...)}, with {@code environment} set (null: removed). */
  public static ChildJvm run(
      Class<?> main, Map<String, String> environment, List<String> options, String... args)
      throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command(main, options, args));
    environment.forEach(
        (name, value) -> {
          if (value == null) {
            builder.environment().remove(name);
          } else {
            builder.environment().put(name, value);
          }
        });
    Process process = builder.start();
    CompletableFuture<String> out = drain(process.getInputStream());
    CompletableFuture<String> err = drain(process.getErrorStream());
    boolean ended = process.waitFor(120, TimeUnit.SECONDS);
    if (!ended) {
      process.destroyForcibly();
    }
    assertTrue(ended, () -> main.getSimpleName() + " did not end within 120 s");
    return new ChildJvm(process.exitValue(), out.get(), err.get());
  }

  /** The command line of a JVM that runs {@code main} of the test classpath. */
  static List<String> command(Class<?> main, List<String> options, String... args) {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(options);
    command.addAll(List.of("-cp", classPath, main.getName()));
    command.addAll(List.of(args));
    return command;
  }

  private static CompletableFuture<String> drain(InputStream stream) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (stream) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            stream.transferTo(bytes);
            return bytes.toString(StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }
}
