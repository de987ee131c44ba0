package dev.mooncake.jcache.history;

import java.util.Objects;
import java.util.function.Function;

/**
 * A deliberately plain model of one JCache entry (a String, or null for absent) for the tests'
 * oracle, written apart from {@link EntryModel}: strings, not interned ids.
 */
final class ReferenceEntry {
  private ReferenceEntry() {}

  /** The entry's value after an operation, and what the operation answered. */
  record Outcome(String value, String result) {}

  static Outcome apply(String value, Operation op, Function<String, String> segmentOf) {
    String arg = op.argument();
    boolean present = value != null;
    return switch (op.kind()) {
      case GET -> new Outcome(value, text(value));
      case CONTAINS_KEY -> new Outcome(value, String.valueOf(present));
      case PUT -> new Outcome(arg, "ok");
      case PUT_IF_ABSENT -> new Outcome(present ? value : arg, String.valueOf(!present));
      case REPLACE -> new Outcome(present ? arg : null, String.valueOf(present));
      case REPLACE_IF_EQUALS ->
          arg.equals(value) ? new Outcome(op.argument2(), "true") : new Outcome(value, "false");
      case REMOVE -> new Outcome(null, String.valueOf(present));
      case REMOVE_BLIND -> new Outcome(null, "ok");
      case REMOVE_IF_EQUALS ->
          arg.equals(value) ? new Outcome(null, "true") : new Outcome(value, "false");
      case GET_AND_PUT, INVOKE -> new Outcome(arg, text(value));
      case GET_AND_REMOVE -> new Outcome(null, text(value));
      case GET_AND_REPLACE -> new Outcome(present ? arg : null, text(value));
      case LOSE_SEGMENT ->
          present && Objects.equals(segmentOf.apply(value), arg)
              ? new Outcome(null, "ok")
              : new Outcome(value, "ok");
      case LOSE_ALL -> new Outcome(null, "ok");
    };
  }

  /** Whether the recorded result of {@code op} admits the answer {@code actual}. */
  static boolean accepts(Operation op, String actual) {
    return op.outcomeUnknown()
        || op.kind() == OpKind.PUT
        || op.kind() == OpKind.REMOVE_BLIND
        || op.kind().isLoss()
        || op.result().equals(actual);
  }

  private static String text(String value) {
    return value == null ? "null" : value;
  }
}
