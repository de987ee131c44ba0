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
    parse("{'protocoll':'tcp','caches':{'users':{'colour':'blue','expiry':{'policy':'eternal','ttl':5}}}}", "a.json");

    assertEquals(3, warnings.messages.size(), warnings.messages::toString);
    assertTrue(warnings.messages.stream()
            .anyMatch(m -> m.contains("a.json: protocoll: unknown key ignored (did you mean 'protocol'?)")),
        warnings.messages::toString);
    assertTrue(warnings.messages.stream().anyMatch(m -> m.contains("caches.users.colour")), warnings.messages::toString);
    assertTrue(warnings.messages.stream().anyMatch(m -> m.contains("caches.users.expiry.ttl")), warnings.messages::toString);
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
    ConfigException e = assertThrows(ConfigException.class,
        () -> parse("{'strict':true,'metadata_sever':'P2PHANDSHAKE'}", "strict.json"));

    assertTrue(e.getMessage().contains("strict.json"), e.getMessage());
    assertTrue(e.getMessage().contains("metadata_sever: unknown key (did you mean 'metadata_server'?)"), e.getMessage());
    assertTrue(warnings.messages.isEmpty());
  }

  @Test
  void strictAcceptsEveryKnownKey() {
    MooncakeConfig config = parse("{'strict':true,'type':'mooncake_store','backend':'mooncake','mode':'embedded',"
        + "'metadata_server':'P2PHANDSHAKE','master_server_address':'127.0.0.1:50051','master_server_addr':'127.0.0.1:50051',"
        + "'protocol':'rdma','device_name':'mlx5_0','rdma_devices':'mlx5_0','local_hostname':'127.0.0.1',"
        + "'global_segment_size':'1GB','local_buffer_size':'256MB','enable_offload':false,'tenant_id':'t',"
        + "'library':'/usr/lib/libmooncake_store.so','num_workers':2,'per_op_workers':{'lookup':1,'retrieve':1,'store':1,'delete':1},"
        + "'single_calls_on_lanes':false,'replica_num':1,'with_soft_pin':false,'with_hard_pin':false,'preferred_segments':[],"
        + "'operation_timeout_ms':30000,'eviction':{'high_watermark_ratio':0.9,'eviction_ratio':0.05},"
        + "'deserialization_allow_list':[],'caches':{'c':{'key_type':'java.lang.String','value_type':'java.lang.String',"
        + "'expiry':{'policy':'eternal'},'statistics':true,'management':true,'read_through':false,'write_through':false,"
        + "'loader':'a.L','writer':'a.W','listeners':[{'factory':'a.F','filter':'a.G','old_value_required':true,"
        + "'synchronous':false}],'codec':'auto'}}}", "all-keys.json");

    assertTrue(config.strict());
    assertTrue(warnings.messages.isEmpty(), warnings.messages::toString);
  }
}
