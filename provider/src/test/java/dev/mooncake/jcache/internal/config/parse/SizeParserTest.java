package dev.mooncake.jcache.internal.config.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SizeParserTest {
  private static final long KIB = 1024L;
  private static final long MIB = KIB * 1024;
  private static final long GIB = MIB * 1024;
  private static final long TIB = GIB * 1024;

  @ParameterizedTest(name = "\"{0}\" = {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "0            | 0",
        "4096         | 4096",
        "3221225472   | 3221225472",
        "4GB          | 4294967296",
        "4gb          | 4294967296",
        "' 4 GB '     | 4294967296",
        "512 mb       | 536870912",
        "512MB        | 536870912",
        "1.5GB        | 1610612736",
        "1.5 gb       | 1610612736",
        ".5kb         | 512",
        "2.           | 2",
        "10kb         | 10240",
        "100b         | 100",
        "100B         | 100",
        "1.7b         | 1",
        "8k           | 8192",
        "8m           | 8388608",
        "2g           | 2147483648",
        "1t           | 1099511627776",
        "2tb          | 2199023255552",
        "1 TB         | 1099511627776",
        "4kib         | 4096",
        "4MiB         | 4194304",
        "4 GiB        | 4294967296",
        "1tib         | 1099511627776",
        "9223372036854775807 | 9223372036854775807",
      })
  void parsesSizes(String text, long expected) {
    assertEquals(expected, SizeParser.parse(text));
  }

  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''                   | cannot be empty",
        "'   '                | cannot be empty",
        "-1                   | is negative",
        "-4GB                 | is negative",
        "abc                  | is not a size",
        "GB                   | is not a size",
        "1.2.3GB              | is not a size",
        "1e9                  | is not a size",
        "4 PB                 | unknown unit 'pb'",
        "4 G B                | is not a size",
        "NaN                  | not a finite number",
        "inf                  | not a finite number",
        "Infinity             | not a finite number",
        "+5                   | is not a size",
        "9223372036854775808  | too large",
        "8388608TB            | too large",
        "0x10                 | is not a size",
      })
  void rejectsBadSizes(String text, String fragment) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SizeParser.parse(text));
    assertTrue(e.getMessage().contains(fragment), e.getMessage());
  }

  @Test
  void unitsAreBinary() {
    assertEquals(KIB, SizeParser.parse("1kb"));
    assertEquals(MIB, SizeParser.parse("1mb"));
    assertEquals(GIB, SizeParser.parse("1gb"));
    assertEquals(TIB, SizeParser.parse("1tb"));
  }

  @Test
  void jsonNumbersMustBeWholeAndNonNegative() {
    assertEquals(42, SizeParser.fromNumber(new BigDecimal("42")));
    assertEquals(42, SizeParser.fromNumber(new BigDecimal("42.0")));
    assertThrows(
        IllegalArgumentException.class, () -> SizeParser.fromNumber(new BigDecimal("42.5")));
    assertThrows(IllegalArgumentException.class, () -> SizeParser.fromNumber(new BigDecimal("-1")));
    assertThrows(
        IllegalArgumentException.class, () -> SizeParser.fromNumber(new BigDecimal("1e30")));
  }
}
