package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CapacityModelTest {
  /** Made-up per-call costs, distinct powers of ten so that each sum names its terms. */
  private static final Map<String, Double> MICROS =
      Map.ofEntries(
          Map.entry(CapacityModel.GET_HIT, 1.0),
          Map.entry(CapacityModel.PUT_NEW, 10.0),
          Map.entry(CapacityModel.REMOVE, 100.0),
          Map.entry(CapacityModel.GET_SIZE, 1_000.0),
          Map.entry(CapacityModel.PUT_PINNED, 10_000.0),
          Map.entry(CapacityModel.BATCH_GET_2, 100_000.0),
          Map.entry(CapacityModel.REMOVE_PINNED, 1_000_000.0),
          Map.entry(CapacityModel.IS_EXIST, 2.0),
          Map.entry(CapacityModel.BATCH_EXIST_2, 4.0),
          Map.entry(CapacityModel.BATCH_EXIST_512, 514.0));

  private final CapacityModel model = new CapacityModel(MICROS);

  @Test
  void aPutCostsTheSumOfItsStoreCalls() {
    assertEquals(1_110.0, model.put(CapacityModel.Put.LOCAL));
    assertEquals(1_110_110.0, model.put(CapacityModel.Put.CLUSTER));
    assertEquals(110.0, model.put(CapacityModel.Put.KEPT_HELD));
    assertEquals(model.put(CapacityModel.Put.CLUSTER), model.put(CapacityModel.Put.KEPT_NOT_HELD));
  }

  @Test
  void aMixedOpWeighsGetsAndPuts() {
    assertEquals(0.9 * 1 + 0.1 * 110, model.mixedOp(CapacityModel.Put.KEPT_HELD, 0.1), 1e-9);
  }

  @Test
  void aBatchExistIsLinearBetweenTheMeasuredSizes() {
    assertEquals(4.0, model.batchExist(2), 1e-9);
    assertEquals(514.0, model.batchExist(512), 1e-9);
    assertEquals(204.0, model.batchExist(202), 1e-9); // 1 µs per key beyond 2
  }

  @Test
  void theKeeperPaysItsPollAHundredTimesASecondAndItsRenewals() {
    // 10 kept locks: 20 keys polled (22 µs) × 100, and 2 renewals of 100,000 µs
    assertEquals(100 * 22.0 + 2 * 100_000.0, model.keeperMicrosPerSecond(10, 2), 1e-6);
  }

  @Test
  void theFleetIsWhatFitsIntoOneCoreSecond() {
    assertEquals(100, CapacityModel.fleet(10_000));
    assertEquals(99, CapacityModel.fleet(10_001));
    assertThrows(IllegalArgumentException.class, () -> CapacityModel.fleet(0));
  }

  @Test
  void aCallKindNotMeasuredIsNamed() {
    CapacityModel partial = new CapacityModel(Map.of(CapacityModel.GET_HIT, 1.0));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> partial.put(CapacityModel.Put.KEPT_HELD));
    assertTrue(e.getMessage().contains(CapacityModel.REMOVE), e.getMessage());
  }

  @Test
  void theFleetTableHasARowPerProtocol() {
    String table = model.fleetTable();
    assertEquals(
        5,
        table.lines().filter(l -> l.startsWith("| cluster") || l.startsWith("| local")).count(),
        table);
    // local: 0.9 × 1 + 0.1 × 1,110 µs per op, a Ping costed as an is_exist (2 µs/s): 8 JVMs
    assertTrue(table.contains("| local | 111.9 | 2 | 111,902 | 8 | 11.2 |"), table);
  }
}
