package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The test fixture: a fake libmooncake_store.so (native/src/test/c/fake_mooncake_store.c) built by
 * the test phase, and its in-band hooks.
 */
final class FakeStore {
  private FakeStore() {}

  static String library() {
    return existing("mooncake.fixture.library");
  }

  static String partialLibrary() {
    return existing("mooncake.fixture.partialLibrary");
  }

  /** The fake with all 19 required functions but without set_etcd_tls_config. */
  static String noEtcdTlsLibrary() {
    return existing("mooncake.fixture.noEtcdTlsLibrary");
  }

  private static String existing(String property) {
    String path = System.getProperty(property);
    if (path == null || !Files.isRegularFile(Path.of(path))) {
      throw new IllegalStateException(
          "-D" + property + " must name the fixture built by the test phase, not " + path);
    }
    return path;
  }

  static MooncakeLibrary open() {
    return MooncakeLibrary.open(library(), null);
  }

  static MooncakeLibrary openNoEtcdTls() {
    return MooncakeLibrary.open(noEtcdTlsLibrary(), null);
  }

  /**
   * A client set up against the fake cluster, on a fake handle reading replicate configs in the
   * layout {@code fakeLayout} (the fake's ctl abi=N), and the bridge told {@code named}.
   */
  static MooncakeClient client(StoreAbi fakeLayout, StoreAbi named) {
    control("abi=" + (fakeLayout.ordinal() + 1));
    try {
      MooncakeClient client = MooncakeClient.create(open(), named);
      assertEquals(
          0,
          client.setup("127.0.0.1", "P2PHANDSHAKE", 1 << 20, 1 << 20, "tcp", "", "127.0.0.1:50051"),
          "fixture setup");
      return client;
    } finally {
      control("abi=0");
    }
  }

  /** The fake's record of the replicate config the last put received ("layout=v3 ..."). */
  static String lastReplicateConfig(MooncakeClient client) {
    return text(client, "__fake_mc__/replicate_config/last");
  }

  /** The fake's record of the last set_etcd_tls_config ("calls=N ca=... after_setup=0"). */
  static String lastEtcdTls(MooncakeClient client) {
    return text(client, "__fake_mc__/etcd_tls");
  }

  private static String text(MooncakeClient client, String key) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
    long length = client.getInto(MooncakeClient.key(key), buffer, 0, buffer.capacity());
    assertTrue(length >= 0, () -> key + " answered " + length);
    byte[] bytes = new byte[(int) length];
    buffer.get(0, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** A client set up against the fake cluster over TCP. */
  static MooncakeClient client(long segmentSize) {
    return client(segmentSize, "tcp");
  }

  static MooncakeClient client(long segmentSize, String protocol) {
    MooncakeClient client = MooncakeClient.create(open());
    int code =
        client.setup(
            "127.0.0.1", "P2PHANDSHAKE", segmentSize, 1 << 20, protocol, "", "127.0.0.1:50051");
    assertEquals(0, code, "fixture setup");
    return client;
  }

  /** Sets a fixture control ("fail_ops=-901", "reset=1", ...). */
  static void control(String assignment) {
    try (MooncakeClient client = MooncakeClient.create(open())) {
      assertEquals(0, client.remove(MooncakeClient.key("__fake_mc__/ctl/" + assignment), true));
    }
  }

  /** A fixture counter ("registered", "objects", ...). */
  static long stat(String name) {
    try (MooncakeClient client = MooncakeClient.create(open())) {
      return client.getSize(MooncakeClient.key("__fake_mc__/stat/" + name));
    }
  }

  /** getenv(name) as the fake library sees it, -704 when unset. */
  static long environment(String name) {
    try (MooncakeClient client = MooncakeClient.create(open())) {
      return client.getSize(MooncakeClient.key("__fake_mc__/env/" + name));
    }
  }
}
