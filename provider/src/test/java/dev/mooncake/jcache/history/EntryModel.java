package dev.mooncake.jcache.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * One JCache entry as a sequential object, compiled for one key's sub-history. A state is a small
 * int so that the search's memo stays small and cheap to hash: {@link #ABSENT}, or the id of an
 * interned value (which also names the segment holding it, through {@code segmentOfValue}).
 */
final class EntryModel {
  static final int ABSENT = 0;
  static final int ILLEGAL = -1;

  /** Observed results of the boolean kinds. */
  private static final int FALSE = 0;

  private static final int TRUE = 1;

  /** The expected result of an operation whose result is unknown or ignored: anything goes. */
  private static final int ANY = Integer.MIN_VALUE;

  /** A result text that no state can produce (e.g. "maybe" for a boolean kind). */
  private static final int IMPOSSIBLE = Integer.MIN_VALUE + 1;

  /** One operation, compiled: value ids instead of strings. */
  private record Step(OpKind kind, int argument, int argument2, String segment, int expected) {}

  private final List<String> values = new ArrayList<>();
  private final Map<String, Integer> ids = new HashMap<>();
  private final Step[] steps;
  private final Function<String, String> segmentOfValue;

  /** The segment of each value that became a state, asked once (not of values only read). */
  private final String[] segments;

  private final boolean[] segmentKnown;

  EntryModel(List<Operation> ops, Function<String, String> segmentOfValue) {
    values.add(null); // ABSENT
    steps = new Step[ops.size()];
    for (int i = 0; i < steps.length; i++) {
      steps[i] = compile(ops.get(i));
    }
    this.segmentOfValue = segmentOfValue;
    segments = new String[values.size()];
    segmentKnown = new boolean[values.size()];
  }

  /** The state after operation {@code op} in {@code state}, or ILLEGAL if its result differs. */
  int step(int state, int op) {
    Step s = steps[op];
    if (s.expected != ANY && s.expected != observe(state, s)) {
      return ILLEGAL;
    }
    return next(state, s);
  }

  /** What {@code op} would have answered in {@code state}, as result text. */
  String wouldReturn(int state, int op) {
    Step s = steps[op];
    return switch (s.kind) {
      case CONTAINS_KEY, PUT_IF_ABSENT, REPLACE, REPLACE_IF_EQUALS, REMOVE, REMOVE_IF_EQUALS ->
          Boolean.toString(observe(state, s) == TRUE);
      case GET, GET_AND_PUT, GET_AND_REMOVE, GET_AND_REPLACE, INVOKE ->
          state == ABSENT ? Operation.ABSENT : values.get(state);
      default -> "ok";
    };
  }

  /** The state for humans: the value and its segment, or "absent". */
  String describe(int state) {
    if (state == ABSENT) {
      return "absent";
    }
    String segment = segmentOf(state);
    return values.get(state) + (segment == null ? "" : " (segment " + segment + ")");
  }

  private String segmentOf(int state) {
    if (state != ABSENT && !segmentKnown[state]) {
      segments[state] = segmentOfValue.apply(values.get(state));
      segmentKnown[state] = true;
    }
    return segments[state];
  }

  private static int observe(int state, Step s) {
    return switch (s.kind) {
      case GET, GET_AND_PUT, GET_AND_REMOVE, GET_AND_REPLACE, INVOKE -> state;
      case CONTAINS_KEY, REPLACE, REMOVE -> bool(state != ABSENT);
      case PUT_IF_ABSENT -> bool(state == ABSENT);
      case REPLACE_IF_EQUALS, REMOVE_IF_EQUALS -> bool(state == s.argument);
      case PUT, REMOVE_BLIND, LOSE_SEGMENT, LOSE_ALL -> ANY;
    };
  }

  private int next(int state, Step s) {
    return switch (s.kind) {
      case GET, CONTAINS_KEY -> state;
      case PUT, GET_AND_PUT, INVOKE -> s.argument;
      case PUT_IF_ABSENT -> state == ABSENT ? s.argument : state;
      case REPLACE, GET_AND_REPLACE -> state == ABSENT ? state : s.argument;
      case REPLACE_IF_EQUALS -> state == s.argument ? s.argument2 : state;
      case REMOVE, REMOVE_BLIND, GET_AND_REMOVE, LOSE_ALL -> ABSENT;
      case REMOVE_IF_EQUALS -> state == s.argument ? ABSENT : state;
      case LOSE_SEGMENT -> Objects.equals(segmentOf(state), s.segment) ? ABSENT : state;
    };
  }

  private static int bool(boolean b) {
    return b ? TRUE : FALSE;
  }

  private Step compile(Operation op) {
    OpKind kind = op.kind();
    if (kind.needsArgument() && op.argument() == null) {
      throw new IllegalArgumentException(kind + " needs an argument: " + op.toLine());
    }
    if (kind == OpKind.REPLACE_IF_EQUALS && op.argument2() == null) {
      throw new IllegalArgumentException("REPLACE_IF_EQUALS needs argument2: " + op.toLine());
    }
    if (kind == OpKind.LOSE_SEGMENT) {
      return new Step(kind, ABSENT, ABSENT, op.argument(), ANY);
    }
    return new Step(
        kind, intern(op.argument(), op), intern(op.argument2(), op), null, expected(op));
  }

  private int expected(Operation op) {
    if (op.outcomeUnknown()) {
      return ANY;
    }
    String result = op.result();
    return switch (op.kind()) {
      case GET, GET_AND_PUT, GET_AND_REMOVE, GET_AND_REPLACE, INVOKE ->
          result.equals(Operation.ABSENT) ? ABSENT : intern(result, op);
      case CONTAINS_KEY, PUT_IF_ABSENT, REPLACE, REPLACE_IF_EQUALS, REMOVE, REMOVE_IF_EQUALS ->
          result.equals("true") ? TRUE : result.equals("false") ? FALSE : IMPOSSIBLE;
      case PUT, REMOVE_BLIND, LOSE_SEGMENT, LOSE_ALL -> ANY;
    };
  }

  /** The id of a value (a value never written gets one too: no state will ever equal it). */
  private int intern(String value, Operation op) {
    if (value == null) {
      return ABSENT;
    }
    if (value.equals(Operation.ABSENT)) {
      throw new IllegalArgumentException("\"null\" means absent, not a value: " + op.toLine());
    }
    return ids.computeIfAbsent(
        value,
        v -> {
          values.add(v);
          return values.size() - 1;
        });
  }
}
