package dev.mooncake.jcache.internal.config.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DurationParserTest {
  @ParameterizedTest(name = "\"{0}\" = {1} ms")
  @CsvSource(
      delimiter = '|',
      value = {
        "250ms   | 250",
        "250 MS  | 250",
        "1500    | 1500",
        "10s     | 10000",
        "1.5s    | 1500",
        "5m      | 300000",
        "1h      | 3600000",
        "2d      | 172800000",
        "' 30s ' | 30000",
        "0       | 0",
      })
  void parsesDurations(String text, long millis) {
    assertEquals(millis, DurationParser.parseMillis(text));
  }

  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''        | cannot be empty",
        "-5s       | is negative",
        "10x       | unknown unit 'x'",
        "ten       | is not a duration",
        "1.5ms     | whole number of milliseconds",
        "10 min    | unknown unit 'min'",
        "99999999999999999d | too long",
      })
  void rejectsBadDurations(String text, String fragment) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> DurationParser.parseMillis(text));
    assertTrue(e.getMessage().contains(fragment), e.getMessage());
  }
}
