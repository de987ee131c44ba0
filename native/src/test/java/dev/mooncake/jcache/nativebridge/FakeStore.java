package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

  /** A client set up against the fake cluster over TCP. */
  static MooncakeClient client(long segmentSize) {
    return client(segmentSize, "tcp");
  }

  static MooncakeClient client(long segmentSize, String protocol) {
    MooncakeClient client = MooncakeClient.create(open());
    int code =
        client.setup("127.0.0.1", "P2PHANDSHAKE", segmentSize, 1 << 20, protocol, "", "127.0.0.1:50051");
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
