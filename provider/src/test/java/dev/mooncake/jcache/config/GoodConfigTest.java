package dev.mooncake.jcache.config;

import static dev.mooncake.jcache.config.ConfigTestSupport.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.config.CacheDefinition.ExpirySettings;
import dev.mooncake.jcache.config.CacheDefinition.ListenerDefinition;
import dev.mooncake.jcache.config.ConfigTestSupport.RecordingWarnings;
import dev.mooncake.jcache.config.MooncakeConfig.Backend;
import dev.mooncake.jcache.config.MooncakeConfig.EvictionSettings;
import dev.mooncake.jcache.config.MooncakeConfig.Mode;
import dev.mooncake.jcache.config.MooncakeConfig.ReplicaSettings;
import dev.mooncake.jcache.internal.config.parse.Protocols;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Valid configs of each backend and mode read to the expected settings. */
class GoodConfigTest {
  private final RecordingWarnings warnings = new RecordingWarnings();

  private MooncakeConfig parse(String singleQuotedJson) {
    return ConfigLoader.parse(json(singleQuotedJson), "test.json", warnings.warnings());
  }

  @Test
  void emptyObjectGivesTheInProcessDefaults() {
    MooncakeConfig config = parse("{}");

    assertEquals("test.json", config.source());
    assertEquals(Backend.IN_PROCESS, config.backend());
    assertEquals(Mode.EMBEDDED, config.mode());
    assertEquals("", config.metadataServer());
    assertEquals("", config.masterServerAddress());
    assertEquals("tcp", config.protocol());
    assertEquals("", config.deviceName());
    assertEquals("127.0.0.1", config.localHostname());
    assertEquals(256L << 20, config.globalSegmentSize());
    assertEquals(64L << 20, config.localBufferSize());
    assertEquals(MooncakeConfig.NativeSettings.DEFAULT, config.nativeSettings());
    assertEquals("default", config.tenantId());
    assertNull(config.library());
    assertEquals(4, config.numWorkers());
    assertEquals(Map.of(), config.perOpWorkers());
    assertFalse(config.singleCallsOnLanes());
    assertEquals(8, config.asyncWorkers());
    assertEquals(1024, config.asyncMaxInFlight());
    assertEquals(ReplicaSettings.DEFAULT, config.replica());
    assertEquals(Duration.ofSeconds(30), config.operationTimeout());
    assertEquals(EvictionSettings.DEFAULT, config.eviction());
    assertEquals(List.of(), config.deserializationAllowList());
    assertEquals(Map.of(), config.caches());
    assertFalse(config.strict());
    assertTrue(warnings.messages.isEmpty());
  }

  @Test
  void nativeLogDefaultsToWarningThroughSlf4jAndReadsEachDestination() {
    assertEquals(new MooncakeConfig.NativeLog("WARNING", "slf4j"), parse("{}").nativeLog());
    assertEquals(
        new MooncakeConfig.NativeLog("ERROR", "stderr"),
        parse("{'native_log':{'level':'error','destination':'STDERR'}}").nativeLog());
    assertEquals(
        new MooncakeConfig.NativeLog("INFO", "/var/log/app/mooncake"),
        parse("{'native_log':{'level':'INFO','destination':' /var/log/app/mooncake '}}")
            .nativeLog());
    assertEquals(
        new MooncakeConfig.NativeLog("TRACE", "slf4j"),
        parse("{'native_log':{'level':'TRACE'}}").nativeLog());
  }

  @Test
  void builtInDefaultsEqualAnEmptyFile() {
    MooncakeConfig defaults = ConfigLoader.defaults();
    MooncakeConfig empty = parse("{}");

    assertEquals(ConfigLoader.BUILT_IN_SOURCE, defaults.source());
    assertEquals(empty, withSource(defaults, empty.source()));
    assertEquals(defaults, ConfigLoader.load(ConfigLoader.BUILT_IN_URI, null));
  }

  @Test
  void mooncakeEmbeddedOverTcpWithP2pHandshake() {
    MooncakeConfig config =
        parse(
            "{'metadata_server':'P2PHANDSHAKE','master_server_address':'127.0.0.1:50051',"
                + "'local_hostname':'127.0.0.1','protocol':'tcp','global_segment_size':'512MB','local_buffer_size':'128 mb'}");

    assertEquals(
        Backend.MOONCAKE, config.backend(), "a master address selects the mooncake backend");
    assertEquals(Mode.EMBEDDED, config.mode());
    assertEquals("P2PHANDSHAKE", config.metadataServer());
    assertEquals("127.0.0.1:50051", config.masterServerAddress());
    assertEquals("tcp", config.protocol());
    assertEquals("127.0.0.1", config.localHostname());
    assertEquals(512L << 20, config.globalSegmentSize());
    assertEquals(128L << 20, config.localBufferSize());
    assertTrue(warnings.messages.isEmpty(), () -> warnings.messages.toString());
  }

