package dev.mooncake.jcache.real;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of a main class of the test classpath that a test talks to line by line while it runs
 * ({@link ChildJvm} runs one to its end): lines to its stdin, its stdout lines awaited with a
 * bound, its stderr in a file, signals by pid.
 */
final class PeerJvm implements AutoCloseable {
  private final Process process;
  private final Path stderr;
  private final Writer in;

  /** The peer's stdout lines; empty once it ended. */
  private final BlockingQueue<Optional<String>> lines = new LinkedBlockingQueue<>();

  private PeerJvm(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(this::read, "peer-" + process.pid() + "-out");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code main} with {@code args}, its stderr in {@code stderr}. */
  static PeerJvm start(Class<?> main, Path stderr, String... args) throws IOException {
    Process process =
        new ProcessBuilder(ChildJvm.command(main, List.of(), args))
            .redirectError(stderr.toFile())
            .start();
    return new PeerJvm(process, stderr);
  }

  private void read() {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        lines.add(Optional.of(line));
      }
    } catch (IOException ended) {
      // the peer was killed: its output ends here
    } finally {
      lines.add(Optional.empty());
    }
  }

  /**
   * The next line starting with {@code prefix} (lines before it are skipped); fails when the peer's
   * output ends first or none comes {@code within} (a hang guard, not a synchronisation).
   */
  String await(String prefix, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      Optional<String> line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null || line.isEmpty()) {
        lines.add(Optional.empty()); // for the next await
        throw new AssertionError(
            "no line '"
                + prefix
                + "…' from the peer "
                + (line == null ? "within " + within : "before its output ended")
                + "; its stderr: "
                + stderr);
      }
      if (line.get().startsWith(prefix)) {
        return line.get();
      }
    }
  }

  void send(String line) throws IOException {
    in.write(line + "\n");
    in.flush();
  }

  long pid() {
    return process.pid();
  }

  /** Sends {@code signal} ({@code -STOP}, {@code -CONT}) with kill(1). */
  void signal(String signal) throws Exception {
    RealMooncake.signal(pid(), signal);
  }

  /** SIGKILL, and waits for the process to be gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly().waitFor();
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }
}
