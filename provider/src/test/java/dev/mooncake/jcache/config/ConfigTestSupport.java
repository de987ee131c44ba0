package dev.mooncake.jcache.config;

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
