package dev.mooncake.jcache.history;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@link PeerLog} files back into {@link Operation}s, pairing each invocation with its
 * completion: one that threw, or that has none (its JVM was killed mid-call), is an unknown outcome
 * (completed {@link Operation#OPEN}, result null).
 */
final class PeerLogs {
  /** The operations of one file, the failures seen (one line each) and the torn reads. */
  record Parsed(List<Operation> operations, List<String> failures, List<String> torn) {}

  private PeerLogs() {}

  static Parsed read(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    // A line without its newline was cut by a kill in the middle of its write: not there.
    int end = text.lastIndexOf('\n');
    String whole = end < 0 ? "" : text.substring(0, end);
    Map<Long, String[]> invoked = new LinkedHashMap<>();
    Map<Long, Operation> done = new LinkedHashMap<>();
    List<String> failures = new ArrayList<>();
    List<String> torn = new ArrayList<>();
    for (String line : whole.split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split(" ", 4);
      long n = Long.parseLong(f[1]);
      switch (f[0]) {
        case "I" -> invoked.put(n, line.split(" "));
        case "C" -> done.put(n, completed(file, invoked.get(n), Long.parseLong(f[2]), f[3]));
        case "E" -> failures.add(describe(invoked.get(n)) + ": " + f[3]);
        case "T" -> torn.add(describe(invoked.get(n)) + " read " + f[2]);
        default -> throw new IllegalStateException(file + ": unknown line " + line);
      }
    }
    List<Operation> operations = new ArrayList<>(invoked.size());
    for (Map.Entry<Long, String[]> call : invoked.entrySet()) {
      Operation op = done.get(call.getKey());
      operations.add(op != null ? op : unknown(call.getValue()));
    }
    return new Parsed(operations, failures, torn);
  }

  private static Operation completed(Path file, String[] i, long completedNanos, String result) {
    if (i == null) {
      throw new IllegalStateException(file + ": a completion without its invocation");
    }
    return new Operation(
        i[2],
        i[4],
        OpKind.valueOf(i[3]),
        v(i[5]),
        v(i[6]),
        Long.parseLong(i[7]),
        completedNanos,
        result);
  }

  private static Operation unknown(String[] i) {
    return Operation.unknown(
        i[2], i[4], OpKind.valueOf(i[3]), v(i[5]), v(i[6]), Long.parseLong(i[7]));
  }

  private static String describe(String[] i) {
    return i == null ? "?" : i[2] + " " + i[3] + " " + i[4];
  }

  private static String v(String field) {
    return field.equals("-") ? null : field;
  }
}
