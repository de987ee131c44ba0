package dev.mooncake.jcache.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Provider URIs for the reliability tests: Mooncake JSON config files written to a temporary
 * folder, as an application would name them. Only the public configuration surface is used.
 */
final class Configs {
  private Configs() {}

  /** The in-process store. {@code extra} is more JSON members ("key": value, ...), or "". */
  static URI inProcess(Path dir, String tenant, String extra) {
    return write(
        dir,
        "{\"backend\": \"in-process\", \"tenant_id\": \""
            + tenant
            + "\""
            + (extra.isEmpty() ? "" : ", " + extra)
            + "}");
  }

  /** The Mooncake backend over the test-only fake libmooncake_store.so the build makes. */
  static URI fake(Path dir, String tenant, String extra) {
    return fake(dir, tenant, "64MB", extra);
  }

  static URI fake(Path dir, String tenant, String segment, String extra) {
    return write(
        dir,
        "{\"backend\": \"mooncake\", \"master_server_address\": \"127.0.0.1:50051\","
            + " \"metadata_server\": \"P2PHANDSHAKE\", \"protocol\": \"tcp\","
            + " \"local_hostname\": \"127.0.0.1\", \"global_segment_size\": \""
            + segment
            + "\","
            + " \"local_buffer_size\": \"32MB\", \"operation_timeout_ms\": 2000,"
            + " \"library\": \""
            + fakeLibrary()
            + "\", \"tenant_id\": \""
            + tenant
            + "\""
            + (extra.isEmpty() ? "" : ", " + extra)
            + "}");
  }

  /**
   * A real Mooncake: the loopback master test-support/netns/bin/java starts (127.0.0.1:50051), the
   * library from {@code $MOONCAKE_STORE_LIBRARY} (the provider's default when no {@code library} is
   * named).
   */
  static URI real(Path dir, String tenant, String segment) {
    return write(
        dir,
        "{\"backend\": \"mooncake\", \"mode\": \"embedded\","
            + " \"master_server_address\": \"127.0.0.1:50051\","
            + " \"metadata_server\": \"P2PHANDSHAKE\", \"protocol\": \"tcp\","
            + " \"local_hostname\": \"127.0.0.1\", \"global_segment_size\": \""
            + segment
            + "\", \"local_buffer_size\": \"32MB\", \"operation_timeout_ms\": 5000,"
            + " \"tenant_id\": \""
            + tenant
            + "\"}");
  }

  static String fakeLibrary() {
    String path = System.getProperty("mooncake.fixture.library");
    if (path == null || !Files.isRegularFile(Path.of(path))) {
      throw new IllegalStateException(
          "-Dmooncake.fixture.library must name the fake store the build makes, not " + path);
    }
    return path;
  }

  private static URI write(Path dir, String json) {
    try {
      Path file = Files.createTempFile(dir, "mooncake-", ".json");
      Files.writeString(file, json);
      return file.toUri();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
