package dev.mooncake.jcache.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.ConfigTestSupport.RecordingWarnings;
import org.junit.jupiter.api.Test;

/** Unknown keys: a warning once per (source, key) by default, an error with "strict": true. */
class UnknownKeyTest {
  private final RecordingWarnings warnings = new RecordingWarnings();

  private MooncakeConfig parse(String json, String source) {
    return ConfigLoader.parse(ConfigTestSupport.json(json), source, warnings.warnings());
  }

  @Test
  void unknownKeysAreWarnedAboutByName() {
    parse(
        "{'protocoll':'tcp','caches':{'users':{'colour':'blue','expiry':{'policy':'eternal','ttl':5}}}}",
        "a.json");

    assertEquals(3, warnings.messages.size(), warnings.messages::toString);
    assertTrue(
        warnings.messages.stream()
            .anyMatch(
                m ->
                    m.contains(
                        "a.json: protocoll: unknown key ignored (did you mean 'protocol'?)")),
        warnings.messages::toString);
    assertTrue(
        warnings.messages.stream().anyMatch(m -> m.contains("caches.users.colour")),
        warnings.messages::toString);
    assertTrue(
        warnings.messages.stream().anyMatch(m -> m.contains("caches.users.expiry.ttl")),
        warnings.messages::toString);
  }

  @Test
  void eachUnknownKeyIsWarnedAboutOncePerSource() {
    parse("{'protocoll':'tcp'}", "a.json");
    parse("{'protocoll':'tcp'}", "a.json");
    parse("{'protocoll':'tcp'}", "b.json");

    assertEquals(2, warnings.messages.size(), warnings.messages::toString);
  }

  @Test
  void strictMakesUnknownKeysErrors() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> parse("{'strict':true,'metadata_sever':'P2PHANDSHAKE'}", "strict.json"));

    assertTrue(e.getMessage().contains("strict.json"), e.getMessage());
    assertTrue(
        e.getMessage().contains("metadata_sever: unknown key (did you mean 'metadata_server'?)"),
        e.getMessage());
    assertTrue(warnings.messages.isEmpty());
  }

  @Test
  void strictAcceptsEveryKnownKey() {
    MooncakeConfig config = parse(ConfigTestSupport.ALL_KEYS, "all-keys.json");

    assertTrue(config.strict());
    assertTrue(warnings.messages.isEmpty(), warnings.messages::toString);
  }
}
