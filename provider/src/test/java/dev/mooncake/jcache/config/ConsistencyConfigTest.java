package dev.mooncake.jcache.config;

import static dev.mooncake.jcache.config.ConfigTestSupport.MOONCAKE;
import static dev.mooncake.jcache.config.ConfigTestSupport.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.ConfigTestSupport.RecordingWarnings;
import dev.mooncake.jcache.config.MooncakeConfig.Consistency.Level;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code consistency}, {@code lock_lease_ms}, {@code client_ttl_ms}, {@code lock_keep_idle_ms}. */
class ConsistencyConfigTest {
  private final RecordingWarnings warnings = new RecordingWarnings();

  private MooncakeConfig parse(String singleQuotedJson) {
    return ConfigLoader.parse(json(singleQuotedJson), "test.json", warnings.warnings());
  }

  private String failure(String singleQuotedJson) {
    return assertThrows(ConfigException.class, () -> parse(singleQuotedJson)).getMessage();
  }

  @Test
  void mooncakeDefaultsToClusterWithAFiveSecondLease() {
    MooncakeConfig.Consistency c = parse("{" + MOONCAKE + "}").consistency();
    assertEquals(Level.CLUSTER, c.level());
    assertEquals(Duration.ofSeconds(5), c.lockLease());
    assertEquals(Duration.ofSeconds(10), c.clientTtl());
    assertTrue(warnings.messages.isEmpty(), warnings.messages::toString);
  }

  @Test
  void localAndTheLeaseCanBeChosen() {
    MooncakeConfig.Consistency c =
        parse("{" + MOONCAKE + ",'consistency':'local','lock_lease_ms':2000,'client_ttl_ms':4000}")
            .consistency();
    assertEquals(Level.LOCAL, c.level());
    assertEquals(Duration.ofSeconds(2), c.lockLease());
    assertEquals(Duration.ofSeconds(4), c.clientTtl());
  }

  @Test
  void theInProcessStoreIsOneJvmsAndAlwaysLocal() {
    assertEquals(Level.LOCAL, parse("{}").consistency().level());
    assertEquals(Level.LOCAL, parse("{'consistency':'cluster'}").consistency().level());
  }

  @Test
  void standaloneClusterWithoutThePoolNamedIsRefusedNamingTheWayOut() {
    String message = failure("{" + MOONCAKE + ",'mode':'standalone-store'}");
    assertTrue(message.contains("preferred_segments"), message);
    assertTrue(message.contains("lock segment"), message);
    assertTrue(message.contains("\"consistency\": \"local\""), message);
    assertEquals(
        Level.LOCAL,
        parse("{" + MOONCAKE + ",'mode':'standalone-store'," + "'consistency':'local'}")
            .consistency()
            .level());
  }

  @Test
  void badValuesAreRefused() {
    assertTrue(
        failure("{" + MOONCAKE + ",'consistency':'strong'}")
            .contains("unknown consistency 'strong'"));
    assertTrue(failure("{" + MOONCAKE + ",'lock_lease_ms':0}").contains("lock_lease_ms"));
    assertTrue(failure("{" + MOONCAKE + ",'client_ttl_ms':-1}").contains("client_ttl_ms"));
    String message = failure("{" + MOONCAKE + ",'lock_lease_ms':9000}");
    assertTrue(message.contains("must be below client_ttl_ms (10000 ms) minus"), message);
    parse("{" + MOONCAKE + ",'lock_lease_ms':8999}");
  }

  @Test
  void lockKeepingIsOffByDefaultAndItsIdleTimeStaysBelowTheLease() {
    assertEquals(Duration.ZERO, parse("{" + MOONCAKE + "}").consistency().lockKeepIdle());
    assertEquals(
        Duration.ofMillis(200),
        parse("{" + MOONCAKE + ",'lock_keep_idle_ms':200}").consistency().lockKeepIdle());
    String below = failure("{" + MOONCAKE + ",'lock_keep_idle_ms':5000}");
    assertTrue(below.contains("lock_keep_idle_ms"), below);
    assertTrue(below.contains("below lock_lease_ms (5000 ms)"), below);
    assertTrue(failure("{" + MOONCAKE + ",'lock_keep_idle_ms':-1}").contains("lock_keep_idle_ms"));
  }
}
