package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Why a figure's error bar is wide: the spread of its samples and the samples it would need. */
class ErrorBarsTest {
  // the full level: 2 forks × 5 iterations
  private static final Timing FULL = new Timing("full", 2, 2, 1, 5, 1, 1L << 30, 100_000);

  @Test
  void theSpreadFollowsFromTheErrorAndTheSampleCount() {
    // t(0.9995, 9) = 4.781: 10 samples of spread 10 % give ±4.781 × 10 % / √10 = ±15.1 %
    assertEquals(0.10, ErrorBars.spread(4.781 * 0.10 / Math.sqrt(10), 10), 1e-3);
  }

  @Test
  void samplesNeededIsTheFewestWhoseErrorIsWithinTheLimit() {
    // spread 5 %: 7 samples give t(6) 5.959 × 5 % / √7 = 11.3 %, 8 give 5.408 × 5 % / √8 = 9.6 %
    assertEquals(8, ErrorBars.samplesNeeded(0.05, 0.10));
    // spread 20 %: 49 samples give t(48) 3.505 × 20 % / 7 = 10.01 %, 50 give 3.500 × 20 % / 7.07
    assertEquals(50, ErrorBars.samplesNeeded(0.20, 0.10));
  }

  @Test
  void aWideFigureIsListedWithItsReasonAndANarrowOneIsNot() {
    Record wide = rec("mooncake-store", 100, 30); // ±30 %
    Record narrow = rec("redisson", 100, 5);
    StringBuilder md = new StringBuilder();

    ErrorBars.list(md, List.of(wide, narrow), FULL);

    String text = md.toString();
    assertTrue(text.contains("1 of 2 figures"), text);
    assertTrue(text.contains("of the 10 behind each figure"), text);
    // ±30 % over 10 samples: spread 30 × √10 / 4.781 = 19.8 %
    assertTrue(text.contains("mooncake-store read-heavy") && text.contains("±30%"), text);
    assertTrue(text.contains("samples spread ±20 %; ±10 % needs ~"), text);
    assertFalse(text.contains("redisson"), text);
  }

  @Test
  void whatCannotBeDerivedIsSaid() {
    assertEquals("level unknown: spread not derivable", ErrorBars.why(rec("x", 100, 30), 0));
    assertEquals("one sample: no error bar", ErrorBars.why(rec("x", 100, Double.NaN), 1));
  }

  private static Record rec(String peer, double score, double error) {
    return new Record(
        "readHeavy", peer, "1k", "uniform", 1, score, error, "ops/s", null, 0.0, null, 0.0, null);
  }
}
