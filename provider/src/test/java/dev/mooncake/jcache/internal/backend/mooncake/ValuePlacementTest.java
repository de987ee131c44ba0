package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.config.MooncakeConfig.ValuePlacement;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code value_placement} in {@code embedded} mode over the fake: {@code own-segment} (the default)
 * gives value puts this client's segment as preference, so a client that leaves takes exactly what
 * it wrote; {@code any-segment} gives none, so the master places them (the fake: round robin over
 * the segments, as Mooncake's random strategy spreads them), and those that landed elsewhere
 * outlive the writer.
 */
class ValuePlacementTest {
  private static MooncakeStore open(ValuePlacement placement) {
    TestConfig config = new TestConfig();
    config.replica =
        new MooncakeConfig.ReplicaSettings(1, false, false, List.of(), null, placement);
    return config.open();
  }

  private static final int VALUES = 20;

  /** Opens a peer and a writer, the writer puts VALUES values and leaves: how many outlive it. */
  private static int survivorsOfTheWriter(ValuePlacement placement) {
    MooncakeStore peer = open(placement);
    try {
      MooncakeStore writer = open(placement);
      try {
        boolean own = writer.describe().contains("preferred=" + writer.segment());
        assertEquals(placement == ValuePlacement.OWN_SEGMENT, own, writer.describe());
        for (int i = 0; i < VALUES; i++) {
          ByteBuffer value = ByteBuffer.wrap(("value " + i).getBytes(StandardCharsets.UTF_8));
          assertEquals(0, writer.put("mcj/t/c/" + placement + i, value));
        }
      } finally {
        writer.close();
      }
      int survivors = 0;
      for (int i = 0; i < VALUES; i++) {
        survivors += peer.isExist("mcj/t/c/" + placement + i);
      }
      return survivors;
    } finally {
      peer.close();
    }
  }

  @Test
  void ownSegmentIsTheDefault() {
    assertEquals(
        ValuePlacement.OWN_SEGMENT, MooncakeConfig.ReplicaSettings.DEFAULT.valuePlacement());
  }

  @Test
  void ownSegmentValuesLeaveWithTheirWriter() {
    assertEquals(0, survivorsOfTheWriter(ValuePlacement.OWN_SEGMENT));
  }

  @Test
  void anySegmentValuesAreSpreadSoSomeOutliveTheirWriter() {
    int survivors = survivorsOfTheWriter(ValuePlacement.ANY_SEGMENT);
    assertTrue(survivors > 0 && survivors < VALUES, survivors + " of " + VALUES + " survived");
  }
}
