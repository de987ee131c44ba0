package dev.mooncake.jcache.reliability;

import dev.mooncake.jcache.testing.ChildJava;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Stops a child JVM as {@code docker stop} does: a signal (SIGTERM there; SIGINT for Ctrl-C here),
 * then SIGKILL if the process still runs 10 s later. The child's stdout and stderr are read as one
 * stream from its start, so nothing blocks it, and kept for the assertions.
 */
public final class DockerStop {
  /** docker stop's default: SIGKILL this long after the signal. */
  public static final long KILL_AFTER_MILLIS = 10_000;

  /** How a stop went: the exit code, ms from sending the signal to the exit, whether KILL came. */
  public record Stopped(int exitCode, long millis, boolean killed, List<String> output) {
    public boolean printed(String line) {
      return output.contains(line);
    }

    public boolean logged(String text) {
      return output.stream().anyMatch(line -> line.contains(text));
    }
  }

  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final CountDownLatch ready = new CountDownLatch(1);
  private final CompletableFuture<Void> ended;

  private DockerStop(Process process) {
    this.process = process;
    this.ended =
        CompletableFuture.runAsync(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                  output.add(line);
                  if (line.equals("READY")) {
                    ready.countDown();
                  }
                }
              } catch (IOException e) {
                output.add("reading the child: " + e);
              } finally {
                ready.countDown();
              }
            });
  }

  /**
   * Starts {@code main} of the test class path in a JVM of its own (ProcessBuilder: a child started
   * in the background by a non-interactive shell would ignore SIGINT) and waits for its READY line.
   */
  public static DockerStop start(Class<?> main, List<String> options, String... args)
      throws Exception {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = ChildJava.command();
    command.addAll(options);
    command.addAll(List.of("-cp", classPath, main.getName()));
    command.addAll(List.of(args));
    DockerStop child =
        new DockerStop(new ProcessBuilder(command).redirectErrorStream(true).start());
    // a JVM start and a store open take a few seconds; 120 s tells a hung child from a slow one
    if (!child.ready.await(120, TimeUnit.SECONDS) || !child.output.contains("READY")) {
      child.process.destroyForcibly();
      throw new AssertionError("the child did not get ready: " + child.output);
    }
    return child;
  }

  public long pid() {
    return process.pid();
  }

  /** Sends {@code signal} ("TERM", "INT"), then KILL after 10 s if the JVM still runs. */
  public Stopped stop(String signal) throws Exception {
    String ignored = ignoredSignals();
    long sent = System.nanoTime();
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).start();
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -" + signal + " " + pid() + " failed");
    }
    boolean exited = process.waitFor(KILL_AFTER_MILLIS, TimeUnit.MILLISECONDS);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
    if (!exited) {
      process.destroyForcibly().waitFor();
    }
    ended.get(30, TimeUnit.SECONDS);
    if (!exited) {
      output.add("(SigIgn of the child before the signal: " + ignored + ")");
    }
    return new Stopped(process.exitValue(), millis, !exited, List.copyOf(output));
  }

  /** The child's ignored-signal mask (Linux), for a message when a signal did nothing. */
  private String ignoredSignals() {
    try {
      return Files.readAllLines(Path.of("/proc/" + pid() + "/status")).stream()
          .filter(line -> line.startsWith("SigIgn:"))
          .findFirst()
          .orElse("unknown");
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
