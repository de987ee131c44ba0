package dev.mooncake.jcache.internal.config.parse;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mooncake.jcache.config.ConfigException;
import java.io.IOException;

/**
 * Parses the bytes of a config file into a JSON object, with errors that name the source and place.
 */
public final class ConfigJsonParser {
  private static final JsonMapper MAPPER =
      JsonMapper.builder()
          // A key given twice is a mistake whichever value was meant.
          .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
          // Exact decimals: "1.1" workers or sizes must not pass through binary rounding.
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
          // Python's json (vLLM) writes NaN/Infinity; parse them so the error can name the key.
          .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private ConfigJsonParser() {}

  public static ObjectNode parse(byte[] bytes, String source) {
    JsonNode root;
    try {
      root = MAPPER.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw new ConfigException(
          "Mooncake config "
              + source
              + ": invalid JSON"
              + where(e.getLocation())
              + ": "
              + problem(e),
          e);
    } catch (IOException e) {
      throw new ConfigException(
          "Mooncake config " + source + ": cannot read: " + e.getMessage(), e);
    }
    if (root == null || root.isMissingNode()) {
      throw new ConfigException(
          "Mooncake config " + source + ": the file is empty; expected a JSON object");
    }
    if (!root.isObject()) {
      throw new ConfigException(
          "Mooncake config "
              + source
              + ": the top level must be a JSON object, not "
              + ConfigObject.describe(root));
    }
    return (ObjectNode) root;
  }

  /** Jackson's message, without its advice on Jackson features (meaningless to a config author). */
  private static String problem(JsonProcessingException e) {
    String message = e.getOriginalMessage();
    int featureAdvice = message.indexOf(" for `ObjectNode`: not allowed when");
    if (message.startsWith("Duplicate field") && featureAdvice > 0) {
      return message.substring(0, featureAdvice) + ": a key may be given only once";
    }
    return message;
  }

  private static String where(JsonLocation location) {
    if (location == null || location.getLineNr() < 0) {
      return "";
    }
    return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }
}