  @Test
  void mooncakeBackendDefaultsToVllmSizes() {
    MooncakeConfig config =
        parse("{'metadata_server':'P2PHANDSHAKE','master_server_address':'127.0.0.1:50051'}");

    assertEquals(4L << 30, config.globalSegmentSize());
    assertEquals(4L << 30, config.localBufferSize());
    assertEquals("tcp", config.protocol());
  }

  @Test
  void standaloneStoreContributesNothing() {
    MooncakeConfig config =
        parse(
            "{'backend':'mooncake','mode':'standalone-store','consistency':'local','metadata_server':'P2PHANDSHAKE',"
                + "'master_server_address':'127.0.0.1:50051','local_buffer_size':'1GB'}");

    assertEquals(Mode.STANDALONE_STORE, config.mode());
    assertEquals(0, config.globalSegmentSize(), "defaults to 0 in standalone-store mode");
    assertEquals(1L << 30, config.localBufferSize());

    MooncakeConfig explicitZero =
        parse(
            "{'backend':'mooncake','mode':'standalone-store','consistency':'local','metadata_server':'P2PHANDSHAKE',"
                + "'master_server_address':'127.0.0.1:50051','global_segment_size':0}");
    assertEquals(0, explicitZero.globalSegmentSize());
  }

  @Test
  void rdmaWithADevice() {
    MooncakeConfig config =
        parse(
            "{'metadata_server':'etcd://10.0.0.5:2379','master_server_address':'10.0.0.5:50051',"
                + "'local_hostname':'10.0.0.7','protocol':'rdma','device_name':'mlx5_0'}");

    assertEquals("rdma", config.protocol());
    assertEquals("mlx5_0", config.deviceName());
    assertEquals("etcd://10.0.0.5:2379", config.metadataServer());
    assertTrue(warnings.messages.isEmpty(), () -> warnings.messages.toString());

    MooncakeConfig devices =
        parse(
            "{'metadata_server':'P2PHANDSHAKE','master_server_address':'127.0.0.1:50051',"
                + "'protocol':'rdma','rdma_devices':['mlx5_0','mlx5_1']}");
    assertEquals("mlx5_0,mlx5_1", devices.deviceName(), "a device list joins with commas");
  }

  @Test
  void lmcacheStyleConfig() {
    MooncakeConfig config =
        parse(
            "{'type':'mooncake_store','num_workers':8,"
                + "'per_op_workers':{'delete':2,'retrieve':16,'store':4},'local_hostname':'node01',"
                + "'metadata_server':'http://localhost:8080/metadata','master_server_addr':'localhost:50051',"
                + "'protocol':'tcp','local_buffer_size':'3221225472','global_segment_size':'3221225472'}");

    assertEquals(Backend.MOONCAKE, config.backend());
    assertEquals("localhost:50051", config.masterServerAddress(), "master_server_addr is an alias");
    assertEquals("http://localhost:8080/metadata", config.metadataServer());
    assertEquals("node01", config.localHostname());
    assertEquals(8, config.numWorkers());
    assertEquals(Map.of("delete", 2, "retrieve", 16, "store", 4), config.perOpWorkers());
    assertEquals(3221225472L, config.globalSegmentSize());
    assertEquals(3221225472L, config.localBufferSize());
    assertTrue(warnings.messages.isEmpty(), () -> warnings.messages.toString());
  }

  @Test
  void vllmStyleConfigWithOurKeys() {
    MooncakeConfig config =
        parse(
            "{'metadata_server':'redis://127.0.0.1:6379','master_server_address':'127.0.0.1:50051',"
                + "'master_server_addr':'127.0.0.1:50051','global_segment_size':3221225472,'local_buffer_size':1073741824,"
                + "'enable_offload':false,'abi':' V3 ','soft_pin_ttl':'90s',"
                + "'etcd_tls':{'ca_file':'/tls/ca.pem','cert_file':'/tls/c.pem','key_file':'/tls/c.key'},"
                + "'tenant_id':'  team-a  ','library':'/opt/mooncake/lib/libmooncake_store.so',"
                + "'single_calls_on_lanes':true,'async_workers':3,'async_max_in_flight':64,'replica_num':2,'with_soft_pin':true,'with_hard_pin':false,"
                + "'preferred_segments':['node01:12345'],'operation_timeout_ms':'5s',"
                + "'eviction':{'high_watermark_ratio':0.8,'eviction_ratio':0.1},"
                + "'deserialization_allow_list':['com.acme.Foo','com.acme.model.*','org.example.**'],'device_name':null}");

    assertEquals(
        new MooncakeConfig.NativeSettings(
            "v3", new MooncakeConfig.EtcdTls("/tls/ca.pem", "/tls/c.pem", "/tls/c.key")),
        config.nativeSettings());
    assertEquals("team-a", config.tenantId(), "tenant ids are trimmed");
    assertEquals("/opt/mooncake/lib/libmooncake_store.so", config.library());
    assertTrue(config.singleCallsOnLanes());
    assertEquals(3, config.asyncWorkers());
    assertEquals(64, config.asyncMaxInFlight());
    assertEquals(
        new ReplicaSettings(2, true, false, List.of("node01:12345"), Duration.ofSeconds(90)),
        config.replica());
    assertEquals(Duration.ofSeconds(5), config.operationTimeout());
    assertEquals(new EvictionSettings(0.8, 0.1), config.eviction());
    assertEquals(
        List.of("com.acme.Foo", "com.acme.model.*", "org.example.**"),
        config.deserializationAllowList());
    assertEquals("", config.deviceName(), "null reads as not set");
  }

