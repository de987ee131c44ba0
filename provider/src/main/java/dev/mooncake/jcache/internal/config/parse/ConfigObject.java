package dev.mooncake.jcache.internal.config.parse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mooncake.jcache.config.ConfigException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One JSON object of the config, read key by key with typed getters that fail with the key's full
 * path ({@code caches.users.expiry.duration}). Every key asked for counts as known; {@link
 * #finish()} reports the others. A JSON {@code null} reads as "not set".
 */
final class ConfigObject {
  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");

  private final ObjectNode node;
  private final String path;
  private final ConfigContext context;
  private final Set<String> known = new LinkedHashSet<>();

  ConfigObject(ObjectNode node, String path, ConfigContext context) {
    this.node = node;
    this.path = path;
    this.context = context;
  }

  ConfigContext context() {
    return context;
  }

  /** The full path of a key of this object. */
  String path(String key) {
    String segment = PLAIN_KEY.matcher(key).matches() ? key : "\"" + key + "\"";
    if (path.isEmpty()) {
      return segment;
    }
    return PLAIN_KEY.matcher(key).matches() ? path + "." + segment : path + "[" + segment + "]";
  }

  ConfigException error(String key, String problem) {
    return context.error(path(key), problem);
  }

  /** The raw value of a key, empty when absent or null; marks the key as known. */
  Optional<JsonNode> value(String key) {
    known.add(key);
    JsonNode value = node.get(key);
    return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
  }

  Optional<String> string(String key) {
    return value(key).map(v -> requireString(key, v));
  }

  String string(String key, String defaultValue) {
    return string(key).orElse(defaultValue);
  }

  /** A string, or a JSON array of strings joined with commas (device lists). */
  Optional<String> stringOrList(String key) {
    return value(key)
        .map(v -> v.isArray() ? String.join(",", strings(key, v)) : requireString(key, v));
  }

  Optional<Boolean> bool(String key) {
    return value(key)
        .map(v -> kind(key, v, v.isBoolean(), "a JSON boolean (true or false)").booleanValue());
  }

  boolean bool(String key, boolean defaultValue) {
    return bool(key).orElse(defaultValue);
  }

  /** An integer; rejects fractions, strings and values outside {@code int}. */
  Optional<Integer> integer(String key) {
    return value(key).map(v -> toInt(key, v));
  }

  /** A number (NaN and infinities are refused). */
  Optional<Double> number(String key) {
    return value(key)
        .map(
            v -> {
              double d = kind(key, v, v.isNumber(), "a number").doubleValue();
              if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw error(key, "must be a finite number, not " + v.asText());
              }
              return d;
            });
  }

  /** A byte size: a whole JSON number or a size string ({@link SizeParser}). */
  Optional<Long> size(String key) {
    return quantity(key, SizeParser.QUANTITY);
  }

  /**
   * A duration in milliseconds: a whole JSON number or a duration string ({@link DurationParser}).
   */
  Optional<Long> durationMillis(String key) {
    return quantity(key, DurationParser.QUANTITY);
  }

  /**
   * A quantity given as a string with a unit or as a JSON number; the parsers' complaints become
   * errors about {@code key}.
   */
  private Optional<Long> quantity(String key, Quantity quantity) {
    return value(key)
        .map(
            v -> {
              try {
                if (v.isTextual()) {
                  return quantity.fromText().apply(v.textValue());
                }
                if (v.isNumber()) {
                  return quantity.fromNumber().apply(finiteDecimal(key, v));
                }
              } catch (IllegalArgumentException e) {
                throw error(key, e.getMessage());
              }
              throw error(key, "must be " + quantity.expected() + ", not " + describe(v));
            });
  }

  Optional<ConfigObject> object(String key) {
    return value(key)
        .map(
            v ->
                new ConfigObject(
                    (ObjectNode) kind(key, v, v.isObject(), "a JSON object"), path(key), context));
  }

  /** A JSON array of strings. */
  Optional<List<String>> stringList(String key) {
    return value(key).map(v -> strings(key, v));
  }

  /** A JSON array of objects, each read through its own {@link ConfigObject}. */
  Optional<List<ConfigObject>> objectList(String key) {
    return value(key)
        .map(
            v -> {
              kind(key, v, v.isArray(), "a JSON array");
              List<ConfigObject> objects = new ArrayList<>();
              for (int i = 0; i < v.size(); i++) {
                JsonNode element = v.get(i);
                String elementPath = path(key) + "[" + i + "]";
                if (!element.isObject()) {
                  throw context.error(
                      elementPath, "must be a JSON object, not " + describe(element));
                }
                objects.add(new ConfigObject((ObjectNode) element, elementPath, context));
              }
              return objects;
            });
  }

  /**
   * Every entry of this object, by key, marking them all known (for maps such as {@code caches}).
   */
  Map<String, JsonNode> entries() {
    Map<String, JsonNode> entries = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      known.add(entry.getKey());
      entries.put(entry.getKey(), entry.getValue());
    }
    return entries;
  }

  /** Converts a JSON value to an int or fails naming the key. */
  int toInt(String key, JsonNode v) {
    BigDecimal value = finiteDecimal(key, kind(key, v, v.isNumber(), "an integer"));
    if (value.stripTrailingZeros().scale() > 0) {
      throw error(key, "must be an integer, not " + value.toPlainString());
    }
    try {
      return value.intValueExact();
    } catch (ArithmeticException e) {
      throw error(key, value.toPlainString() + " is too large (at most " + Integer.MAX_VALUE + ")");
    }
  }

  /** Reports the keys of this object nobody asked for. */
  void finish() {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        context.unknownKey(path(name), closest(name));
      }
    }
  }

  private String requireString(String key, JsonNode v) {
    return kind(key, v, v.isTextual(), "a string").textValue();
  }

  private List<String> strings(String key, JsonNode v) {
    kind(key, v, v.isArray(), "a JSON array of strings");
    List<String> strings = new ArrayList<>();
    for (int i = 0; i < v.size(); i++) {
      JsonNode element = v.get(i);
      if (!element.isTextual()) {
        throw context.error(
            path(key) + "[" + i + "]", "must be a string, not " + describe(element));
      }
      strings.add(element.textValue());
    }
    return strings;
  }

  /**
   * {@code v} when it {@code is} of the kind wanted; otherwise an error: it must be {@code what}.
   */
  private JsonNode kind(String key, JsonNode v, boolean is, String what) {
    if (!is) {
      throw error(key, "must be " + what + ", not " + describe(v));
    }
    return v;
  }

  private BigDecimal finiteDecimal(String key, JsonNode v) {
    if (v.isDouble() || v.isFloat()) {
      double d = v.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw error(key, "must be a finite number, not " + v.asText());
      }
    }
    return v.decimalValue();
  }

  /** A known key within edit distance 2 of an unknown one, for a "did you mean" hint. */
  private String closest(String unknown) {
    String best = null;
    int bestDistance = 3;
    for (String candidate : known) {
      int distance =
          editDistance(unknown.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return best;
  }

  private static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  /** A short description of a JSON value for messages: its type and text. */
  static String describe(JsonNode v) {
    if (v.isTextual()) {
      return "the string \"" + v.textValue() + "\"";
    }
    if (v.isBoolean()) {
      return "the boolean " + v.booleanValue();
    }
    if (v.isNumber()) {
      return "the number " + v.asText();
    }
    if (v.isArray()) {
      return "an array";
    }
    if (v.isObject()) {
      return "an object";
    }
    return v.getNodeType().toString().toLowerCase(Locale.ROOT);
  }
}
