package dev.mooncake.jcache.config;

import static dev.mooncake.jcache.config.ConfigTestSupport.MOONCAKE;
import static dev.mooncake.jcache.config.ConfigTestSupport.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.ConfigTestSupport.RecordingWarnings;
import dev.mooncake.jcache.config.MooncakeConfig.Consistency.Level;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code lock_segment_size}: {@code standalone-store} with {@code consistency: cluster}. */
class LockSegmentConfigTest {
  private static final String STANDALONE =
      MOONCAKE + ",'mode':'standalone-store','preferred_segments':['127.0.0.1:13156']";

  private final RecordingWarnings warnings = new RecordingWarnings();

  private MooncakeConfig parse(String singleQuotedJson) {
    return ConfigLoader.parse(json(singleQuotedJson), "test.json", warnings.warnings());
  }

  private String failure(String singleQuotedJson) {
    return assertThrows(ConfigException.class, () -> parse(singleQuotedJson)).getMessage();
  }

  @Test
  void standaloneRunsClusterWithASixteenMibLockSegmentAndValuesInThePool() {
    MooncakeConfig config = parse("{" + STANDALONE + "}");
    assertEquals(Level.CLUSTER, config.consistency().level());
    assertEquals(0, config.globalSegmentSize());
    assertEquals(16L << 20, config.lockSegmentSize());
    assertEquals(16L << 20, config.contributedSegmentSize());
    assertEquals(List.of("127.0.0.1:13156"), config.replica().preferredSegments());
    assertTrue(warnings.messages.isEmpty(), warnings.messages::toString);
  }

  @Test
  void theLockSegmentCanBeSizedFromSixteenMibUp() {
    assertEquals(
        32L << 20, parse("{" + STANDALONE + ",'lock_segment_size':'32MB'}").lockSegmentSize());
    String message = failure("{" + STANDALONE + ",'lock_segment_size':'8MB'}");
    assertTrue(message.contains("lock_segment_size"), message);
    assertTrue(message.contains("below 16 MiB"), message);
  }

  @Test
  void withoutClusterThereIsNoLockSegment() {
    MooncakeConfig local = parse("{" + STANDALONE + ",'consistency':'local'}");
    assertEquals(0, local.lockSegmentSize());
    assertEquals(0, local.contributedSegmentSize());
    String message =
        failure("{" + STANDALONE + ",'consistency':'local','lock_segment_size':'16MB'}");
    assertTrue(message.contains("only in mode \"standalone-store\" with"), message);
  }

  @Test
  void embeddedModeKeepsItsLocksInItsOwnSegmentAndRefusesTheKey() {
    MooncakeConfig embedded = parse("{" + MOONCAKE + "}");
    assertEquals(0, embedded.lockSegmentSize());
    assertEquals(embedded.globalSegmentSize(), embedded.contributedSegmentSize());
    String message = failure("{" + MOONCAKE + ",'lock_segment_size':'16MB'}");
    assertTrue(message.contains("where locks live in global_segment_size"), message);
  }

  @Test
  void thePoolCanBeFoundThroughTheMastersMetricsPortInstead() {
    MooncakeConfig config =
        parse(
            "{"
                + MOONCAKE
                + ",'mode':'standalone-store','master_metrics_address':' 127.0.0.1:9003 '}");
    assertEquals("127.0.0.1:9003", config.masterMetricsAddress());
    assertEquals(List.of(), config.replica().preferredSegments());
    String message =
        failure("{" + MOONCAKE + ",'mode':'standalone-store','master_metrics_address':'nohost'}");
    assertTrue(message.contains("master_metrics_address"), message);
    assertTrue(message.contains("has no port"), message);
    // embedded under cluster: acquisitions check where lock records land (LockPlacement)
    assertEquals(
        "127.0.0.1:9003",
        parse("{" + MOONCAKE + ",'master_metrics_address':'127.0.0.1:9003'}")
            .masterMetricsAddress());
    message =
        failure(
            "{" + MOONCAKE + ",'consistency':'local','master_metrics_address':'127.0.0.1:9003'}");
    assertTrue(message.contains("is used only with \"consistency\": \"cluster\""), message);
    assertEquals(null, parse("{" + STANDALONE + "}").masterMetricsAddress());
  }

  @Test
  void theKeyIsDocumented() throws IOException {
    String guide = Files.readString(ProjectFiles.find("docs/configuration.md"));
    assertTrue(guide.contains("`lock_segment_size`"), "docs/configuration.md");
    assertTrue(guide.contains("`master_metrics_address`"), "docs/configuration.md");
  }
}
