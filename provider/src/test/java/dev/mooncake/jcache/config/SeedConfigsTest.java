package dev.mooncake.jcache.config;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;

/**
 * The seeds' example configs over the fake libmooncake_store.so (one process, so the addresses are
 * only checked, not dialled): {@link SeedConfigsScenarios}.
 */
class SeedConfigsTest extends SeedConfigsScenarios {
  @Override
  protected void assumeAvailable() {
    assumeTrue(
        System.getProperty("mooncake.fixture.library") != null,
        "skipped: mooncake.fixture.library (the fake libmooncake_store.so) is not set");
  }

  @Override
  protected Map<String, String> addresses() {
    return Map.of(
        "node01", "127.0.0.1",
        "localhost:8080", "127.0.0.1:8080",
        "localhost:50051", "127.0.0.1:50051");
  }

  @Override
  protected Map<String, String> environment() {
    return Map.of("MOONCAKE_STORE_LIBRARY", System.getProperty("mooncake.fixture.library"));
  }
}
