package dev.mooncake.jcache.history;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

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
  synchronized long invoke(String process, OpKind kind, String key, String arg, String arg2) {
    long n = next++;
    long now = System.nanoTime();
    write(
        "I " + n + " " + process + " " + kind + " " + key + " " + f(arg) + " " + f(arg2) + " "
            + now);
    return n;
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
    try {
      out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
