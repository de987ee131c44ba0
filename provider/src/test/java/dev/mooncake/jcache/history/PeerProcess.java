package dev.mooncake.jcache.history;

import dev.mooncake.jcache.cluster.Peer;
import dev.mooncake.jcache.testing.ChildJava;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A peer JVM of the history tests ({@link HistoryPeer}, {@link TenantPeer}), read by a thread of
 * its own: it keeps the peer's progress, its DONE line and its replies apart, so waiting for one
 * never swallows another. A wait fails when the peer ends, or when it makes no progress for {@link
 * #STALL_SECONDS}.
 */
public final class PeerProcess implements AutoCloseable {
  /** The longest a peer may go without a line while the harness waits for it. */
  static final long STALL_SECONDS = 120;

  public final String id;
  private final Process process;
  private final PrintWriter to;
  private final List<String> replies = new ArrayList<>();
  private final List<String> other = new ArrayList<>();
  private int asked;
  private boolean ready;
  private long progress;
  private String done;
  private boolean ended;
  private long lastLineNanos = System.nanoTime();

  private PeerProcess(String id, Process process) {
    this.id = id;
    this.process = process;
    this.to = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    Thread reader = new Thread(this::read, "peer-" + id + "-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code mainClass} with the test's class path; its stderr goes to the test's. */
  static PeerProcess start(
      String id, Class<?> mainClass, List<String> arguments, Map<String, String> environment)
      throws IOException {
    List<String> command =
        Peer.childJvm(
            mainClass.getName(),
            List.of("-Xmx256m", "-Dmooncake.jcache.shutdownGraceMillis=0"),
            arguments);
    command.set(0, peerJava());
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().putAll(environment);
    return new PeerProcess(id, builder.start());
  }

  /**
   * The peers' {@code java}: {@code -Dhistory.peerJava} if set; else the test's own when it has
   * virtual threads (Java 21+); else a Java 25 where this project's machines keep one (so that the
   * workload's virtual threads run through the provider's hand-off); else the test's own (the
   * workload then runs platform threads only, and says so: {@code THREADS 0 of n virtual}).
   */
  static String peerJava() {
    String set = System.getProperty("history.peerJava");
    if (set != null) {
      return set;
    }
    if (Runtime.version().feature() < 21) {
      Path java25 =
          Path.of(
              System.getProperty("mooncake.java25.home", "/usr/lib/jvm/temurin-25-jdk-amd64"),
              "bin",
              "java");
      if (Files.isExecutable(java25)) {
        return java25.toString();
      }
    }
    return ChildJava.java();
  }

  private void read() {
    try (BufferedReader from =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = from.readLine()) != null; ) {
        synchronized (this) {
          lastLineNanos = System.nanoTime();
          if (line.equals("READY")) {
            ready = true;
          } else if (line.startsWith("PROGRESS ")) {
            progress = Math.max(progress, Long.parseLong(line.substring(9)));
          } else if (line.startsWith("DONE")) {
            done = line;
          } else if (line.startsWith("OK ") || line.startsWith("ERR ")) {
            replies.add(line);
          } else {
            other.add(line);
          }
          notifyAll();
        }
      }
    } catch (IOException e) {
      // the process went away: ended below
    }
    synchronized (this) {
      ended = true;
      notifyAll();
    }
  }

  public long pid() {
    return process.pid();
  }

  /** Lines that were neither progress, DONE nor a reply (e.g. examples a peer prints). */
  synchronized List<String> otherLines() {
    return List.copyOf(other);
  }

  synchronized long progress() {
    return progress;
  }

  void send(String line) {
    to.println(line);
  }

  synchronized void awaitReady() throws InterruptedException {
    awaitUntil(() -> ready, "READY");
  }

  synchronized void awaitProgress(long operations) throws InterruptedException {
    awaitUntil(() -> progress >= operations || done != null, "progress " + operations);
  }

  /** Waits for the DONE line (as long as the peer keeps making progress) and answers it. */
  synchronized String awaitDone() throws InterruptedException {
    awaitUntil(() -> done != null, "DONE");
    return done;
  }

  /** Sends a command and waits for its reply ({@code OK …} or {@code ERR …}). */
  public synchronized String ask(String command) throws InterruptedException {
    int index = asked++;
    send(command);
    awaitUntil(() -> replies.size() > index, "a reply to " + command);
    return replies.get(index);
  }

  /**
   * The same, waiting at most {@code limit}: null if no reply came by then (a later {@link #ask}
   * still gets its own reply: replies come in the order of the commands).
   */
  public synchronized String askWithin(String command, Duration limit) throws InterruptedException {
    int index = asked++;
    send(command);
    long deadline = System.nanoTime() + limit.toNanos();
    while (replies.size() <= index) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || ended) {
        return null;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return replies.get(index);
  }

  private interface Condition {
    boolean holds();
  }

  private void awaitUntil(Condition condition, String what) throws InterruptedException {
    while (!condition.holds()) {
      if (ended) {
        throw new AssertionError("peer " + id + " ended before " + what + "; it printed " + other);
      }
      long idle = System.nanoTime() - lastLineNanos;
      long left = TimeUnit.SECONDS.toNanos(STALL_SECONDS) - idle;
      if (left <= 0) {
        throw new AssertionError(
            "peer " + id + " printed nothing for " + STALL_SECONDS + " s waiting for " + what);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /** Sends a signal (STOP, CONT, KILL); after STOP, waits until /proc shows it stopped. */
  void signal(String name) throws IOException, InterruptedException {
    int code =
        new ProcessBuilder("kill", "-" + name, Long.toString(pid())).inheritIO().start().waitFor();
    if (code != 0) {
      throw new AssertionError("kill -" + name + " " + pid() + " answered " + code);
    }
    if (name.equals("STOP")) {
      awaitState('T');
    }
  }

  /** Waits until /proc/pid/stat shows the state (a signal takes effect asynchronously). */
  private void awaitState(char state) throws IOException, InterruptedException {
    Path stat = Path.of("/proc", Long.toString(pid()), "stat");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      String text = Files.readString(stat);
      int end = text.lastIndexOf(')');
      if (end >= 0 && end + 2 < text.length() && text.charAt(end + 2) == state) {
        return;
      }
      Thread.sleep(1); // polling /proc: nothing to wait on
    }
    throw new AssertionError("peer " + id + " did not reach state " + state);
  }

  void awaitExit() throws InterruptedException {
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      throw new AssertionError("peer " + id + " did not exit");
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      send("exit");
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}
