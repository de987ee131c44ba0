package dev.mooncake.jcache.internal.config.source;

import dev.mooncake.jcache.config.ClassLoaders;
import dev.mooncake.jcache.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads the bytes a config URI names: {@code file:} URIs, plain paths (absolute, or relative to the
 * working directory), {@code classpath:} resources of the given class loader, and {@code jar:}
 * entries, Spring Boot's nested forms included ({@link NestedJarReader}). A URI that names nothing
 * is an error naming the URI, never a quiet fallback to the defaults.
 */
public final class ConfigSourceReader {
  /** Config files are small; this guards against a URI that names a jar or a disk image. */
  static final int MAX_BYTES = 8 << 20;

  private ConfigSourceReader() {}

  public static byte[] read(URI uri, ClassLoader classLoader) {
    String scheme = uri.getScheme();
    if (scheme == null || scheme.length() == 1) {
      // No scheme: a plain path. (A one-letter "scheme" is a Windows drive.)
      return readFile(uri, scheme == null ? uri.getPath() : uri.toString());
    }
    switch (scheme.toLowerCase(Locale.ROOT)) {
      case "file":
        return readFile(uri, filePath(uri));
      case "classpath":
        return readClasspath(uri, ClassLoaders.orDefault(classLoader));
      case "jar":
        return readJar(uri);
      default:
        throw new ConfigException(
            "Mooncake config "
                + uri
                + ": unsupported URI scheme '"
                + scheme
                + "'; use a file: URI, a classpath: resource, a jar: URI or a file path");
    }
  }

  private static String filePath(URI uri) {
    if (uri.isOpaque()) {
      return uri.getSchemeSpecificPart(); // file:relative/path.json
    }
    if (uri.getAuthority() != null && !uri.getAuthority().isEmpty()) {
      throw new ConfigException(
          "Mooncake config "
              + uri
              + ": a file: URI with a host ('"
              + uri.getAuthority()
              + "') is not supported; use file:/absolute/path");
    }
    return uri.getPath();
  }

  private static byte[] readFile(URI uri, String pathText) {
    if (pathText == null || pathText.isEmpty()) {
      throw new ConfigException("Mooncake config " + uri + ": the URI names no file");
    }
    Path path = Path.of(pathText).toAbsolutePath().normalize();
    if (Files.isDirectory(path)) {
      throw new ConfigException(
          "Mooncake config " + uri + ": " + path + " is a directory, not a JSON file");
    }
    try (InputStream in = Files.newInputStream(path)) {
      return readLimited(in, uri);
    } catch (NoSuchFileException e) {
      throw new ConfigException("Mooncake config " + uri + ": file not found: " + path, e);
    } catch (AccessDeniedException e) {
      throw new ConfigException(
          "Mooncake config " + uri + ": cannot read " + path + ": permission denied", e);
    } catch (IOException e) {
      throw new ConfigException("Mooncake config " + uri + ": cannot read " + path + ": " + e, e);
    }
  }

  private static byte[] readClasspath(URI uri, ClassLoader classLoader) {
    String name = uri.isOpaque() ? uri.getSchemeSpecificPart() : uri.getPath();
    while (name != null && name.startsWith("/")) {
      name = name.substring(1); // ClassLoader resource names have no leading slash
    }
    if (name == null || name.isEmpty()) {
      throw new ConfigException(
          "Mooncake config " + uri + ": the URI names no resource; use classpath:mooncake.json");
    }
    URL resource = classLoader.getResource(name);
    if (resource == null) {
      throw new ConfigException(
          "Mooncake config "
              + uri
              + ": resource '"
              + name
              + "' not found by class loader "
              + classLoader);
    }
    try {
      return readUrl(resource, uri);
    } catch (IOException e) {
      throw new ConfigException(
          "Mooncake config " + uri + ": cannot read " + resource + ": " + e, e);
    }
  }

  private static byte[] readJar(URI uri) {
    IOException jvmFailure;
    try {
      // The JVM's handlers: plain jar:file:…!/entry, and Spring Boot's nested forms when its
      // launcher has registered its handlers.
      return readUrl(uri.toURL(), uri);
    } catch (IOException | IllegalArgumentException e) {
      jvmFailure = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
    if (NestedJarReader.handles(uri)) {
      return NestedJarReader.read(uri);
    }
    throw new ConfigException("Mooncake config " + uri + ": not found: " + jvmFailure, jvmFailure);
  }

  private static byte[] readUrl(URL url, URI uri) throws IOException {
    URLConnection connection = url.openConnection();
    // No cached JarFile: a rebuilt jar must be read anew, and nothing is left open.
    connection.setUseCaches(false);
    try (InputStream in = connection.getInputStream()) {
      return readLimited(in, uri);
    }
  }

  static byte[] readLimited(InputStream in, URI uri) throws IOException {
    byte[] bytes = in.readNBytes(MAX_BYTES + 1);
    if (bytes.length > MAX_BYTES) {
      throw new ConfigException(
          "Mooncake config "
              + uri
              + ": larger than "
              + (MAX_BYTES >> 20)
              + " MiB; is this really a JSON config?");
    }
    return bytes;
  }
}
