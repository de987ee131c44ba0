package dev.mooncake.jcache.internal.config.parse;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Set;

/**
 * Checks {@code metadata_server} against the forms Mooncake's transfer engine understands. It must
 * be checked before the store is set up: Mooncake answers an unknown scheme with {@code
 * LOG(FATAL)}, which aborts the whole process (the JVM included).
 *
 * <p>This is the one place these rules are written: the config reader applies them to the file, and
 * the Mooncake store applies them again to a config record built in code.
 *
 * <p>Mooncake's rules: the exact string {@code P2PHANDSHAKE} selects peer-to-peer handshakes;
 * otherwise the text before {@code ://} is the plugin ({@code etcd}, {@code redis}, {@code http},
 * {@code https}), and text without {@code ://} is an etcd endpoint.
 */
public final class MetadataServerValidator {
  static final String P2P_HANDSHAKE = "P2PHANDSHAKE";
  private static final Set<String> HTTP_SCHEMES = Set.of("http", "https");
  private static final Set<String> HOST_PORT_SCHEMES = Set.of("etcd", "redis");

  static final String FORMS =
      "use P2PHANDSHAKE, http://host:port/path, https://host:port/path, etcd://host:port,"
          + " redis://host:port, or a bare etcd host:port";

  private MetadataServerValidator() {}

  /**
   * Returns the trimmed value if Mooncake accepts it; else throws {@link IllegalArgumentException}.
   */
  public static String validate(String value) {
    String text = value.strip();
    if (text.isEmpty()) {
      throw new IllegalArgumentException("is empty; " + FORMS);
    }
    if (text.equals(P2P_HANDSHAKE)) {
      return text;
    }
    if (text.equalsIgnoreCase(P2P_HANDSHAKE)) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' must be written P2PHANDSHAKE exactly (Mooncake compares it case-sensitively)");
    }
    int separator = text.indexOf("://");
    if (separator < 0) {
      checkHostPort(text, text);
      return text;
    }
    String scheme = text.substring(0, separator);
    String rest = text.substring(separator + 3);
    if (HOST_PORT_SCHEMES.contains(scheme)) {
      checkHostPort(rest, text);
    } else if (HTTP_SCHEMES.contains(scheme)) {
      checkHttp(text);
    } else {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' has the unknown scheme '"
              + scheme
              + "' (Mooncake would abort the process on it); "
              + FORMS);
    }
    return text;
  }

  private static void checkHostPort(String hostPort, String whole) {
    try {
      HostPort.parse(hostPort);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "'" + whole + "' is not a metadata server address: " + e.getMessage() + "; " + FORMS);
    }
  }

  private static void checkHttp(String text) {
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("'" + text + "' is not a valid URL: " + e.getReason());
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("'" + text + "' has no host; use http://host:port/path");
    }
    if (uri.getPort() == 0 || uri.getPort() > 65535) {
      throw new IllegalArgumentException("'" + text + "' has a port outside 1-65535");
    }
    // Mooncake appends "?key=..." to the URL itself: a query or fragment of ours would corrupt it.
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException(
          "'" + text + "' must not have a query or fragment (Mooncake appends ?key=... itself)");
    }
  }
}
