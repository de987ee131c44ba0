package dev.mooncake.jcache.internal.config.source;

import dev.mooncake.jcache.config.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

/**
 * Reads an entry through Spring Boot's nested-jar URIs when no Spring Boot URL handler is
 * registered (a test, a plain {@code java -cp} run, a tool reading the config of a packaged app):
 *
 * <ul>
 *   <li>Spring Boot 3.2+: {@code jar:nested:/x/app.jar/!BOOT-INF/classes/!/mooncake.json} and
 *       {@code jar:nested:/x/app.jar/!BOOT-INF/lib/conf.jar!/mooncake.json};
 *   <li>earlier versions: {@code jar:file:/x/app.jar!/BOOT-INF/classes!/mooncake.json} and {@code
 *       jar:file:/x/app.jar!/BOOT-INF/lib/conf.jar!/mooncake.json}.
 * </ul>
 *
 * <p>Each segment between separators names either a directory of the enclosing jar (joined to the
 * next segment) or a jar stored inside it (opened as a stream). One level of jar-in-jar is what
 * Spring Boot produces; deeper nesting works as long as the inner segments are jars.
 */
final class NestedJarReader {
  private static final String NESTED_PREFIX = "nested:";

  private NestedJarReader() {}

  /** Whether the URI has a form this reader understands beyond the JVM's own jar handler. */
  static boolean handles(URI uri) {
    String spec = uri.getRawSchemeSpecificPart();
    return spec.startsWith(NESTED_PREFIX) || spec.indexOf("!/") != spec.lastIndexOf("!/");
  }

  static byte[] read(URI uri) {
    String spec = uri.getRawSchemeSpecificPart();
    Path outer;
    List<String> segments = new ArrayList<>();
    if (spec.startsWith(NESTED_PREFIX)) {
      // nested:<outer path>/!<entry in outer>[!/<entry in that>]
      String rest = spec.substring(NESTED_PREFIX.length());
      int separator = rest.indexOf("/!");
      if (separator < 0) {
        throw notFound(
            uri, "a jar:nested: URI needs the form jar:nested:/path/app.jar/!entry!/name");
      }
      outer = Path.of(decode(rest.substring(0, separator)));
      for (String segment : rest.substring(separator + 2).split("!/", -1)) {
        segments.add(decode(segment));
      }
    } else {
      // file:<outer path>!/<segment>!/<segment>…
      String[] parts = spec.split("!/", -1);
      URI outerUri = URI.create(parts[0]);
      if (!"file".equalsIgnoreCase(outerUri.getScheme())) {
        throw notFound(uri, "only jars on the file system can be opened here, not " + parts[0]);
      }
      outer = Path.of(outerUri);
      for (int i = 1; i < parts.length; i++) {
        segments.add(decode(parts[i]));
      }
    }
    try (ZipFile zip = new ZipFile(outer.toFile())) {
      return readFromZipFile(uri, zip, segments);
    } catch (NoSuchFileException | java.io.FileNotFoundException e) {
      throw notFound(uri, "no such jar: " + outer);
    } catch (IOException e) {
      if (!Files.exists(outer)) {
        throw notFound(uri, "no such jar: " + outer);
      }
      throw new ConfigException("Mooncake config " + uri + ": cannot read " + outer + ": " + e, e);
    }
  }

  private static byte[] readFromZipFile(URI uri, ZipFile zip, List<String> segments)
      throws IOException {
    String prefix = "";
    for (int i = 0; i < segments.size(); i++) {
      String name = prefix + stripSlashes(segments.get(i));
      boolean last = i == segments.size() - 1;
      ZipEntry entry = zip.getEntry(name);
      if (last) {
        if (entry == null || entry.isDirectory()) {
          throw notFound(uri, "no entry '" + name + "' in " + zip.getName());
        }
        try (InputStream in = zip.getInputStream(entry)) {
          return ConfigSourceReader.readLimited(in, uri);
        }
      }
      if (entry != null && !entry.isDirectory()) {
        try (InputStream in = zip.getInputStream(entry)) {
          return readFromJarStream(uri, in, name, segments.subList(i + 1, segments.size()));
        }
      }
      prefix = name.isEmpty() ? "" : name + "/";
    }
    throw notFound(uri, "the URI names no entry");
  }

  /**
   * Reads through a jar stored inside another one: remaining segments are a path or another jar.
   */
  private static byte[] readFromJarStream(
      URI uri, InputStream jar, String jarName, List<String> segments) throws IOException {
    String target = stripSlashes(segments.get(0));
    boolean last = segments.size() == 1;
    ZipInputStream zip = new ZipInputStream(jar);
    for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
      if (!entry.isDirectory() && entry.getName().equals(target)) {
        return last
            ? ConfigSourceReader.readLimited(zip, uri)
            : readFromJarStream(uri, zip, target, segments.subList(1, segments.size()));
      }
    }
    throw notFound(uri, "no entry '" + target + "' in nested jar " + jarName);
  }

  private static String stripSlashes(String segment) {
    String s = segment;
    while (s.startsWith("/")) {
      s = s.substring(1);
    }
    while (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    return s;
  }

  /** Percent-decoding as in URI paths ('+' stays a plus). */
  private static String decode(String raw) {
    if (raw.indexOf('%') < 0) {
      return raw;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%' && i + 2 < raw.length()) {
        out.write(Integer.parseInt(raw.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static ConfigException notFound(URI uri, String why) {
    return new ConfigException("Mooncake config " + uri + ": not found: " + why);
  }
}
