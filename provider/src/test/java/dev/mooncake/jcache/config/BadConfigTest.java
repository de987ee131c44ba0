package dev.mooncake.jcache.config;

import static dev.mooncake.jcache.config.ConfigTestSupport.MOONCAKE;
import static dev.mooncake.jcache.config.ConfigTestSupport.json;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every validation rule, one bad config each: loading fails with a message that names the source,
 * the key (as a JSON path) and the problem.
 */
class BadConfigTest {
  @TempDir Path dir;

  static Stream<Arguments> badConfigs() {
    return Stream.of(
        // vLLM's rules
        bad("{'mode':'cluster'}", "mode", "unknown Mooncake mode 'cluster'"),
        bad("{'local_buffer_size':0}", "local_buffer_size", "must be > 0"),
        bad(
            "{'global_segment_size':0}",
            "global_segment_size",
            "embedded mode requires global_segment_size > 0"),
        bad(
            "{" + MOONCAKE + ",'mode':'standalone-store','global_segment_size':'1GB'}",
            "global_segment_size",
            "standalone-store mode requires global_segment_size = 0"),
        bad("{'mode':'standalone-store'}", "mode", "standalone-store needs backend \"mooncake\""),
        // LMCache's rules
        bad("{'num_workers':0}", "num_workers", "must be > 0"),
        bad("{'num_workers':1.5}", "num_workers", "must be an integer, not 1.5"),
        bad("{'num_workers':'4'}", "num_workers", "must be an integer, not the string \"4\""),
        bad("{'num_workers':10000000000}", "num_workers", "too large"),
        bad("{'per_op_workers':{'retrieve':2,'scan':1}}", "per_op_workers.scan", "unknown lane"),
        bad("{'per_op_workers':{'lookup':0}}", "per_op_workers.lookup", "must be > 0"),
        bad("{'per_op_workers':{'store':0}}", "per_op_workers.store", "must be > 0"),
        bad("{'per_op_workers':{'retrieve':-3}}", "per_op_workers.retrieve", "must be > 0"),
        bad("{'per_op_workers':{'delete':2.5}}", "per_op_workers.delete", "must be an integer"),
        bad("{'per_op_workers':[1,2]}", "per_op_workers", "must be a JSON object"),
        // the asynchronous API's threads and bound
        bad("{'async_workers':0}", "async_workers", "must be > 0"),
        bad("{'async_max_in_flight':0}", "async_max_in_flight", "must be > 0"),
        bad("{'async_max_in_flight':-1}", "async_max_in_flight", "must be > 0"),
        bad("{'async_max_in_flight':'64'}", "async_max_in_flight", "must be an integer"),
        bad("{" + MOONCAKE + ",'protocol':'rdma'}", "protocol", "needs an RDMA device"),
        // metadata server and master
        bad(
            "{'backend':'mooncake','metadata_server':'zk://10.0.0.1:2181','master_server_address':'127.0.0.1:50051'}",
            "metadata_server",
            "unknown scheme 'zk'"),
        bad(
            "{'master_server_address':'127.0.0.1:50051'}",
            "metadata_server",
            "is required for backend mooncake"),
        bad(
            "{'metadata_server':'localhost','master_server_address':'127.0.0.1:50051'}",
            "metadata_server",
            "has no port"),
        bad(
            "{'metadata_server':'p2phandshake','master_server_address':'127.0.0.1:50051'}",
            "metadata_server",
            "must be written P2PHANDSHAKE exactly"),
        bad(
            "{'metadata_server':'http://meta:8080/metadata?x=1','master_server_address':'127.0.0.1:50051'}",
            "metadata_server",
            "must not have a query"),
        bad(
            "{'metadata_server':'etcd://meta','master_server_address':'127.0.0.1:50051'}",
            "metadata_server",
            "has no port"),
        bad(
            "{'backend':'mooncake','metadata_server':'P2PHANDSHAKE'}",
            "master_server_address",
            "is required for backend mooncake"),
        bad(
            "{'backend':'mooncake','metadata_server':'P2PHANDSHAKE','master_server_address':'127.0.0.1:70000'}",
            "master_server_address",
            "outside 1-65535"),
        bad(
            "{'backend':'mooncake','metadata_server':'P2PHANDSHAKE','master_server_address':'master'}",
            "master_server_address",
            "has no port"),
        bad(
            "{'master_server_address':'10.0.0.1:50051','master_server_addr':'10.0.0.2:50051'}",
            "master_server_addr",
            "conflicts with master_server_address"),
        bad("{'backend':'redis'}", "backend", "unknown backend 'redis'"),
        // transport
        bad("{'protocol':'udp'}", "protocol", "unknown protocol 'udp'"),
        bad(
            "{'protocol':'rdma','device_name':'mlx5_0','rdma_devices':'mlx5_1'}",
            "rdma_devices",
            "conflicts with device_name"),
        bad("{'local_hostname':'my host'}", "local_hostname", "is not a host name"),
        bad("{'protocol':7}", "protocol", "must be a string, not the number 7"),
        // sizes
        bad("{'global_segment_size':''}", "global_segment_size", "cannot be empty"),
        bad("{'local_buffer_size':'-1GB'}", "local_buffer_size", "is negative"),
        bad("{'local_buffer_size':-5}", "local_buffer_size", "is negative"),
        bad("{'global_segment_size':'lots'}", "global_segment_size", "'lots' is not a size"),
        bad("{'global_segment_size':NaN}", "global_segment_size", "finite"),
        bad("{'global_segment_size':'Infinity'}", "global_segment_size", "not a finite number"),
        bad("{'global_segment_size':'9000000TB'}", "global_segment_size", "too large"),
        bad("{'local_buffer_size':99999999999999999999}", "local_buffer_size", "too large"),
        bad("{'local_buffer_size':'4 PB'}", "local_buffer_size", "unknown unit 'pb'"),
        bad("{'local_buffer_size':1.5}", "local_buffer_size", "not a whole number of bytes"),
        bad("{'local_buffer_size':true}", "local_buffer_size", "must be a size"),
        // types
        bad("{'enable_offload':'true'}", "enable_offload", "must be a JSON boolean"),
        bad("{'enable_offload':true}", "enable_offload", "mooncake_client --enable_offload=true"),
        bad("{'enable_offload':true}", "enable_offload", "mooncake_master --enable_offload=true"),
        bad("{'enable_offload':true}", "enable_offload", "MOONCAKE_OFFLOAD_FILE_STORAGE_PATH"),
        // where embedded values go (issue 31)
        bad("{'value_placement':'random'}", "value_placement", "unknown placement 'random'"),
        bad(
            "{'value_placement':'any-segment','preferred_segments':['a:1']}",
            "value_placement",
            "conflicts with preferred_segments"),
        // the native library's settings (issue 12)
        bad("{'abi':'v4'}", "abi", "must be v1, v2 or v3"),
        bad("{'abi':3}", "abi", "must be a string"),
        // Mooncake's own log (issue 15)
        bad(
            "{'native_log':{'level':'WARN'}}",
            "native_log.level",
            "unknown Mooncake log level 'WARN'; use TRACE, INFO, WARNING, ERROR (glog spells it WARNING)"),
        bad(
            "{'native_log':{'level':'debug'}}",
            "native_log.level",
            "unknown Mooncake log level 'DEBUG'"),
        bad(
            "{'native_log':{'destination':'logs'}}",
            "native_log.destination",
            "absolute directory path, not 'logs'"),
        bad("{'native_log':'stderr'}", "native_log", "must be a JSON object"),
        bad("{'with_soft_pin':true,'soft_pin_ttl':0}", "soft_pin_ttl", "at least 1 ms"),
        bad("{'soft_pin_ttl':'30s'}", "soft_pin_ttl", "needs with_soft_pin: true"),
        bad("{'etcd_tls':{'cert_file':'c','key_file':'k'}}", "etcd_tls.ca_file", "is required"),
        bad("{'etcd_tls':{'ca_file':'ca','cert_file':'c'}}", "etcd_tls.key_file", "go together"),
        bad("{'single_calls_on_lanes':1}", "single_calls_on_lanes", "must be a JSON boolean"),
        bad("{'strict':'yes'}", "strict", "must be a JSON boolean"),
        bad("{'mode':'embedded','mode':'embedded'}", "mode", "Duplicate field 'mode'"),
        // tenant, library, replicas, timeout, eviction
        bad("{'tenant_id':'   '}", "tenant_id", "is empty"),
        bad("{'tenant_id':'team\\u0000a'}", "tenant_id", "control character U+0000"),
        bad("{'tenant_id':5}", "tenant_id", "must be a string"),
        bad("{'library':' '}", "library", "is empty"),
        bad("{'replica_num':0}", "replica_num", "must be >= 1"),
        bad("{'preferred_segments':['node01','']}", "preferred_segments[1]", "is empty"),
        bad(
            "{'preferred_segments':'node01'}",
            "preferred_segments",
            "must be a JSON array of strings"),
        bad("{'operation_timeout_ms':0}", "operation_timeout_ms", "must be > 0"),
        bad("{'operation_timeout_ms':-5}", "operation_timeout_ms", "is negative"),
        bad(
            "{'eviction':{'high_watermark_ratio':1.5}}",
            "eviction.high_watermark_ratio",
            "must be in (0, 1]"),
        bad("{'eviction':{'eviction_ratio':0}}", "eviction.eviction_ratio", "must be in (0, 1]"),
        bad("{'eviction':{'eviction_ratio':'5%'}}", "eviction.eviction_ratio", "must be a number"),
        // deserialization allow list
        bad(
            "{'deserialization_allow_list':['com.acme.**','java.lang.*;!*']}",
            "deserialization_allow_list[1]",
            "would change the filter's meaning"),
        bad(
            "{'deserialization_allow_list':['!com.acme.Evil']}",
            "deserialization_allow_list[0]",
            "contains '!'"),
        bad(
            "{'deserialization_allow_list':['maxdepth=5']}",
            "deserialization_allow_list[0]",
            "contains '='"),
        bad(
            "{'deserialization_allow_list':['com.acme. Foo']}",
            "deserialization_allow_list[0]",
            "contains 'U+0020'"),
        bad(
            "{'deserialization_allow_list':['*']}",
            "deserialization_allow_list[0]",
            "would allow every class"),
        bad(
            "{'deserialization_allow_list':[3]}",
            "deserialization_allow_list[0]",
            "must be a string"),
        // caches
        bad(
            "{'caches':{'users':{'expiry':{'policy':'created','duration':'10x'}}}}",
            "caches.users.expiry.duration",
            "unknown unit 'x'"),
        bad(
            "{'caches':{'users':{'expiry':{'policy':'created','duration':'1.5ms'}}}}",
            "caches.users.expiry.duration",
            "not a whole number of milliseconds"),
        bad(
            "{'caches':{'users':{'expiry':{'duration':'10s'}}}}",
            "caches.users.expiry.policy",
            "is required"),
        bad(
            "{'caches':{'users':{'expiry':{'policy':'sliding','duration':'10s'}}}}",
            "caches.users.expiry.policy",
            "unknown value 'sliding'"),
        bad(
            "{'caches':{'users':{'expiry':{'policy':'eternal','duration':'10s'}}}}",
            "caches.users.expiry.duration",
            "takes no duration"),
        bad(
            "{'caches':{'users':{'expiry':{'policy':'created'}}}}",
            "caches.users.expiry.duration",
            "is required for policy 'created'"),
        bad(
            "{'caches':{'users':{'expiry':{'policy':'touched','duration':0}}}}",
            "caches.users.expiry.duration",
            "must be > 0"),
        bad("{'caches':{'users':{'codec':'xml'}}}", "caches.users.codec", "unknown value 'xml'"),
        bad(
            "{'caches':{'users':{'key_type':'com..Foo'}}}",
            "caches.users.key_type",
            "is not a class name"),
        bad(
            "{'caches':{'users':{'statistics':'yes'}}}",
            "caches.users.statistics",
            "must be a JSON boolean"),
        bad(
            "{'caches':{'users':{'listeners':[{'filter':'com.acme.Filter'}]}}}",
            "caches.users.listeners[0].factory",
            "is required"),
        bad(
            "{'caches':{'users':{'listeners':[{'factory':'a.F','listener':'a.L'}]}}}",
            "caches.users.listeners[0].listener",
            "not both"),
        bad(
            "{'caches':{'users':{'listeners':['a.L']}}}",
            "caches.users.listeners[0]",
            "must be a JSON object"),
        bad("{'caches':{'users':'String'}}", "caches.users", "must be a JSON object"),
        bad(
            "{'caches':{'my.cache':{'codec':'xml'}}}",
            "caches[\"my.cache\"].codec",
            "unknown value"),
        // strict mode
        bad(
            "{'strict':true,'mastr_server_address':'127.0.0.1:50051'}",
            "mastr_server_address",
            "unknown key"),
        bad(
            "{'strict':true,'caches':{'users':{'colour':'blue'}}}",
            "caches.users.colour",
            "unknown key"));
  }

  private static Arguments bad(String singleQuotedJson, String key, String fragment) {
    return Arguments.of(json(singleQuotedJson), key, fragment);
  }

  @ParameterizedTest(name = "[{index}] {1}: {2}")
  @MethodSource("badConfigs")
  void badConfigIsRejectedWithSourceKeyAndReason(String json, String key, String fragment) {
    URI uri = ConfigTestSupport.write(dir, "mooncake.json", json).toUri();

    ConfigException e = assertThrows(ConfigException.class, () -> ConfigTestSupport.load(uri));

    String message = e.getMessage();
    assertTrue(message.contains(uri.toString()), () -> "source missing from: " + message);
    assertTrue(message.contains(key), () -> "key '" + key + "' missing from: " + message);
    assertTrue(message.contains(fragment), () -> "'" + fragment + "' missing from: " + message);
  }

  @org.junit.jupiter.api.Test
  void atLeastThirtyFiveCases() {
    assertTrue(badConfigs().count() >= 35);
  }
}
