package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.mooncake.jcache.internal.doctor.ConfigDoctor;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config doctor's topology checks ({@code mode: standalone-store}, {@code consistency:
 * cluster}) over the fake library: a pool is another fake client with a segment, the master's admin
 * server a local HTTP server answering {@code /health} and {@code /get_segments_detail} in the
 * master's format with the segments each test mounts. A complete topology passes; each missing
 * thing is one {@code MISSING} line and the last line names them all.
 */
class TopologyDoctorTest {
  private static final long MIB = 1 << 20;

  @TempDir Path dir;
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final AtomicReference<String> segments = new AtomicReference<>("");
  private HttpServer admin;
  private volatile String lockHome = "";
  private MooncakeStore pool;

  @BeforeEach
  void start() throws Exception {
    admin = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    admin.createContext("/health", exchange -> answer(exchange, "{\"status\":\"ok\"}"));
    admin.createContext(
        "/get_segments_detail",
        exchange ->
            answer(exchange, "{\"total_segments\":0,\"segments\":[" + segments.get() + "]}"));
    // Lock records land in the doctor's own segment (LockPlacement asks where each one is)
    admin.createContext(
        "/query_key",
        exchange ->
            answer(
                exchange,
                "{\"success\":true,\"data\":[{\"size_\":50,\"buffer_address_\":4112,"
                    + "\"transport_endpoint_\":\""
                    + lockHome
                    + "\"}]}"));
    admin.start();
    TestConfig config = new TestConfig();
    config.globalSegmentSize = 64 * MIB;
    pool = config.open();
  }

  @AfterEach
  void stop() {
    admin.stop(0);
    pool.close();
    Fake.control("reset=1");
  }

  private static void answer(com.sun.net.httpserver.HttpExchange exchange, String body)
      throws java.io.IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** Entries of {@code /get_segments_detail}, as Mooncake 3b5a594 writes them. */
  private static String segment(String name, long capacity, long used) {
    return """
        {"segment_name":"%s","size_bytes":%d,"protocol":"tcp","status":"OK",\
        "te_endpoint":"%s","base_address":"0x1000",\
        "allocator_used_bytes":%d,"allocator_capacity_bytes":%d}"""
        .formatted(name, capacity, name, used, capacity);
  }

  private void mount(String... entries) {
    segments.set(List.of(entries).stream().collect(Collectors.joining(",")));
  }

  /** The doctor on a standalone-store + cluster config whose lock segment is named {@code own}. */
  private int doctor(String own, String adminAddress) throws Exception {
    lockHome = own;
    Path file = dir.resolve("standalone.json");
    Files.writeString(
        file,
        """
        {"backend": "mooncake", "library": "%s", "mode": "standalone-store",
         "consistency": "cluster", "lock_segment_size": "16MB",
         "master_metrics_address": "%s", "master_server_address": "127.0.0.1:50051",
         "metadata_server": "P2PHANDSHAKE", "protocol": "tcp", "local_hostname": "%s",
         "global_segment_size": 0, "local_buffer_size": "8MB", "tenant_id": "doctor"}
        """
            .formatted(Fake.library(), adminAddress, own));
    PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    return new ConfigDoctor(out, Map.<String, String>of()::get).run(new String[] {file.toString()});
  }

  private String adminAddress() {
    return "127.0.0.1:" + admin.getAddress().getPort();
  }

  private String output() {
    return printed.toString(StandardCharsets.UTF_8);
  }

  private String lastLine() {
    String out = output().strip();
    return out.substring(out.lastIndexOf('\n') + 1);
  }

  @Test
  void aCompleteTopologyPassesEveryCheck() throws Exception {
    String own = "127.0.0.1:12991";
    mount(segment(pool.segment(), 64 * MIB, 4 * MIB), segment(own, 16 * MIB, 0));
    int code = doctor(own, adminAddress());
    String out = output();
    assertEquals(ConfigDoctor.OK, code, out);
    assertTrue(out.contains("master   admin server " + adminAddress() + " healthy"), out);
    assertTrue(
        out.contains("pool     " + pool.segment() + " mounted: 64.0 MiB, 60.0 MiB free"), out);
    assertTrue(out.contains("locks    segment " + own + " mounted (16.0 MiB)"), out);
    assertTrue(out.matches("(?s).*lock     taken and released in [0-9.]+ ms.*"), out);
    assertTrue(!out.contains("MISSING"), out);
    assertEquals("OK", lastLine(), out);
  }

  @Test
  void noPoolIsNamedAsMissingInOneLine() throws Exception {
    String own = "127.0.0.1:12992";
    mount(segment(own, 16 * MIB, 0)); // only this JVM's lock segment: no pool
    int code = doctor(own, adminAddress());
    String out = output();
    assertEquals(ConfigDoctor.TOPOLOGY, code, out);
    assertTrue(out.contains("MISSING pool: no pool segment is mounted"), out);
    assertTrue(lastLine().startsWith("FAILED topology: missing pool (connect: "), out);
  }

  @Test
  void aFullPoolIsNamedAsMissingSpace() throws Exception {
    String own = "127.0.0.1:12993";
    mount(segment(pool.segment(), 64 * MIB, 63 * MIB), segment(own, 16 * MIB, 0));
    int code = doctor(own, adminAddress());
    String out = output();
    assertEquals(ConfigDoctor.TOPOLOGY, code, out);
    assertTrue(out.contains("MISSING pool space: 1.0 MiB free in the pool"), out);
    assertEquals("FAILED topology: missing pool space", lastLine(), out);
  }

  @Test
  void aLockSegmentTheMasterDoesNotListIsNamed() throws Exception {
    mount(segment(pool.segment(), 64 * MIB, 0)); // the master lost this JVM's segment
    int code = doctor("127.0.0.1:12994", adminAddress());
    String out = output();
    assertEquals(ConfigDoctor.TOPOLOGY, code, out);
    assertTrue(out.contains("MISSING lock segment: 127.0.0.1:12994 is not mounted"), out);
    assertEquals("FAILED topology: missing lock segment", lastLine(), out);
  }

  @Test
  void anAdminServerThatDoesNotAnswerIsNamed() throws Exception {
    String gone = adminAddress();
    admin.stop(0);
    int code = doctor("127.0.0.1:12995", gone);
    String out = output();
    assertEquals(ConfigDoctor.TOPOLOGY, code, out);
    assertTrue(out.contains("MISSING master: the master's admin server does not answer"), out);
    assertTrue(lastLine().startsWith("FAILED topology: missing master (connect: "), out);
  }
}
