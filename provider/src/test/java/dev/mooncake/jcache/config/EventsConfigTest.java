package dev.mooncake.jcache.config;

import static dev.mooncake.jcache.config.ConfigTestSupport.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.CacheDefinition.NearCacheSettings;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code events_endpoint} and a cache's {@code near_cache}. */
class EventsConfigTest {
  @TempDir Path dir;

  private MooncakeConfig load(String singleQuoted) {
    return ConfigTestSupport.load(
        ConfigTestSupport.write(dir, "c.json", json(singleQuoted)).toUri());
  }

  @Test
  void offWhenAbsent() {
    MooncakeConfig config = load("{}");
    assertNull(config.eventsEndpoint());
  }

  @Test
  void readsEndpointAndNearCache() {
    MooncakeConfig config =
        load(
            "{'events_endpoint':' tcp://127.0.0.1:5557 ',"
                + "'caches':{'users':{'near_cache':{'max_entries':1000}},'plain':{}}}");
    assertEquals("tcp://127.0.0.1:5557", config.eventsEndpoint());
    assertEquals(new NearCacheSettings(1000), config.caches().get("users").nearCache());
    assertNull(config.caches().get("plain").nearCache());
  }

  @ParameterizedTest
  @CsvSource({"tcp://127.0.0.1:5557", "tcp://master.local:1", "tcp://[::1]:5557"})
  void endpointForms(String endpoint) {
    assertEquals(endpoint, load("{'events_endpoint':'" + endpoint + "'}").eventsEndpoint());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{'events_endpoint':''}|events_endpoint|is empty",
        "{'events_endpoint':'127.0.0.1:5557'}|events_endpoint|is not tcp://host:port",
        "{'events_endpoint':'tcp://*:5557'}|events_endpoint|bind address",
        "{'events_endpoint':'tcp://0.0.0.0:5557'}|events_endpoint|bind address",
        "{'events_endpoint':'tcp://h:99999'}|events_endpoint|out of range",
        "{'events_endpoint':5557}|events_endpoint|string",
        "{'caches':{'users':{'near_cache':{'max_entries':10}}}}|caches.users.near_cache|needs events_endpoint",
        "{'events_endpoint':'tcp://127.0.0.1:1','caches':{'u':{'near_cache':{}}}}|caches.u.near_cache.max_entries|is required",
        "{'events_endpoint':'tcp://127.0.0.1:1','caches':{'u':{'near_cache':{'max_entries':0}}}}|caches.u.near_cache.max_entries|must be > 0",
        "{'strict':true,'events_endpoint':'tcp://127.0.0.1:1','caches':{'u':{'near_cache':{'max_entries':1,'ttl':3}}}}|caches.u.near_cache.ttl|unknown",
        "{'events_endpoint':'tcp://127.0.0.1:1','caches':{'u':{'near_cache':true}}}|caches.u.near_cache|object",
      })
  void badSettingsNameTheKey(String config, String key, String problem) {
    ConfigException e = assertThrows(ConfigException.class, () -> load(config));
    assertTrue(e.getMessage().contains(key), e.getMessage());
    assertTrue(e.getMessage().toLowerCase().contains(problem.toLowerCase()), e.getMessage());
  }
}
