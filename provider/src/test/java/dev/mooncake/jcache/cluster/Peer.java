package dev.mooncake.jcache.cluster;

import dev.mooncake.jcache.testing.ChildJava;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A {@link ClusterPeer} child JVM, spoken to over its stdin and stdout. */
public final class Peer implements AutoCloseable {
  /**
   * The longest a peer may print nothing while the test waits for it: its longest command is a few
   * operation timeouts (20 s in the multi-JVM configs); the rest tells a hung peer from a slow one
   * on a loaded machine.
   */
  private static final long REPLY_TIMEOUT_SECONDS = 90;

  private static final String EOF = "\0eof";

  final String id;
  private final Process process;
  private final PrintWriter to;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new ArrayList<>();

  private Peer(String id, Process process) {
    this.id = id;
    this.process = process;
    this.to = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader from =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = from.readLine()) != null; ) {
                  lines.add(line);
                }
              } catch (IOException e) {
                // the process went away: EOF below
              }
              lines.add(EOF);
            },
            "peer-" + id + "-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts a peer on {@code config} with the test's class path; await {@link #ready}. */
  public static Peer start(String id, Path config, Map<String, String> environment)
      throws IOException {
    return start(id, ClusterPeer.class.getName(), List.of(config.toString(), id), environment);
  }

  /** Starts {@code mainClass} with {@code arguments} in a child JVM with the test's class path. */
  public static Peer start(
      String id, String mainClass, List<String> arguments, Map<String, String> environment)
      throws IOException {
    List<String> command = childJvm(mainClass, List.of(), arguments);
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().putAll(environment);
    return new Peer(id, builder.start());
  }

  /**
   * The command line of a child JVM running {@code mainClass} with the test's class path, quick to
   * start (C1 only), logging warnings only, releasing its Mooncake client at once; {@code
   * jvmOptions} come before the class.
   */
  public static List<String> childJvm(
      String mainClass, List<String> jvmOptions, List<String> arguments) {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command =
        new ArrayList<>(
            List.of(
                ChildJava.java(),
                ChildJava.NATIVE_ACCESS,
                "-cp",
                classPath,
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-Dmooncake.jcache.clientLingerMillis=0"));
    command.addAll(jvmOptions);
    command.add(mainClass);
    command.addAll(arguments);
    return command;
  }

  public void ready() throws InterruptedException {
    await(line -> line.equals("READY"));
  }

  public long pid() {
    return process.pid();
  }

  public void send(String line) {
    to.println(line);
  }

  /** Sends a command and waits for its reply ({@code OK …} or {@code ERR …}). */
  public String ask(String command) throws InterruptedException {
    send(command);
    return reply();
  }

  public String reply() throws InterruptedException {
    return await(line -> line.startsWith("OK ") || line.startsWith("ERR "));
  }

  /** The next line that matches, skipping others; fails on EOF or after the reply timeout. */
  public String await(Predicate<String> wanted) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(REPLY_TIMEOUT_SECONDS);
    while (true) {
      String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new AssertionError(
            "peer "
                + id
                + " did not answer within "
                + REPLY_TIMEOUT_SECONDS
                + " s; it printed "
                + seen);
      }
      if (line.equals(EOF)) {
        lines.add(EOF);
        throw new AssertionError("peer " + id + " ended; it printed " + seen);
      }
      seen.add(line);
      if (wanted.test(line)) {
        return line;
      }
    }
  }

  /** Sends a signal to the peer (STOP, CONT, KILL). */
  public void signal(String name) throws IOException, InterruptedException {
    int code =
        new ProcessBuilder("kill", "-" + name, Long.toString(pid())).inheritIO().start().waitFor();
    if (code != 0) {
      throw new AssertionError("kill -" + name + " " + pid() + " answered " + code);
    }
    if (name.equals("STOP")) {
      awaitStopped(); // a signal takes effect asynchronously: the scenario needs it stopped
    }
  }

  /** Waits until /proc says the process is stopped (state T). */
  private void awaitStopped() throws IOException, InterruptedException {
    java.nio.file.Path stat = java.nio.file.Path.of("/proc", Long.toString(pid()), "stat");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(REPLY_TIMEOUT_SECONDS);
    while (System.nanoTime() < deadline) {
      String text = java.nio.file.Files.readString(stat);
      int end = text.lastIndexOf(')');
      if (end >= 0 && end + 2 < text.length() && text.charAt(end + 2) == 'T') {
        return;
      }
      Thread.sleep(1); // polling /proc: nothing to wait on
    }
    throw new AssertionError("peer " + id + " did not stop");
  }

  /** Waits for the process to end (after a kill). */
  public int awaitExit() throws InterruptedException {
    if (!process.waitFor(REPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      throw new AssertionError("peer " + id + " did not exit");
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      send("exit");
      // its manager's close and Mooncake's destroy (4 s); the rest is slack
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}
