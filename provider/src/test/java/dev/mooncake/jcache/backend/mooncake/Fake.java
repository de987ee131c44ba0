package dev.mooncake.jcache.backend.mooncake;

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