  @Test
  void explicitInProcessBackendIgnoresTheMetadataServer() {
    MooncakeConfig config =
        parse(
            "{'backend':'in-process','metadata_server':'zk://whatever','master_server_address':'127.0.0.1:50051'}");

    assertEquals(Backend.IN_PROCESS, config.backend());
  }

  @Test
  void cachesSection() {
    MooncakeConfig config =
        parse(
            "{'caches':{"
                + "'users':{'key_type':'java.lang.String','value_type':'com.acme.User',"
                + "  'expiry':{'policy':'accessed','duration':'5m'},'statistics':true,'management':false,"
                + "  'read_through':true,'write_through':false,'loader':'com.acme.UserLoader','writer':'com.acme.UserWriter',"
                + "  'listeners':[{'factory':'com.acme.AuditFactory','filter':'com.acme.OnlyAdmins','old_value_required':true,"
                + "     'synchronous':true},{'listener':'com.acme.Logger'}],'codec':'java'},"
                + "'sessions':{'expiry':{'policy':'created','duration':1500}},"
                + "'forever':{'expiry':{'policy':'eternal'},'value_type':'byte[]','codec':'bytes'}}}");

    CacheDefinition users = config.caches().get("users");
    assertEquals(
        new CacheDefinition(
            "users",
            "java.lang.String",
            "com.acme.User",
            new ExpirySettings("accessed", Duration.ofMinutes(5)),
            true,
            false,
            true,
            false,
            "com.acme.UserLoader",
            "com.acme.UserWriter",
            List.of(
                new ListenerDefinition("com.acme.AuditFactory", "com.acme.OnlyAdmins", true, true),
                new ListenerDefinition("com.acme.Logger", null, false, false)),
            "java",
            null),
        users);
    assertEquals(
        new ExpirySettings("created", Duration.ofMillis(1500)),
        config.caches().get("sessions").expiry());
    assertEquals(new ExpirySettings("eternal", null), config.caches().get("forever").expiry());
    assertEquals(
        List.of("users", "sessions", "forever"),
        List.copyOf(config.caches().keySet()),
        "file order is kept");
    assertEquals(null, config.caches().get("other"));
    assertTrue(warnings.messages.isEmpty(), () -> warnings.messages.toString());
  }

  @Test
  void metadataServerForms() {
    for (String server :
        List.of(
            "P2PHANDSHAKE",
            "http://127.0.0.1:8080/metadata",
            "https://meta.example:443/m",
            "http://meta/metadata",
            "etcd://127.0.0.1:2379",
            "127.0.0.1:2379",
            "redis://[::1]:6379",
            " P2PHANDSHAKE ")) {
      MooncakeConfig config =
          parse("{'metadata_server':'" + server + "','master_server_address':'127.0.0.1:50051'}");
      assertEquals(server.strip(), config.metadataServer());
    }
  }

  @Test
  void otherMooncakeProtocolsAreAccepted() {
    for (String protocol : Protocols.KNOWN) {
      String device = protocol.equals("rdma") ? ",'device_name':'mlx5_0'" : "";
      assertEquals(protocol, parse("{'protocol':'" + protocol + "'" + device + "}").protocol());
    }
  }

  @Test
  void warnsWhenARemoteMasterWouldSeeALoopbackClient() {
    parse("{'metadata_server':'P2PHANDSHAKE','master_server_address':'10.1.2.3:50051'}");

    assertEquals(1, warnings.messages.size());
    assertTrue(warnings.messages.get(0).contains("local_hostname"), warnings.messages.get(0));
  }

  @Test
  void warnsWhenADeviceIsNamedWithoutAProtocol() {
    MooncakeConfig config = parse("{'device_name':'mlx5_0'}");

    assertEquals("tcp", config.protocol());
    assertEquals(1, warnings.messages.size());
    assertTrue(warnings.messages.get(0).contains("protocol: not set"), warnings.messages.get(0));
  }

  private static MooncakeConfig withSource(MooncakeConfig c, String source) {
    return c.toBuilder().source(source).build();
  }
}
