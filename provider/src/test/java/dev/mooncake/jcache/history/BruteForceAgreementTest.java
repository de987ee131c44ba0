package dev.mooncake.jcache.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The checker agrees with the brute-force oracle on thousands of small random histories. */
class BruteForceAgreementTest {
  private static final int HISTORIES = 2_000;

  @Test
  void randomResultsAgree() {
    RandomHistories histories = new RandomHistories(20261203L);
    int[] verdicts = compare(histories::withRandomResults);
    // Made-up results are mostly wrong, but short histories with unknowns pass often enough.
    assertTrue(verdicts[0] >= HISTORIES / 20, "linearizable: " + verdicts[0]);
    assertTrue(verdicts[1] >= HISTORIES / 2, "not linearizable: " + verdicts[1]);
  }

  @Test
  void executionsAgree() {
    RandomHistories histories = new RandomHistories(42L);
    int[] verdicts = compare(histories::fromExecution);
    assertTrue(verdicts[0] >= HISTORIES / 2, "linearizable: " + verdicts[0]);
    assertTrue(verdicts[1] >= HISTORIES / 20, "not linearizable: " + verdicts[1]);
  }

  /** Counts of {linearizable, not linearizable}, after asserting agreement on each history. */
  private static int[] compare(Supplier<List<Operation>> generator) {
    int[] verdicts = new int[2];
    for (int i = 0; i < HISTORIES; i++) {
      List<Operation> history = generator.get();
      boolean expected = BruteForceOracle.linearizable(history, RandomHistories::segmentOf);
      KeyResult result =
          LinearizabilityChecker.check(history, RandomHistories::segmentOf, Duration.ofSeconds(10))
              .keys()
              .get(0);
      Verdict verdict = expected ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE;
      int index = i;
      assertEquals(
          verdict,
          result.verdict(),
          () ->
              "history "
                  + index
                  + ":\n"
                  + history.stream().map(Operation::toLine).collect(Collectors.joining("\n"))
                  + "\n"
                  + result.explanation());
      verdicts[expected ? 0 : 1]++;
    }
    System.out.printf("%d linearizable, %d not linearizable%n", verdicts[0], verdicts[1]);
    return verdicts;
  }
}
