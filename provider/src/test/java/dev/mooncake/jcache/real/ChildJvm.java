package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.testing.ChildJava;
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
    CompletableFuture<String> out = ChildJava.readAll(process.getInputStream());
    CompletableFuture<String> err = ChildJava.readAll(process.getErrorStream());
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
    List<String> command = ChildJava.command();
    command.addAll(options);
    command.addAll(List.of("-cp", classPath, main.getName()));
    command.addAll(List.of(args));
    return command;
  }
}
