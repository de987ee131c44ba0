package dev.mooncake.jcache.history;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * A peer JVM's history as it happens: one line before each call, one after, each written with one
 * unbuffered write, so a {@code kill -9} loses at most the line being formed and an invocation
 * without a completion reads as an unknown outcome ({@link PeerLogs}). Lines, fields separated by
 * one space, "-" for none (values, keys and process names have no spaces):
 *
 * <pre>
 * I n process kind key argument argument2 invokedNanos   the call is about to be made
 * C n completedNanos result                             it returned
 * E n completedNanos exception class: message           it threw: the outcome is unknown
 * T n stored value (clipped)                            the result read was torn or not ours
 * </pre>
 */
final class PeerLog implements AutoCloseable {
  private final FileOutputStream out;
  private long next;

  PeerLog(Path file) throws IOException {
    this.out = new FileOutputStream(file.toFile(), true);
  }

  /** Writes the invocation line (time taken here, before the call) and answers its number. */
  long invoke(String process, OpKind kind, String key, String arg, String arg2) {
    return invokeAll(process, List.of(new Part(kind, key, arg, arg2)));
  }

  /** One per-key part of a call: a multi-key call has one per key. */
  record Part(OpKind kind, String key, String arg, String arg2) {}

  /**
   * Writes the invocation lines of one call's parts, all with the one time taken here, in one write
   * (a kill leaves all or none), and answers the first part's number: the others follow it.
   */
  synchronized long invokeAll(String process, List<Part> parts) {
    long first = next;
    long now = System.nanoTime();
    StringBuilder lines = new StringBuilder();
    for (Part p : parts) {
      lines.append("I " + next++ + " " + process + " " + p.kind() + " " + p.key() + " ");
      lines.append(f(p.arg()) + " " + f(p.arg2()) + " " + now + "\n");
    }
    writeRaw(lines.toString());
    return first;
  }

  /** The call returned {@code result} ("null" for absent); time taken by the caller right after. */
  synchronized void completed(long n, long completedNanos, String result) {
    write("C " + n + " " + completedNanos + " " + result);
  }

  synchronized void failed(long n, long completedNanos, Throwable failure) {
    write("E " + n + " " + completedNanos + " " + oneLine(failure));
  }

  synchronized void torn(long n, String stored) {
    write("T " + n + " " + Values.clip(stored));
  }

  static String oneLine(Throwable failure) {
    String text = failure.getClass().getName() + ": " + failure.getMessage();
    Throwable cause = failure.getCause();
    if (cause != null && cause != failure) {
      text += " (cause " + cause.getClass().getName() + ": " + cause.getMessage() + ")";
    }
    return text.replaceAll("\\s+", " ");
  }

  private static String f(String field) {
    return field == null ? "-" : field;
  }

  private void write(String line) {
    writeRaw(line + "\n");
  }

  private void writeRaw(String lines) {
    try {
      out.write(lines.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
