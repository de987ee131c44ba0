package dev.mooncake.jcache.config;

import dev.mooncake.jcache.internal.config.parse.ConfigWarnings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Helpers shared by the config tests. */
final class ConfigTestSupport {
  /** The keys every valid Mooncake-backend config needs (JSON fragment, single quotes). */
  static final String MOONCAKE =
      "'backend':'mooncake','metadata_server':'P2PHANDSHAKE','master_server_address':'127.0.0.1:50051'";

  /** A config that uses every key the reader knows (single quotes). */
  static final String ALL_KEYS =
      "{'strict':true,'type':'mooncake_store','backend':'mooncake','mode':'embedded',"
          + "'metadata_server':'P2PHANDSHAKE','master_server_address':'127.0.0.1:50051','master_server_addr':'127.0.0.1:50051',"
          + "'protocol':'rdma','device_name':'mlx5_0','rdma_devices':'mlx5_0','local_hostname':'127.0.0.1',"
          + "'global_segment_size':'1GB','local_buffer_size':'256MB','enable_offload':false,'tenant_id':'t',"
          + "'library':'/usr/lib/libmooncake_store.so','num_workers':2,'per_op_workers':{'retrieve':1,'store':1,'delete':1},"
          + "'single_calls_on_lanes':false,'replica_num':1,'with_soft_pin':false,'with_hard_pin':false,'preferred_segments':[],'value_placement':'own-segment',"
          + "'operation_timeout_ms':30000,'consistency':'cluster','lock_lease_ms':5000,'client_ttl_ms':10000,'eviction':{'high_watermark_ratio':0.9,'eviction_ratio':0.05},"
          + "'deserialization_allow_list':[],'events_endpoint':'tcp://127.0.0.1:5557','caches':{'c':{'key_type':'java.lang.String','value_type':'java.lang.String',"
          + "'expiry':{'policy':'eternal'},'statistics':true,'management':true,'read_through':false,'write_through':false,"
          + "'loader':'a.L','writer':'a.W','listeners':[{'factory':'a.F','filter':'a.G','old_value_required':true,"
          + "'synchronous':false},{'listener':'a.M'}],'codec':'auto','near_cache':{'max_entries':100}}}}";

  private ConfigTestSupport() {}

  /** JSON written with single quotes, for readable tables. */
  static String json(String singleQuoted) {
    return singleQuoted.replace('\'', '"');
  }

  static Path write(Path dir, String name, String content) {
    try {
      Path file = dir.resolve(name);
      Files.createDirectories(file.getParent());
      Files.writeString(file, content, StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static MooncakeConfig load(URI uri) {
    return ConfigLoader.load(uri, null, new RecordingWarnings().warnings());
  }

  /** Collects warnings instead of logging them. */
  static final class RecordingWarnings {
    final List<String> messages = new ArrayList<>();
    private final ConfigWarnings warnings = new ConfigWarnings(messages::add);

    ConfigWarnings warnings() {
      return warnings;
    }
  }
}
