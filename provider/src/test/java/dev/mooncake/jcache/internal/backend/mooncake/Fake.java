package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import java.nio.file.Files;
import java.nio.file.Path;

/** The fake libmooncake_store.so built from native/src/test/c for this module's tests. */
final class Fake {
  private Fake() {}

  static String library() {
    return existing("mooncake.fixture.library");
  }

  static String partialLibrary() {
    return existing("mooncake.fixture.partialLibrary");
  }

  /**
   * A config file's JSON for the Mooncake backend over the fake (16 MB segment, 4 MB buffer), for
   * child JVMs; {@code extra} is more members ({@code , "key": value ...}) or "".
   */
  static String configJson(String tenant, String extra) {
    return "{\"backend\": \"mooncake\", \"master_server_address\": \"127.0.0.1:50051\","
        + " \"metadata_server\": \"P2PHANDSHAKE\", \"protocol\": \"tcp\","
        + " \"local_hostname\": \"127.0.0.1\", \"global_segment_size\": \"16MB\","
        + " \"local_buffer_size\": \"4MB\", \"library\": \""
        + library()
        + "\", \"tenant_id\": \""
        + tenant
        + "\""
        + extra
        + "}";
  }

  private static String existing(String property) {
    String path = System.getProperty(property);
    if (path == null || !Files.isRegularFile(Path.of(path))) {
      throw new IllegalStateException("-D" + property + " must name the fake store, not " + path);
    }
    return path;
  }

  private static MooncakeClient probe() {
    return MooncakeClient.create(MooncakeLibrary.open(library(), null));
  }

  static void control(String assignment) {
    try (MooncakeClient client = probe()) {
      assertEquals(0, client.remove(MooncakeClient.key("__fake_mc__/ctl/" + assignment), true));
    }
  }

  static long stat(String name) {
    try (MooncakeClient client = probe()) {
      return client.getSize(MooncakeClient.key("__fake_mc__/stat/" + name));
    }
  }

  static long environment(String name) {
    try (MooncakeClient client = probe()) {
      return client.getSize(MooncakeClient.key("__fake_mc__/env/" + name));
    }
  }
}
