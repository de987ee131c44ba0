package dev.mooncake.jcache.history;

import java.util.Locale;
import java.util.Objects;

/**
 * One operation as a client saw it, or a loss of stored values ({@link OpKind#LOSE_SEGMENT}, {@link
 * OpKind#LOSE_ALL}, key null) with the window in which it happened.
 *
 * <p>An operation whose {@code result} is null or whose {@code completedNanos} is {@link #OPEN} has
 * an unknown outcome: it may take effect at any instant after its invocation, or never (a call that
 * threw or timed out may still be applied later, so its completion time is not used). The value
 * {@code "null"} stands for "absent" in results and may not be written as a value.
 *
 * @param process the JVM and thread, unique per client thread of the run, e.g. "p1/0"
 * @param key the entry's key; null for LOSE_SEGMENT / LOSE_ALL
 * @param argument value written / expected, or the segment name of LOSE_SEGMENT; null where none
 * @param argument2 REPLACE_IF_EQUALS' new value; else null
 * @param invokedNanos System.nanoTime() before the call
 * @param completedNanos System.nanoTime() after it returned; {@link #OPEN} when the outcome is
 *     unknown
 * @param result "null" for an absent answer, "true"/"false", a value, "ok"; null when unknown
 */
public record Operation(
    String process,
    String key,
    OpKind kind,
    String argument,
    String argument2,
    long invokedNanos,
    long completedNanos,
    String result) {

  /** The completion time of an operation whose outcome is unknown. */
  public static final long OPEN = Long.MAX_VALUE;

  /** The result text of an absent value. */
  public static final String ABSENT = "null";

  /** The process name the loss factories use. */
  public static final String NEMESIS = "nemesis";

  /** How {@link #toLine()} writes a null field (and an {@link #OPEN} completion). */
  static final String NULL_FIELD = "\\N";

  public Operation {
    Objects.requireNonNull(process, "process");
    Objects.requireNonNull(kind, "kind");
    if (kind.isLoss() != (key == null)) {
      throw new IllegalArgumentException(
          kind + (kind.isLoss() ? " applies to every key: its key must be null" : " needs a key"));
    }
    if (completedNanos < invokedNanos) {
      throw new IllegalArgumentException(
          "completed (" + completedNanos + ") before invoked (" + invokedNanos + ")");
    }
  }

  /** A completed operation with one argument (or none). */
  public static Operation of(
      String process,
      String key,
      OpKind kind,
      String argument,
      long invokedNanos,
      long completedNanos,
      String result) {
    return new Operation(process, key, kind, argument, null, invokedNanos, completedNanos, result);
  }

  /** A completed {@code replace(key, expected, newValue)}. */
  public static Operation replaceIfEquals(
      String process,
      String key,
      String expected,
      String newValue,
      long invokedNanos,
      long completedNanos,
      String result) {
    return new Operation(
        process,
        key,
        OpKind.REPLACE_IF_EQUALS,
        expected,
        newValue,
        invokedNanos,
        completedNanos,
        result);
  }

  /** An operation whose outcome is unknown (it threw, timed out, or its JVM died mid-call). */
  public static Operation unknown(
      String process,
      String key,
      OpKind kind,
      String argument,
      String argument2,
      long invokedNanos) {
    return new Operation(process, key, kind, argument, argument2, invokedNanos, OPEN, null);
  }

  /** The values stored in {@code segment} were lost at some instant inside the window. */
  public static Operation loseSegment(String segment, long invokedNanos, long completedNanos) {
    return new Operation(
        NEMESIS, null, OpKind.LOSE_SEGMENT, segment, null, invokedNanos, completedNanos, "ok");
  }

  /** Every value of every key was lost at some instant inside the window. */
  public static Operation loseAll(long invokedNanos, long completedNanos) {
    return new Operation(
        NEMESIS, null, OpKind.LOSE_ALL, null, null, invokedNanos, completedNanos, "ok");
  }

  /** This invocation, completed (a recorder creates the operation before the call). */
  public Operation completed(long completedNanos, String result) {
    return new Operation(
        process, key, kind, argument, argument2, invokedNanos, completedNanos, result);
  }

  /** Whether the outcome is unknown: the operation may take effect after invocation, or never. */
  public boolean outcomeUnknown() {
    return result == null || completedNanos == OPEN;
  }

  /** The one-line text form: the record's fields tab-separated, {@code \N} for null / OPEN. */
  public String toLine() {
    return String.join(
        "\t",
        field(process),
        field(key),
        kind.name(),
        field(argument),
        field(argument2),
        Long.toString(invokedNanos),
        completedNanos == OPEN ? NULL_FIELD : Long.toString(completedNanos),
        field(result));
  }

  /** Reads {@link #toLine()}'s form back. */
  public static Operation parse(String line) {
    String[] f = line.split("\t", -1);
    if (f.length != 8) {
      throw new IllegalArgumentException("8 tab-separated fields expected: " + line);
    }
    return new Operation(
        unfield(f[0]),
        unfield(f[1]),
        OpKind.valueOf(f[2]),
        unfield(f[3]),
        unfield(f[4]),
        Long.parseLong(f[5]),
        f[6].equals(NULL_FIELD) ? OPEN : Long.parseLong(f[6]),
        unfield(f[7]));
  }

  /**
   * A readable line with times in milliseconds relative to {@code originNanos}, e.g. {@code p1/0
   * [+0.120 ms, +0.480 ms] PUT_IF_ABSENT(a) -> true}; "?" marks an unknown completion or result.
   */
  public String describe(long originNanos) {
    StringBuilder text =
        new StringBuilder(process).append(" [").append(ms(invokedNanos, originNanos));
    text.append(", ").append(completedNanos == OPEN ? "?" : ms(completedNanos, originNanos));
    text.append("] ").append(kind);
    if (argument != null || argument2 != null || kind == OpKind.INVOKE) {
      text.append('(').append(argument);
      if (argument2 != null) {
        text.append(", ").append(argument2);
      }
      text.append(')');
    }
    if (!kind.isLoss()) {
      text.append(" -> ").append(outcomeUnknown() ? "?" : result);
    }
    return text.toString();
  }

  private static String ms(long nanos, long originNanos) {
    return String.format(Locale.ROOT, "%+.3f ms", (nanos - originNanos) / 1e6);
  }

  private static String field(String value) {
    if (value == null) {
      return NULL_FIELD;
    }
    if (value.equals(NULL_FIELD) || value.indexOf('\t') >= 0 || value.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("cannot write a field as one line: " + value);
    }
    return value;
  }

  private static String unfield(String field) {
    return field.equals(NULL_FIELD) ? null : field;
  }
}
