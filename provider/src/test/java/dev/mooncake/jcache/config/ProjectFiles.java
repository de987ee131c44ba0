package dev.mooncake.jcache.config;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds files of the repository from a test, whatever module directory the test runs in. */
final class ProjectFiles {
  private ProjectFiles() {}

  static Path find(String relativePath) {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(relativePath);
      if (Files.exists(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        relativePath + " not found above " + Path.of("").toAbsolutePath());
  }
}
